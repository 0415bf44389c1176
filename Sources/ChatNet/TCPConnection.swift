import CLinux
public import ChatPosix
import Glibc
public import IRCWire
import TwitchSession

/// A connected non-blocking stream socket with a write queue: the plain-TCP ``ByteStream``.
///
/// Owns its descriptor and closes it in `deinit`. Reads go straight into the caller's buffer
/// (normally a ``LineFramer``'s free tail); writes are queued and flushed as the socket takes them,
/// so a partial write simply leaves the rest queued. `EINTR` is retried inside; `EAGAIN` becomes
/// `.wouldBlock`; other failures throw ``SocketError`` with `errno`. Writes use `MSG_NOSIGNAL`, so
/// a closed peer is an `EPIPE` error, not a `SIGPIPE`.
///
/// Connecting: ``connect(host:port:timeoutMs:stop:)`` resolves, tries each address in turn and waits
/// (on a private ``EventLoop``, ended early by a raised ``StopFlag``) for each connect to complete; a
/// loop that must not block starts with ``startConnect(to:)`` and calls ``finishConnect()`` once the
/// descriptor is writable.
///
/// Confined to the ingest thread.
public final class TCPConnection: ByteStream {
    public let fileDescriptor: Int32
    /// Who is on the other end, for messages (`127.0.0.1:6667`, or what the adopter said).
    public let peer: String
    /// Whether the connect has completed (always `true` for an adopted descriptor).
    public private(set) var isConnected: Bool
    private var queue = WriteQueue()

    /// Adopts a connected stream socket (e.g. one end of a `socketpair`) and makes it non-blocking.
    ///
    /// - Throws: ``SocketError`` when the descriptor's flags cannot be changed; the descriptor is
    ///   closed then too, since the connection owns it from the start.
    public init(adopting descriptor: Int32, peer: String = "socket") throws(SocketError) {
        precondition(descriptor >= 0, "invalid descriptor")
        fileDescriptor = descriptor
        self.peer = peer
        isConnected = true
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0,
            fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
        else { throw SocketError.lastError("make \(peer) non-blocking") }
    }

    private init(descriptor: Int32, peer: String, connected: Bool) {
        fileDescriptor = descriptor
        self.peer = peer
        isConnected = connected
    }

    deinit {
        close(fileDescriptor)
    }

    // MARK: Connecting

