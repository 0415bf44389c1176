import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGHUP asks a capture (or tail) with `--channels-file` to read the file again. The handler only
/// sets an atomic flag (async-signal-safe); the ingest loop takes it at its next tick (at least every
/// 250 ms) and does the work there (``ChannelReload``).
public enum Hangups: Sendable {
    private static let pending = Atomic<Bool>(false)

    /// Catches SIGHUP from now on (instead of its default, ending the process) and unblocks it, as
    /// ``Interrupts/install(_:)`` does for SIGINT and SIGTERM.
    public static func install() {
        signal(SIGHUP) { _ in Hangups.received() }
        // SAFETY: `set` is a local signal set the calls fill and read.
        var set = sigset_t()
        unsafe sigemptyset(&set)
        unsafe sigaddset(&set, SIGHUP)
        unsafe sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether a SIGHUP came since the last call; clears it. Several before a call count as one.
    public static func take() -> Bool { pending.exchange(false, ordering: .acquiringAndReleasing) }

    /// Async-signal-safe: an atomic store only. Installed only when the run reloads (``SignalRule``).
    private static func received() { pending.store(true, ordering: .releasing) }
}
