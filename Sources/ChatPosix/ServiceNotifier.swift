#if canImport(Glibc)
    import Glibc
#endif

/// Tells a service manager (systemd, `Type=notify`) how the service is doing, over the documented
/// `NOTIFY_SOCKET` datagram protocol of sd_notify(3): newline-separated `KEY=VALUE` assignments, one
/// datagram per notification, sent to an `AF_UNIX` `SOCK_DGRAM` socket named by a path or, with a
/// leading `@`, by an abstract name.
///
/// Owns one socket, opened once, non-blocking: a notification never waits (a full queue at the
/// manager's end is `EAGAIN`), and a failure is counted (``failedSends``, ``lastErrno``) and
/// reported once through ``onFirstFailure``, never fatal. (libsystemd's `sd_notify` opens a socket
/// per call and sends blocking: not something the ingest loop may call.)
///
/// The schedule is the caller's loop: ``tick(nowMs:ready:status:)`` sends `READY=1` the first time
/// `ready` holds, `WATCHDOG=1` every ``watchdogIntervalMs`` (half of `WATCHDOG_USEC`, so a loop that
/// stops ticking stops feeding the watchdog and gets restarted) and `STATUS=` every
/// ``statusIntervalMs``. Confined to the thread that ticks it (the ingest loop).
public final class ServiceNotifier {
    /// `NOTIFY_SOCKET` as given: a path, or `@name` for an abstract socket.
    public let socketName: String
    /// How often ``tick(nowMs:ready:status:)`` feeds the watchdog: half of `WATCHDOG_USEC` (at
    /// least 1 ms), or `nil` when the manager watches no watchdog for this process.
    public let watchdogIntervalMs: Int64?
    /// How often ``tick(nowMs:ready:status:)`` sends `STATUS=`.
    public var statusIntervalMs: Int64
    /// Notifications that could not be sent, and the `errno` of the last one.
    public private(set) var failedSends = 0
    public private(set) var lastErrno: Int32? = nil
    /// Called once, with a message for stderr, when a notification first fails.
    public var onFirstFailure: ((String) -> Void)? = nil
    /// Whether `READY=1` was sent (or attempted).
    public private(set) var isReady = false

    private let descriptor: Int32
    private var address = sockaddr_un()
    private var addressLength: socklen_t = 0
    private var nextWatchdogMs: Int64? = nil
    private var nextStatusMs: Int64? = nil

    /// What is wrong with a `NOTIFY_SOCKET` value or the socket for it.
    public enum SetupError: Error, Equatable, CustomStringConvertible {
        /// Not a path nor an `@` name (e.g. systemd 254's `vsock:`), or longer than `sun_path`.
        case unsupportedAddress(String)
        case socketFailed(errno: Int32)

        public var description: String {
            switch self {
            case .unsupportedAddress(let name):
                "NOTIFY_SOCKET=\(name) is not a path or an @abstract name of at most 107 bytes: "
                    + "no notifications are sent"
            case .socketFailed(let code): "no socket for NOTIFY_SOCKET: \(Errno.text(code))"
            }
        }
    }

    /// The notifier that `environment` asks for, or `nil` when it asks for none (`NOTIFY_SOCKET` unset
    /// or empty).
    ///
    /// - Parameters:
    ///   - environment: looks up `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` (tests pass a
    ///     dictionary's lookup).
    ///   - pid: this process (`getpid()` by default); a `WATCHDOG_PID` naming another one means the
    ///     watchdog is not ours.
    ///   - statusIntervalMs: how often to send `STATUS=`.
    /// - Throws: ``SetupError`` for an address this type cannot send to, or no socket.
    public static func fromEnvironment(
        _ environment: (String) -> String?, pid: Int32? = nil, statusIntervalMs: Int64 = 10_000
    ) throws(SetupError) -> ServiceNotifier? {
        guard let name = environment("NOTIFY_SOCKET"), !name.isEmpty else { return nil }
        return try ServiceNotifier(
            socketName: name,
            watchdogIntervalMs: watchdogInterval(
                usec: environment("WATCHDOG_USEC"), pid: environment("WATCHDOG_PID"), ownPid: pid ?? getpid()),
            statusIntervalMs: statusIntervalMs)
    }