    /// Resolves `host` and connects to the first address that answers within the time left,
    /// waiting for each non-blocking connect on epoll and reading its `SO_ERROR`.
    ///
    /// - Parameters:
    ///   - timeoutMs: the budget for all addresses together.
    ///   - stop: ends the wait within ``EventLoop/stopCheckMs`` of being raised (SIGINT, SIGTERM).
    /// - Throws: ``SocketError``: the resolver's, the last address's (`ECONNREFUSED`, …),
    ///   `ETIMEDOUT` when the budget ran out, or ``SocketError/stopped(_:)``.
    public static func connect(host: String, port: UInt16, timeoutMs: Int64 = 10_000, stop: StopFlag? = nil)
        throws(SocketError) -> TCPConnection
    {
        let addresses = try SocketAddress.resolve(host: host, port: port)
        let deadline = Moment.now().monotonicMs + timeoutMs
        var lastError = SocketError(code: ETIMEDOUT, message: "connect to \(host):\(port): timed out")
        for address in addresses {
            let remaining = deadline - Moment.now().monotonicMs
            guard remaining > 0 else { break }
            do {
                let connection = try startConnect(to: address)
                if !connection.isConnected { try connection.waitForConnect(timeoutMs: remaining, stop: stop) }
                return connection
            } catch {
                if stop?.isRaised == true { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    /// Creates a non-blocking socket and starts connecting it to `address`.
    ///
    /// If ``isConnected`` is `false` afterwards, register the descriptor for `.writable` and call
    /// ``finishConnect()`` when it is.
    ///
    /// - Throws: ``SocketError`` when the socket cannot be created or the connect fails at once.
    public static func startConnect(to address: SocketAddress) throws(SocketError) -> TCPConnection {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.family, type, 0)
        guard descriptor >= 0 else { throw SocketError.lastError("socket for \(address)") }
        let connection = TCPConnection(descriptor: descriptor, peer: address.description, connected: false)
        var one: Int32 = 1
        // SAFETY: passes a pointer to a local `Int32` and its size.
        _ = unsafe setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        do {
            // SAFETY: `withSocketAddress` lends a valid `sockaddr` of the stated length for the call.
            let result = unsafe address.withSocketAddress { unsafe Glibc.connect(descriptor, $0, $1) }
            if result == 0 {
                connection.isConnected = true
                return connection
            }
            // An interrupted connect goes on in the background, like one in progress.
            guard errno == EINPROGRESS || errno == EINTR else { throw SocketError.lastError("connect to \(address)") }
            return connection
        }
    }

    /// Completes a connect started by ``startConnect(to:)``: call it when the descriptor is writable
    /// (calling it earlier is harmless: ``isConnected`` stays `false` while the connect is in progress).
    ///
    /// - Throws: ``SocketError`` with the connect's `SO_ERROR` (`ECONNREFUSED`, `ETIMEDOUT`, …).
    public func finishConnect() throws(SocketError) {
        guard !isConnected else { return }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        // SAFETY: passes a pointer to a local `Int32` and its size, which the kernel fills.
        guard unsafe getsockopt(fileDescriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
            throw SocketError.lastError("connect to \(peer)")
        }
        if code == EINPROGRESS || code == EALREADY { return }
        guard code == 0 else { throw SocketError.system(code, "connect to \(peer)") }
        // `SO_ERROR` is 0 while the connect is still in progress, too: only a peer address proves it done.
        let descriptor = fileDescriptor
        // SAFETY: `filling` lends room for any address and its length; the kernel writes within them.
        let (result, _) = unsafe SocketAddress.filling { unsafe getpeername(descriptor, $0, &$1) }
        if result == 0 {
            isConnected = true
        } else if errno != ENOTCONN {
            throw SocketError.lastError("connect to \(peer)")
        }
    }

    /// Blocks on a private epoll instance until the pending connect completes, `timeoutMs` passes or
    /// `stop` is raised (seen within ``EventLoop/stopCheckMs``).
    func waitForConnect(timeoutMs: Int64, stop: StopFlag?) throws(SocketError) {
        let loop = try EventLoop(maxEvents: 1)
        try loop.register(fileDescriptor, interest: .writable)
        defer { try? loop.remove(fileDescriptor) }
        let deadline = Moment.now().monotonicMs + timeoutMs
        while !isConnected {
            let remaining = deadline - Moment.now().monotonicMs
            guard remaining > 0 else {
                throw SocketError(code: ETIMEDOUT, message: "connect to \(peer): no answer within \(timeoutMs) ms")
            }
            try loop.waitStep(remainingMs: remaining, stop: stop, "connect to \(peer)")
            try finishConnect()
        }
    }

    // MARK: Reading and writing

    public var interest: EventLoop.Interest {
        !isConnected || !queue.isEmpty ? [.readable, .writable] : .readable
    }

    public var pendingWriteCount: Int { queue.count }

    /// Reads what is available into `buffer`.
    ///
    /// - Complexity: one `recv(2)` (more only after `EINTR`). - Allocations: none.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> ReadOutcome {
        precondition(buffer.count > 0, "read into an empty buffer")
        if !isConnected {
            try finishConnect()
            guard isConnected else { return .wouldBlock }
        }
        while true {
            // SAFETY: the kernel writes at most `buffer.count` bytes into `buffer`, which the caller
            // lends for the duration of the call.
            let count = unsafe recv(fileDescriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw SocketError.lastError("read from \(peer)")
            }
        }
    }

    public func enqueue(_ message: OutgoingMessage) throws(SerializationError) {
        try queue.append(message)
    }

    public func enqueue(line: Span<UInt8>) {
        queue.append(line: line)
    }

    public func enqueue(raw bytes: Span<UInt8>, isSecret: Bool) {
        queue.append(raw: bytes, isSecret: isSecret)
    }

    /// Queues raw bytes (tests, or a pre-serialised line with its CR LF).
    public func enqueue(bytes: some Collection<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// Writes as much of the queue as the socket takes; a partial write leaves the rest queued.
    ///
    /// - Complexity: one `send(2)` per accepted chunk. - Allocations: none.
    @discardableResult
    public func flush() throws(SocketError) -> Bool {
        if !isConnected {
            try finishConnect()
            guard isConnected else { return queue.isEmpty }
        }
        let descriptor = fileDescriptor
        // SAFETY: the queue lends its pending bytes only for the closure, which passes them to `send`.
        return try unsafe queue.write { (pending) throws(SocketError) -> Int in
            // SAFETY: `pending` is lent by the queue for this closure; `send` reads at most
            // `pending.count` bytes from it.
            try unsafe Self.send(descriptor, pending, peer: peer)
        }
    }

    /// `send(2)` with `MSG_NOSIGNAL`, `EINTR` retried; 0 when the socket takes nothing now.
    private static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, peer: String) throws(SocketError)
        -> Int
    {
        while true {
            // SAFETY: the kernel reads at most `bytes.count` bytes from `bytes`, valid for the call.
            let count = unsafe Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw SocketError.lastError("write to \(peer)")
            }
        }
    }
}

@available(*, unavailable)
extension TCPConnection: Sendable {}
