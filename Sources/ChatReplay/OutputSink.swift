#if canImport(Glibc)
import Glibc
#endif
import ChatPosix

/// Writes bytes to a file descriptor (standard output by default) through a buffer allocated once.
///
/// Flushes after every line when the descriptor is a pipe or a terminal (so `jq` sees each message at
/// once), and in large blocks otherwise (files, `/dev/null`). A closed pipe (EPIPE) is reported as
/// ``OutputError/closed``: the reader went away, which is not a failure of ours.
public final class OutputSink {
    public let descriptor: Int32
    /// Flush after each ``endLine()``.
    public let flushesLines: Bool
    private var buffer: [UInt8] = []
    private let capacity: Int

    /// - Parameter lineBuffered: `nil` decides from the descriptor (pipe or terminal: per line).
    public init(descriptor: Int32 = 1, lineBuffered: Bool? = nil, capacity: Int = 256 * 1024) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
        if let lineBuffered {
            flushesLines = lineBuffered
        } else {
            var info = stat()
            // SAFETY: `info` is a local `stat` buffer that `fstat` fills.
            let isPipe = unsafe fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
            flushesLines = isPipe || isatty(descriptor) != 0
        }
    }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { isatty(descriptor) != 0 }

    /// Appends `bytes` to the buffer (writing it out when full).
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public func write(_ bytes: [UInt8]) throws(OutputError) {
        if buffer.count + bytes.count > capacity { try flush() }
        if bytes.count > capacity {
            try writeAll(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
    }

    /// Appends `span` to the buffer.
    public func write(_ span: Span<UInt8>) throws(OutputError) {
        if buffer.count + span.count > capacity { try flush() }
        // SAFETY: the span's bytes are valid for the call; they are copied at once.
        unsafe span.withUnsafeBufferPointer { p in unsafe buffer.append(contentsOf: p) }
    }

    /// Marks the end of an output line: flushes when line-buffered.
    public func endLine() throws(OutputError) {
        if flushesLines || buffer.count > capacity / 2 { try flush() }
    }

    /// Writes out everything buffered.
    public func flush() throws(OutputError) {
        guard !buffer.isEmpty else { return }
        try writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8]) throws(OutputError) {
        guard let code = writeAllWaiting(descriptor, bytes.span) else { return }
        if code == EPIPE { throw .closed }
        throw .failed(errno: code, message: InputError.text(errno: code))
    }
}

@available(*, unavailable)
extension OutputSink: Sendable {}

/// Why output stopped.
public enum OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reader closed the pipe (EPIPE): stop quietly.
    case closed
    /// A write failed (disk full, I/O error…).
    case failed(errno: Int32, message: String)

    public var description: String {
        switch self {
        case .closed: "output closed by its reader"
        case .failed(let e, let m): "cannot write output: \(m) (errno \(e))"
        }
    }
}