    /// Half of `WATCHDOG_USEC` in milliseconds (at least 1), when the variable is a positive number
    /// and `WATCHDOG_PID` is unset or names `ownPid` (sd_watchdog_enabled(3)); otherwise `nil`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public static func watchdogInterval(usec: String?, pid: String?, ownPid: Int32) -> Int64? {
        guard let usec, let micros = UInt64(usec), micros > 0 else { return nil }
        if let pid, !pid.isEmpty, Int32(pid) != ownPid { return nil }
        return max(1, Int64(clamping: micros / 2_000))
    }

    public init(socketName: String, watchdogIntervalMs: Int64?, statusIntervalMs: Int64 = 10_000)
        throws(SetupError)
    {
        self.socketName = socketName
        self.watchdogIntervalMs = watchdogIntervalMs
        self.statusIntervalMs = statusIntervalMs
        var bytes = Array(socketName.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        guard abstract || bytes.first == UInt8(ascii: "/"), bytes.count >= 2 else {
            throw .unsupportedAddress(socketName)
        }
        // An abstract name starts with a NUL byte and is exactly as long as given (no terminator);
        // a path is NUL-terminated within `sun_path`.
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count <= capacity - (abstract ? 0 : 1) else { throw .unsupportedAddress(socketName) }
        address.sun_family = sa_family_t(AF_UNIX)
        // SAFETY: `bytes.count <= capacity`, the size of `sun_path`; the rest stays zero (a path's NUL).
        unsafe withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { unsafe raw[i] = byte }
        }
        addressLength = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        descriptor = socket(AF_UNIX, type, 0)
        guard descriptor >= 0 else { throw .socketFailed(errno: errno) }
    }

    deinit { close(descriptor) }

    /// Sends `message` (`KEY=VALUE` lines) as one datagram, without waiting.
    ///
    /// - Returns: whether the manager's socket took it; a failure is counted, not thrown.
    /// - Complexity: O(`message`). - Allocations: none for a native string.
    @discardableResult
    public func send(_ message: String) -> Bool {
        var message = message
        // SAFETY: the buffer is valid for the call and only read by `send(bytes:)`.
        return message.withUTF8 { unsafe send(bytes: $0) }
    }

    @unsafe
    private func send(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var sent: Int
        repeat {
            // SAFETY: `bytes` is valid for the call; `address` is a `sockaddr_un` whose first
            // `addressLength` bytes are set (`addressLength <= MemoryLayout<sockaddr_un>.size`).
            sent = unsafe withUnsafePointer(to: &address) { pointer in
                unsafe pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    unsafe sendto(
                        descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), generic,
                        addressLength)
                }
            }
        } while sent < 0 && errno == EINTR
        guard sent < 0 else { return true }
        let code = errno
        failedSends += 1
        lastErrno = code
        if failedSends == 1, let onFirstFailure {
            onFirstFailure(
                "notifying the service manager (NOTIFY_SOCKET=\(socketName)) failed: \(Errno.text(code)); "
                    + "further failures are counted")
        }
        return false
    }

    /// Sends what is due at `nowMs` (monotonic milliseconds): `READY=1` with a status the first time
    /// `ready` holds, `WATCHDOG=1` when the watchdog's interval has passed since the last one (the
    /// first tick sends one), and `STATUS=` when the status interval has passed.
    ///
    /// - Parameters:
    ///   - ready: evaluated only until it first holds.
    ///   - status: the one-line summary; evaluated only when a status is due.
    /// - Complexity: O(1) plus `ready` and, when due, `status`. - Allocations: none unless a status
    ///   is due.
    public func tick(nowMs: Int64, ready: @autoclosure () -> Bool, status: () -> String) {
        if let interval = watchdogIntervalMs, nowMs >= nextWatchdogMs ?? nowMs {
            send("WATCHDOG=1")
            nextWatchdogMs = nowMs + interval
        }
        if !isReady && ready() {
            isReady = true
            send("READY=1\nSTATUS=" + Self.oneLine(status()))
            nextStatusMs = nowMs + statusIntervalMs
        } else if nowMs >= nextStatusMs ?? nowMs {
            send("STATUS=" + Self.oneLine(status()))
            nextStatusMs = nowMs + statusIntervalMs
        }
    }

    /// Sends `STOPPING=1` with a last status: the service is shutting down (files are being closed).
    public func stopping(status: String) {
        send("STOPPING=1\nSTATUS=" + Self.oneLine(status))
    }

    /// `text` with line breaks as spaces: a newline would end the `STATUS=` assignment.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return text }
        return String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
    }
}

@available(*, unavailable)
extension ServiceNotifier: Sendable {}
