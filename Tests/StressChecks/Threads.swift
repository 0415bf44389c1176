import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Set once by the writer of a scenario when it is done; readers poll it.
final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

/// What a reader thread checked, and how many of those were wrong.
final class Tally: Sendable {
    let checked = Atomic<Int>(0)
    let bad = Atomic<Int>(0)
    let missed = Atomic<Int>(0)
    func record(_ ok: Bool) {
        checked.add(1, ordering: .relaxed)
        if !ok { bad.add(1, ordering: .relaxed) }
    }
}

/// Runs `body` on a new POSIX thread. Dedicated threads, not tasks: a polling reader must not wait
/// for a pool thread the writer holds.
func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: @unchecked Sendable {  // handed to exactly one thread
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(
        &thread, nil,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    return thread
}

func join(_ thread: pthread_t) {
    pthread_join(thread, nil)
}
