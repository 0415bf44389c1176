public import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM raise a stop flag that the ingest loop polls (it wakes at least every 250 ms);
/// a second one exits at once (``SignalRule``).
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
}
