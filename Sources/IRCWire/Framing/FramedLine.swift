/// One complete line found by ``LineFramer``: where it sits in the framer's buffer and in the stream.
///
/// A value of offsets only; its `range` is meaningful with the framer that produced it and only until
/// that framer's next ``LineFramer/fill(_:)``.
public struct FramedLine: Sendable, Equatable {
    /// The line's bytes in the framer's buffer, without the line terminator.
    public var range: Range<Int>
    /// 1-based number of the line in the stream (over-long lines count too).
    public var number: Int
    /// Byte offset of the line's first byte from the start of the stream.
    public var offset: UInt64
    /// How the line ended: `\r\n`, a bare `\n`, or nothing (the stream ended first).
    public var terminator: LineTerminator

    @inlinable
    public init(range: Range<Int>, number: Int, offset: UInt64, terminator: LineTerminator) {
        self.range = range
        self.number = number
        self.offset = offset
        self.terminator = terminator
    }

    /// The line including its terminator, as it was read.
    @inlinable
    public var rawRange: Range<Int> { range.lowerBound..<(range.upperBound + terminator.byteCount) }
}

/// The bytes that ended a line.
public enum LineTerminator: UInt8, Sendable {
    case crlf, lf, none

    @inlinable
    public var byteCount: Int {
        switch self {
        case .crlf: 2
        case .lf: 1
        case .none: 0
        }
    }
}

/// What ``LineFramer/nextLine()`` hands out: a line, or a line that was too long and was skipped.
public enum FramerEvent: Sendable, Equatable {
    case line(FramedLine)
    case skipped(FramingError)
}

/// A line the framer refused. The framer skipped it whole and resynchronised at the next newline.
public struct FramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based number of the offending line in the stream.
    public var lineNumber: Int
    /// Byte offset of the offending line's first byte from the start of the stream.
    public var offset: UInt64
    /// The line's length in bytes without terminator (as far as the stream went).
    public var length: Int
    /// The limit it broke.
    public var limit: Int
    /// CRs in the line that no LF follows (the CR of a closing CRLF does not count). Many of them
    /// mean an input whose lines end in CR alone: those run together into one over-long line.
    public var carriageReturns: Int

    public init(lineNumber: Int, offset: UInt64, length: Int, limit: Int, carriageReturns: Int = 0) {
        self.lineNumber = lineNumber
        self.offset = offset
        self.length = length
        self.limit = limit
        self.carriageReturns = carriageReturns
    }

    public var description: String {
        "line \(lineNumber) (byte \(offset)): \(length) bytes exceed the \(limit)-byte line limit; skipped"
    }
}
