import ChatPosix

/// systemd `Type=notify` for the live commands (`capture`, `tail`): a ``ServiceNotifier`` when
/// `NOTIFY_SOCKET` is set, whose problems are warnings on stderr, never fatal. See docs/capture.md,
/// "Running under systemd", and docs/chatcap-capture.service.
enum ServiceManager {
    /// The notifier the environment asks for, `nil` without `NOTIFY_SOCKET` (or with one it cannot
    /// use: said on stderr).
    static func notifier(statusIntervalMs: Int64) -> ServiceNotifier? {
        do {
            let notifier = try ServiceNotifier.fromEnvironment(Environment.value, statusIntervalMs: statusIntervalMs)
            notifier?.onFirstFailure = { Diagnostics.warning($0) }
            return notifier
        } catch {
            Diagnostics.warning("\(error)")
            return nil
        }
    }

    /// Says on stderr how many notifications failed, if any did.
    static func finish(_ notifier: ServiceNotifier?) {
        guard let notifier, notifier.failedSends > 0 else { return }
        Diagnostics.warning(
            "\(notifier.failedSends) notifications to the service manager failed"
                + (notifier.lastErrno.map { " (the last: \(Errno.text($0)))" } ?? ""))
    }
}
