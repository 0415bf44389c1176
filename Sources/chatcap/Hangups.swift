import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGHUP asks a capture (or tail) with `--channels-file` to read the file again. The handler only
/// sets an atomic flag (async-signal-safe); the ingest loop takes it at its next tick (at least every
/// 250 ms) and does the work there (``ChannelReload``).
enum Hangups {
    private static let pending = Atomic<Bool>(false)

    /// Catches SIGHUP from now on (instead of its default, ending the process) and unblocks it, as
    /// ``Interrupts/install(_:)`` does for SIGINT and SIGTERM.
    static func install() {
        signal(SIGHUP) { _ in Hangups.received() }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGHUP)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether a SIGHUP came since the last call; clears it. Several before a call count as one.
    static func take() -> Bool { pending.exchange(false, ordering: .acquiringAndReleasing) }

    /// Async-signal-safe: an atomic store only.
    private static func received() { pending.store(true, ordering: .releasing) }
}
