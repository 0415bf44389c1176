import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM raise a stop flag that a run's loop polls (the ingest loop wakes at least
/// every 250 ms); a second one exits at once (``SignalRule``). Or, for a server that must not run a
/// handler at all, they are taken by `sigwait` on a thread of their own (``onInterrupt(_:)``).
public enum Interrupts: Sendable {
    nonisolated(unsafe) static var flag: StopFlag? = nil

    /// Catches SIGINT and SIGTERM from now on: the first raises `flag`, a second exits with 130.
    public static func install(_ flag: StopFlag) {
        unsafe self.flag = flag
        signal(SIGINT) { _ in Interrupts.received() }
        signal(SIGTERM) { _ in Interrupts.received() }
        // A parent may have started us with these signals blocked (a thread's mask is inherited):
        // unblock them, or Ctrl-C and `kill` would be ignored until --duration ends.
        // SAFETY: `set` is a local signal set the calls fill and read.
        var set = sigset_t()
        unsafe sigemptyset(&set)
        unsafe sigaddset(&set, SIGINT)
        unsafe sigaddset(&set, SIGTERM)
        unsafe sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Async-signal-safe: an atomic flag, `write(2)` and `_exit(2)` only.
    private static func received() {
        let flag = unsafe Interrupts.flag
        switch SignalRule.action(for: .interrupt, stopRaised: flag?.isRaised ?? true, reloads: false) {
        case .stop: flag?.raise()
        case .exitNow(let status):
            let text = "\nchatcap: second interrupt: exiting now\n"
            // SAFETY: the pointer and count are the literal's own UTF-8, valid for the call.
            _ = unsafe text.utf8.withContiguousStorageIfAvailable { unsafe write(2, $0.baseAddress, $0.count) }
            _exit(status)
        case .reload, .terminate: break
        }
    }

    /// SIGINT and SIGTERM run `stop` once: both are blocked in this thread (and so in every thread
    /// started later) and taken by `sigwait` on a Dispatch worker. No signal handler runs, so nothing
    /// async-signal-unsafe can happen; and it works the same when a parent started us with the signals
    /// blocked or ignored. Call it before starting other threads (they inherit the mask).
    public static func onInterrupt(_ stop: @escaping @Sendable () -> Void) {
        var set = sigset_t()
        // SAFETY: `set` is a local signal set the calls fill and read; the handlers are reset to the default.
        unsafe sigemptyset(&set)
        unsafe sigaddset(&set, SIGINT)
        unsafe sigaddset(&set, SIGTERM)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        unsafe pthread_sigmask(SIG_BLOCK, &set, nil)
        let signals = set
        DispatchQueue.global().async {
            var set = signals
            var number: Int32 = 0
            // SAFETY: `set` and `number` are locals the call reads and writes.
            while unsafe sigwait(&set, &number) != 0 {}
            stop()
        }
    }
}
