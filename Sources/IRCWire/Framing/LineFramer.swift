/// Splits a byte stream delivered in arbitrary chunks into lines, without rescanning and without copies.
///
/// The framer owns the receive buffer (allocated once). A reader writes into its free tail with
/// ``fill(_:)`` — `read(2)` straight into the buffer — and then drains complete lines with
/// ``nextLine()``; each line is a range into the buffer that ``withBytes(of:_:)`` lends as a `Span`.
/// Lines end with `\r\n` or a bare `\n`; a CR alone does not end a line (IRC and Twitch end lines with
/// CRLF; a reader of files tells the user about CRs inside lines, see ``carriageReturns(in:)``). A
/// line longer than ``maxLineLength`` is reported once as ``FramerEvent/skipped(_:)`` with its
/// position and the CRs it held, and dropped whole; framing resumes after its newline.
///
/// ```
///  0            lineStart          scanFrom           end              capacity
///  [ consumed … | current line ……… (no \n here) | unscanned … | free tail …… ]
/// ```
/// Invariants: `0 <= lineStart <= scanFrom <= end <= capacity`; `[lineStart, scanFrom)` holds no
/// `\n`; outside discard mode `scanFrom - lineStart <= maxLineLength + 1` (room for a `\r`);
/// `capacity >= maxLineLength + 2 + minimumFree`, so after compaction there is always free space.
///
/// Confined to one thread (the ingest loop); it is not `Sendable`.
@safe
public struct LineFramer: ~Copyable {
    /// The default cap on a line's length without its terminator: 16 KiB.
    public static let defaultMaxLineLength = 16 * 1024
    /// The least free space ``fill(_:)`` offers.
    static let minimumFree = 4096

    public let maxLineLength: Int
    private let storage: UnsafeMutableRawBufferPointer
    private let capacity: Int
    private var lineStart = 0
    private var scanFrom = 0
    private var end = 0
    /// Stream offset of `storage[0]`.
    private var baseOffset: UInt64 = 0
    /// Number of the line that starts at `lineStart`.
    private var lineNumber = 1
    /// Bytes of an over-long line already dropped; `nil` outside discard mode.
    private var discarded: Int? = nil
    // The scan's CR state, small and declared here to sit in the padding after `discarded`: a
    // framer past 128 bytes is copied by a `memcpy` call where `feed` lends it to its body.
    /// Whether the byte before `scanFrom` is a CR the scan met at the end of the bytes taken in: a
    /// CR alone, or the first half of a CRLF, as the next byte will tell.
    private var carriageReturnAtEnd = false
    /// The CRs that no LF follows in the last line handed out (``carriageReturns(in:)``; a line
    /// holds at most 65,535 bytes).
    private var lastLineCarriageReturns: UInt16 = 0
    /// CRs that no LF follows in `[lineStart, scanFrom)`, counted by the scan that finds the line's
    /// end (outside discard mode, at most `maxLineLength + 1`; an over-long line counts its CRs apart).
    private var lineCarriageReturns: UInt32 = 0
    private var discardOffset: UInt64 = 0
    /// CRs among the bytes of the over-long line dropped so far.
    private var discardedCarriageReturns = 0

    /// Lines handed out so far.
    public private(set) var lineCount = 0
    /// Over-long lines skipped so far.
    public private(set) var skippedCount = 0

    /// - Parameters:
    ///   - maxLineLength: longest accepted line in bytes, without `\r\n`. At most 65,535 so that
    ///     16-bit offsets always suffice downstream.
    ///   - bufferCapacity: receive buffer size; raised to fit a maximal line plus a read.
    /// - Allocations: one, the buffer.
    public init(maxLineLength: Int = LineFramer.defaultMaxLineLength, bufferCapacity: Int = 64 * 1024) {
        precondition(maxLineLength > 0 && maxLineLength <= Int(UInt16.max), "maxLineLength must be in 1...65535")
        self.maxLineLength = maxLineLength
        capacity = max(bufferCapacity, maxLineLength + 2 + Self.minimumFree)
        unsafe storage = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        unsafe storage.deallocate()
    }

