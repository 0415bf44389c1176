import IRCWire

/// The byte stream to one client: plain TCP or server-side TLS, driven the same way by the loop.
///
/// Errors of either kind come out as one ``Failure`` carrying the message to report.
/// Confined to the server's loop thread.
enum ServeTransport {
    case plain(TCPConnection)
    case tls(ServerTLSConnection)

    /// Why reading or writing failed, as a message for the server's report.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var fileDescriptor: Int32 {
        switch self {
        case .plain(let connection): connection.fileDescriptor
        case .tls(let connection): connection.fileDescriptor
        }
    }

    var interest: EventLoop.Interest {
        switch self {
        case .plain(let connection): connection.interest
        case .tls(let connection): connection.interest
        }
    }

    /// Bytes queued and not yet written.
    var pendingWriteCount: Int {
        switch self {
        case .plain(let connection): connection.pendingWriteCount
        case .tls(let connection): connection.pendingWriteCount
        }
    }

    /// Reads what is available into the framer's free tail (see ``ByteStream/read(into:)-(LineFramer)``).
    ///
    /// - Complexity: one read. - Allocations: none.
    func read(into framer: inout LineFramer) throws(Failure) -> ReadOutcome {
        switch self {
        case .plain(let connection):
            do { return try connection.read(into: &framer) } catch { throw Failure(description: error.description) }
        case .tls(let connection):
            do { return try connection.read(into: &framer) } catch { throw Failure(description: error.description) }
        }
    }

    /// Queues `line` and CR LF.
    ///
    /// - Complexity: amortised O(`line.count`). - Allocations: only when the queue grows.
    func enqueue(line: Span<UInt8>) {
        // SAFETY: the span's storage is lent only for the closure, which copies it into the queue.
        unsafe line.withUnsafeBufferPointer { buffer in
            switch self {
            case .plain(let connection): unsafe connection.enqueue(bytes: buffer)
            case .tls(let connection): unsafe connection.enqueue(bytes: buffer)
            }
        }
        switch self {
        case .plain(let connection): connection.enqueue(bytes: Self.lineEnd)
        case .tls(let connection): connection.enqueue(bytes: Self.lineEnd)
        }
    }

    /// Queues a control line (built as a string) and CR LF.
    func enqueue(line: String) {
        var line = line
        // SAFETY: the string's UTF-8 storage is lent only for the closure; the span is used inside it.
        line.withUTF8 { unsafe enqueue(line: $0.span) }
    }

    /// Writes as much of the queue as the socket takes.
    ///
    /// - Returns: `true` when the queue is empty.
    @discardableResult
    func flush() throws(Failure) -> Bool {
        switch self {
        case .plain(let connection):
            do { return try connection.flush() } catch { throw Failure(description: error.description) }
        case .tls(let connection):
            do { return try connection.flush() } catch { throw Failure(description: error.description) }
        }
    }

    private static let lineEnd: [UInt8] = [0x0D, 0x0A]
}

@available(*, unavailable)
extension ServeTransport: Sendable {}
