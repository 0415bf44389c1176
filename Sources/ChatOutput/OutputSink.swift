import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Writes bytes to a file descriptor (standard output by default) through a buffer allocated once,
/// in large writes whatever the descriptor is (terminal, pipe, regular file).
///
/// Output is never held for long: the sink remembers when its buffer got its first unflushed byte,
/// and writes the buffer out when it is half full, or once that byte is ``maxDelay`` old — at the
/// next ``endLine()`` or at the next idle point that calls ``flushIfDue(now:)`` (a pacer wait, a
/// follow poll, a live loop tick). So `jq` at the end of a pipe sees a paced, followed or live line
/// within about ``maxDelay``, and 20,000 lines replayed at full speed take a few dozen `write(2)`s,
/// not 20,000. A closed pipe (EPIPE) is reported as ``OutputError/closed``: the reader went away,
/// which is not a failure of ours.
///
/// ```
///  buffer: [ line | line | line |          free           ]   flushed when count > capacity / 2,
///            ^ pendingSince: when the first of these arrived    or when pendingSince + maxDelay passed
/// ```
///
/// Owned by the thread that writes the output; not `Sendable`.
@safe
public final class OutputSink {
    /// The longest a byte waits in the buffer while the program runs (at an ``endLine()`` or an idle
    /// point that calls ``flushIfDue(now:)``).
    public static let maxDelay: Duration = .milliseconds(100)

    public let descriptor: Int32
    private let capacity: Int
    /// The buffer, `capacity` bytes allocated once; `state.count` of them are waiting.
    private let base: UnsafeMutablePointer<UInt8>

    /// Bytes waiting in the buffer (`base[0 ..< count]`).
    private var count = 0
    /// When the oldest unflushed byte was buffered; `nil` while the buffer is empty.
    private var pendingSince: ContinuousClock.Instant? = nil
    /// `pendingSince != nil`, as a plain flag: the per-line path tests this, not the optional (an
    /// `Instant?` is copied through its value witness: the standard library's type is resilient).
    private var isPending = false
    /// ``endLine()`` reads the clock only every `clockStride` lines (a line costs tens of ns).
    private var linesUntilClock = 0
    private var writeCalls = 0
    private static let clockStride = 16

    // SAFETY (whole type): `base` holds `capacity` bytes from init to deinit; `count <= capacity` is
    // kept by every write (checked before each copy).

    /// How many times the buffer was handed to `write(2)` (one call, or a few for a partial write).
    package var flushCount: Int { writeCalls }

    /// - Parameter capacity: the buffer size; a flush happens when more than half of it is used.
    public init(descriptor: Int32 = 1, capacity: Int = 512 * 1024) {
        precondition(capacity >= 2, "an output buffer needs room for a line terminator")
        self.descriptor = descriptor
        self.capacity = capacity
        unsafe base = .allocate(capacity: capacity)
    }

    deinit {
        unsafe base.deallocate()
    }

    /// Whether the descriptor is a terminal.
    public var isTerminal: Bool { isatty(descriptor) != 0 }

    /// Whether bytes wait in the buffer.
    public var hasPendingBytes: Bool { self.count > 0 }

    /// Appends `bytes` to the buffer (writing it out when full).
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public func write(_ bytes: [UInt8]) throws(OutputError) {
        try write(bytes.span)
    }

    /// Appends `span` to the buffer (writing it straight out when it is larger than the buffer).
    ///
    /// - Complexity: O(`span.count`). - Allocations: none.
    @inline(__always)
    public func write(_ span: Span<UInt8>) throws(OutputError) {
        if self.count + span.count > capacity {
            try flush()
            if span.count > capacity {
                try writeAll(span)
                return
            }
        }
        notePending()
        // SAFETY: `count + span.count <= capacity` (checked above); the span is a separate buffer.
        unsafe span.withUnsafeBufferPointer { p in
            unsafe (base + self.count).update(from: p.baseAddress!, count: p.count)
        }
        self.count += span.count
    }

    /// Appends one or two bytes (a line terminator).
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    public func write(byte first: UInt8, _ second: UInt8? = nil) throws(OutputError) {
        let n = second == nil ? 1 : 2
        if self.count + n > capacity { try flush() }
        notePending()
        // SAFETY: `count + n <= capacity` (checked above; after a flush `count` is 0 and `capacity >= 2`).
        unsafe base[self.count] = first
        if let second { unsafe base[self.count + 1] = second }
        self.count += n
    }

    /// Marks the end of an output line: flushes when the buffer is half full or its oldest byte is
    /// ``maxDelay`` old (the clock is read every few lines).
    ///
    /// - Complexity: O(1) unless it flushes. - Allocations: none.
    @inline(__always)
    public func endLine() throws(OutputError) {
        if self.count > capacity / 2 {
            try flush()
            return
        }
        linesUntilClock -= 1
        guard linesUntilClock <= 0 else { return }
        linesUntilClock = Self.clockStride
        _ = try flushIfDue(now: .now)
    }

    /// Writes the buffer out if its oldest byte is ``maxDelay`` old at `now`; called at idle points.
    ///
    /// - Returns: when the buffer will be due (so a wait can end then), or `nil` when it is empty.
    /// - Complexity: O(1) unless it flushes. - Allocations: none.
    @discardableResult
    public func flushIfDue(now: ContinuousClock.Instant) throws(OutputError) -> ContinuousClock.Instant? {
        guard let due = flushDeadline else { return nil }
        guard due <= now else { return due }
        try flush()
        return nil
    }

    /// When the buffered bytes are due, or `nil` when the buffer is empty.
    public var flushDeadline: ContinuousClock.Instant? { pendingSince.map { $0 + Self.maxDelay } }

    /// Writes out everything buffered.
    public func flush() throws(OutputError) {
        let count = self.count
        guard count > 0 else { return }
        pendingSince = nil
        isPending = false
        self.count = 0
        // SAFETY: `base[0 ..< count]` was written by `write`; the span lives for the call.
        try writeAll(unsafe Span(_unsafeElements: UnsafeBufferPointer(start: base, count: count)))
    }

    @inline(__always)
    private func notePending() {
        if !isPending {
            isPending = true
            pendingSince = .now
            linesUntilClock = Self.clockStride
        }
    }

    private func writeAll(_ bytes: Span<UInt8>) throws(OutputError) {
        writeCalls += 1
        guard let code = writeAllWaiting(descriptor, bytes) else { return }
        if code == EPIPE { throw .closed }
        throw .failed(errno: code, message: Errno.text(code))
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
