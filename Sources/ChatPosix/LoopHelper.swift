import Synchronization

/// A second thread that shares loops with its owner: ``run(_:_:)`` offers the helper a loop over
/// `0 ..< count`, both threads take the next index from one atomic counter until none is left, and
/// the call returns once every index has been run and the helper has let go of the loop.
///
/// ```
///  owner:  run(n) ─ offer ─▶ take 0 ─ body(0) ─ take 2 ─ body(2) ─ … ─ none left ─ wait for the helper ─▶ return
///  helper:          wakes ─▶ take 1 ─ body(1) ─ take 3 … ─ none left ─ done ───────────────────┘
/// ```
/// For bursts of independent work the owner would otherwise do alone while its thread stops (a capture's
/// flush of every open file: compressing each is independent of the others). One hand-off per loop, none
/// per index beyond the counter; the counter balances the work, so a helper that gets no CPU (a busy
/// machine) costs the owner nothing but the offer: an offer the helper has not taken up when the owner
/// has run every index is withdrawn, and the owner does not wait for the helper to be scheduled.
///
/// Owner: one thread calls ``run(_:_:)`` and ``stop()``. The body runs on both threads at once, for
/// different indices; everything the owner wrote before ``run(_:_:)`` is visible to the helper's calls,
/// and everything they wrote is visible to the owner when it returns (the monitor's lock orders them).
///
/// - Allocations: the thread and its monitor, once; none per loop.
@safe
package final class LoopHelper: @unchecked Sendable {  // guarded by `monitor`, or atomic
    private let monitor = PosixMonitor(conditions: 2)
    private static let offered = PosixMonitor.Condition(0)
    private static let finished = PosixMonitor.Condition(1)
    // Guarded by `monitor`:
    /// The loop on offer or being run by the helper, and its length.
    private var body: (@Sendable (Int) -> Void)? = nil
    private var count = 0
    /// Whether the helper took the current offer up (and must be waited for), and whether it is done.
    private var taken = false
    private var done = false
    private var stopping = false
    /// The next index to run.
    private let next = Atomic<Int>(0)
    /// Indices the helper ran, over its life (for tests and reports).
    private let helped = Atomic<Int>(0)
    private var thread: PosixThread? = nil

    package init() {
        thread = PosixThread { [unowned(unsafe) self] in unsafe self.serve() }
    }

    deinit { stop() }

    /// Indices of all loops so far that the helper ran (the owner ran the rest).
    package var indicesHelped: Int { helped.load(ordering: .relaxed) }

    /// Runs `body` for every index in `0 ..< count`, each exactly once, on this thread and the helper's.
    ///
    /// - Precondition: not after ``stop()``; not called from `body`.
    /// - Complexity: O(`count`) calls of `body`, spread over two threads. - Allocations: none.
    package func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        next.store(0, ordering: .relaxed)
        monitor.lock()
        precondition(!stopping, "LoopHelper used after stop()")
        self.body = body
        self.count = count
        taken = false
        done = false
        monitor.signal(Self.offered)
        monitor.unlock()
        _ = drain(body, count)
        monitor.lock()
        if taken {
            while !done { monitor.wait(Self.finished) }
        }
        // Withdrawn if the helper never took it up: it finds no offer when it wakes.
        self.body = nil
        monitor.unlock()
    }

    /// Ends the helper thread and waits for it. Further calls do nothing.
    package func stop() {
        monitor.lock()
        stopping = true
        monitor.signal(Self.offered)
        monitor.unlock()
        thread?.join()
        thread = nil
    }

    /// Runs indices until none is left; how many it ran.
    private func drain(_ body: (Int) -> Void, _ count: Int) -> Int {
        var ran = 0
        while true {
            let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard i < count else { return ran }
            body(i)
            ran += 1
        }
    }

    private func serve() {
        while true {
            monitor.lock()
            while body == nil || taken, !stopping { monitor.wait(Self.offered) }
            if stopping {
                monitor.unlock()
                return
            }
            let body = body!
            let count = count
            taken = true
            monitor.unlock()
            let ran = drain(body, count)
            helped.wrappingAdd(ran, ordering: .relaxed)
            monitor.lock()
            done = true
            monitor.signal(Self.finished)
            monitor.unlock()
        }
    }
}