    /// Forgets all pending bytes and counters, as for a new stream (e.g. after a reconnect).
    ///
    /// - Returns: how many pending bytes (a partial line) were dropped, so that the caller can report them.
    /// - Complexity: O(1). - Allocations: none.
    @discardableResult
    public mutating func reset() -> Int {
        let dropped = end - lineStart + (discarded ?? 0)
        lineStart = 0
        scanFrom = 0
        end = 0
        baseOffset = 0
        lineNumber = 1
        discarded = nil
        discardedCarriageReturns = 0
        lineCarriageReturns = 0
        carriageReturnAtEnd = false
        lastLineCarriageReturns = 0
        lineCount = 0
        skippedCount = 0
        return dropped
    }

    /// Bytes received but not yet handed out as lines.
    public var pendingByteCount: Int { end - lineStart }

    /// Total bytes taken in so far.
    public var streamOffset: UInt64 { baseOffset + UInt64(end) }

    /// Lets `body` write into the buffer's free tail and takes in the bytes it reports written.
    ///
    /// `body` receives at least 4,096 bytes of free space and returns how many it wrote (0 at end of
    /// stream). Ranges from earlier ``nextLine()`` calls are invalid afterwards.
    ///
    /// - Precondition: every complete line has been drained (``nextLine()`` returned `nil`).
    /// - Complexity: O(length of the partial line) for the occasional compaction, plus `body`.
    /// - Allocations: none.
    @discardableResult
    public mutating func fill<E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) -> Int {
        precondition(scanFrom == end, "drain nextLine() before filling the framer again")
        compactIfNeeded()
        // SAFETY: `end <= storage.count` (invariant), so the slice is within the allocation.
        let free = unsafe UnsafeMutableRawBufferPointer(rebasing: storage[end...])
        let written = try unsafe body(free)
        precondition(written >= 0 && written <= free.count, "fill body reported more bytes than it had room for")
        end += written
        return written
    }

    /// Copies `bytes` in, draining lines into `body` whenever the buffer fills up.
    ///
    /// Convenient for data already in memory (tests, replay of a mapped file). `body` gets each event
    /// and the framer to borrow the line from.
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public mutating func feed<E: Error>(
        _ bytes: Span<UInt8>, _ body: (FramerEvent, borrowing LineFramer) throws(E) -> Void
    ) throws(E) {
        var taken = 0
        while taken < bytes.count {
            taken += unsafe fill { free in
                let n = min(free.count, bytes.count - taken)
                // SAFETY: `taken + n <= bytes.count` and `n <= free.count`; the regions do not overlap
                // (the framer's buffer is private to it).
                unsafe bytes.withUnsafeBytes { src in
                    unsafe free.baseAddress!.copyMemory(from: src.baseAddress! + taken, byteCount: n)
                }
                return n
            }
            while let event = nextLine() { try body(event, self) }
        }
    }

    /// The next complete line, or a skipped over-long one; `nil` when more bytes are needed.
    ///
    /// One pass over the bytes finds the line's end and counts the CRs inside it (``carriageReturns(in:)``).
    ///
    /// - Complexity: amortised O(bytes newly scanned); every byte is scanned once.
    /// - Allocations: none.
    public mutating func nextLine() -> FramerEvent? {
        let base = unsafe storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // SAFETY: `[0, end)` is initialised (written by `fill`) and stays allocated while `self` is
        // borrowed; the span does not outlive this call.
        let span = unsafe Span(_unsafeElements: UnsafeBufferPointer(start: base, count: end))
        while true {
            if carriageReturnAtEnd && scanFrom < end {
                // The CR the last bytes ended with: a CR alone unless an LF follows it.
                carriageReturnAtEnd = false
                if span[scanFrom] != UInt8(ascii: "\n") { lineCarriageReturns &+= 1 }
            }
            guard let newline = nextNewline(in: span) else {
                scanFrom = end
                // Drop the bytes of an over-long line, but keep a final `\r`: it may be half of the
                // `\r\n` that ends the line, and must not count towards the line's length.
                let keep = end > lineStart && span[end - 1] == UInt8(ascii: "\r") ? 1 : 0
                if discarded != nil {
                    discarded! += end - keep - lineStart
                    discardedCarriageReturns += Self.carriageReturns(in: span, from: lineStart, to: end - keep)
                    lineStart = end - keep
                } else if end - lineStart > maxLineLength + 1 {
                    discarded = end - keep - lineStart
                    discardedCarriageReturns = Self.carriageReturns(in: span, from: lineStart, to: end - keep)
                    discardOffset = baseOffset + UInt64(lineStart)
                    lineStart = end - keep
                }
                checkInvariants()
                return nil
            }
            var lineEnd = newline
            var terminator = LineTerminator.lf
            if lineEnd > lineStart && span[lineEnd - 1] == UInt8(ascii: "\r") {
                lineEnd -= 1
                terminator = .crlf
            }
            let start = lineStart
            let number = lineNumber
            let carriageReturns = lineCarriageReturns
            lineCarriageReturns = 0
            lineStart = newline + 1
            scanFrom = lineStart
            lineNumber += 1
            if let dropped = discarded {
                discarded = nil
                skippedCount += 1
                return .skipped(
                    FramingError(
                        lineNumber: number, offset: discardOffset, length: dropped + (lineEnd - start),
                        limit: maxLineLength,
                        carriageReturns: discardedCarriageReturns
                            + Self.carriageReturns(in: span, from: start, to: lineEnd)
                    ))
            }
            if lineEnd - start > maxLineLength {
                skippedCount += 1
                return .skipped(
                    FramingError(
                        lineNumber: number, offset: baseOffset + UInt64(start), length: lineEnd - start,
                        limit: maxLineLength, carriageReturns: Self.carriageReturns(in: span, from: start, to: lineEnd))
                )
            }
            lineCount += 1
            lastLineCarriageReturns = UInt16(truncatingIfNeeded: carriageReturns)  // the line is within the limit
            return .line(
                FramedLine(
                    range: start..<lineEnd, number: number, offset: baseOffset + UInt64(start), terminator: terminator))
        }
    }

    /// The next `\n` from `scanFrom` (`nil` when the bytes end first, `scanFrom` then at `end`), in
    /// the one pass that counts the CRs no LF follows on the way (``lineCarriageReturns``; a CR at
    /// the very end waits for the next byte: ``carriageReturnAtEnd``). Leaves `scanFrom` at the
    /// newline or at `end`.
    ///
    /// - Complexity: O(bytes scanned), 32 bytes per step (``ByteScan/firstControlByte(in:from:to:)``).
    @inline(__always)
    private mutating func nextNewline(in span: Span<UInt8>) -> Int? {
        // SAFETY: `[scanFrom, end)` lies in the initialised bytes of the buffer (`end <= capacity`).
        let base = unsafe UnsafeRawPointer(storage.baseAddress!)
        while let at = unsafe ByteScan.firstControlByte(at: base, from: scanFrom, to: end) {
            let byte = span[at]
            if byte == UInt8(ascii: "\n") {
                scanFrom = at
                return at
            }
            scanFrom = at + 1
            guard byte == UInt8(ascii: "\r") else { continue }  // a NUL, tab, CTCP's 0x01: not a line end
            guard at + 1 < end else {
                carriageReturnAtEnd = true
                break
            }
            if span[at + 1] == UInt8(ascii: "\n") {  // a CRLF: the line's end
                scanFrom = at + 1
                return at + 1
            }
            lineCarriageReturns &+= 1  // wraps only in discard mode, where it is not read
        }
        scanFrom = end
        return nil
    }

    /// At end of stream: the last line if it had no terminator (or was too long), then `nil`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public mutating func finish() -> FramerEvent? {
        precondition(scanFrom == end, "drain nextLine() before finishing")
        defer {
            lineStart = end
            scanFrom = end
            discarded = nil
            lineCarriageReturns = 0
            carriageReturnAtEnd = false
        }
        let base = unsafe storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // SAFETY: `[0, end)` is initialised; the span does not outlive this call.
        let span = unsafe Span(_unsafeElements: UnsafeBufferPointer(start: base, count: end))
        if let dropped = discarded {
            skippedCount += 1
            lineNumber += 1
            return .skipped(
                FramingError(
                    lineNumber: lineNumber - 1, offset: discardOffset, length: dropped + (end - lineStart),
                    limit: maxLineLength,
                    carriageReturns: discardedCarriageReturns + Self.carriageReturns(in: span, from: lineStart, to: end)
                ))
        }
        guard end > lineStart else { return nil }
        let number = lineNumber
        lineNumber += 1
        // A CR that ended the stream ends no line: it is inside this one.
        let carriageReturns = lineCarriageReturns &+ (carriageReturnAtEnd ? 1 : 0)
        if end - lineStart > maxLineLength {
            skippedCount += 1
            return .skipped(
                FramingError(
                    lineNumber: number, offset: baseOffset + UInt64(lineStart), length: end - lineStart,
                    limit: maxLineLength, carriageReturns: Self.carriageReturns(in: span, from: lineStart, to: end)))
        }
        lineCount += 1
        lastLineCarriageReturns = UInt16(truncatingIfNeeded: carriageReturns)  // the line is within the limit
        return .line(
            FramedLine(
                range: lineStart..<end, number: number, offset: baseOffset + UInt64(lineStart), terminator: .none))
    }

    /// How many CRs `line` (without its terminator) holds: a CR that no LF follows does not end a
    /// line here, so a line that holds CRs is, most likely, several lines of an input whose lines
    /// end in CR alone (classic Mac OS text, some legacy IRC logs).
    ///
    /// For the last line handed out, the count the scan that found its end made (the line is not
    /// read again); for an earlier one, a scan of its bytes.
    ///
    /// - Precondition: `line` came from this framer and no ``fill(_:)`` happened since.
    /// - Complexity: O(1) for the last line handed out, else O(line length). - Allocations: none.
    public func carriageReturns(in line: FramedLine) -> Int {
        // The last event handed out, a line: `lineNumber` moved past it, and past nothing else since.
        if line.number == lineNumber - 1 { return Int(lastLineCarriageReturns) }
        return withBytes(of: line) { Self.carriageReturns(in: $0, from: 0, to: $0.count) }
    }

    /// The CRs in `span[from..<end]`.
    ///
    /// - Complexity: O(`end - from`), eight bytes per step. - Allocations: none.
    static func carriageReturns(in span: Span<UInt8>, from: Int, to end: Int) -> Int {
        var count = 0
        var i = from
        while let cr = ByteScan.firstIndex(of: UInt8(ascii: "\r"), in: span, from: i, to: end) {
            count += 1
            i = cr + 1
        }
        return count
    }

    /// Lends the bytes of `line` (without terminator) to `body`.
    ///
    /// - Precondition: `line` came from this framer and no ``fill(_:)`` happened since.
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    public func withBytes<R: ~Copyable, E: Error>(
        of line: FramedLine, _ body: (Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        try withBytes(in: line.range, body)
    }

    /// Lends `range` of the buffer to `body`, e.g. a line's ``FramedLine/rawRange``.
    ///
    /// - Precondition: `range` lies within the bytes taken in since the last compaction.
    /// - Complexity: O(1). - Allocations: none.
    public func withBytes<R: ~Copyable, E: Error>(
        in range: Range<Int>, _ body: (Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= end, "range outside the framer's buffer")
        // SAFETY: `range.upperBound <= end <= storage.count`; the bytes were initialised by `fill`, and
        // the span lives only for the duration of `body`, while `self` is borrowed.
        let base = unsafe storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let bytes = unsafe UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
        return try body(unsafe Span(_unsafeElements: bytes))
    }

    /// Moves the partial line to the front when the free tail runs short.
    private mutating func compactIfNeeded() {
        guard capacity - end < capacity / 4 || capacity - end < Self.minimumFree else { return }
        let keep = end - lineStart
        if lineStart > 0 {
            // SAFETY: source `[lineStart, end)` and destination `[0, keep)` lie in the allocation;
            // `copyMemory` (memmove) handles the overlap.
            unsafe storage.baseAddress!.copyMemory(from: storage.baseAddress! + lineStart, byteCount: keep)
        }
        baseOffset += UInt64(lineStart)
        scanFrom -= lineStart
        end = keep
        lineStart = 0
        checkInvariants()
    }

    private func checkInvariants() {
        assert(0 <= lineStart && lineStart <= scanFrom && scanFrom <= end && end <= capacity)
        assert(discarded != nil || scanFrom - lineStart <= maxLineLength + 1)
        assert(capacity >= maxLineLength + 2 + Self.minimumFree)
    }
}

@available(*, unavailable)
extension LineFramer: Sendable {}
