import CZlib
public import ChatInput
import ChatPosix
import IRCWire

/// A line's fingerprint, kept with the progress: its length and CRC-32 (without the line end), so that
/// a reader resuming at an offset can tell that the line ending there is still the one loaded.
public struct LineMark: Sendable, Equatable {
    public var length: Int
    public var crc: UInt32

    public init(length: Int, crc: UInt32) {
        self.length = length
        self.crc = crc
    }

    /// The mark of `line`.
    ///
    /// - Complexity: O(`line.count`) (zlib's CRC-32). - Allocations: none.
    public init(of line: Span<UInt8>) {
        length = line.count
        crc = unsafe line.withUnsafeBufferPointer { p in
            UInt32(truncatingIfNeeded: unsafe CZlib.crc32(0, p.baseAddress, UInt32(p.count)))
        }
    }
}

/// Why a reader cannot go on.
public enum CaptureReadError: Error, Sendable, Equatable {
    /// The file no longer holds, at the resume offset, the line that was loaded (it was cut back and
    /// rewritten by a capture that restarted after a crash, or replaced): read it again from its start.
    case changed
    /// Reading or decoding failed (a rewritten file reads as `corrupt` with ``GrowingFile/rewrittenReason``).
    case input(InputError)
}

/// Reads the lines of one capture file (gzip, possibly still growing) from its start, handing out only
/// the lines that end after a resume offset, and checking that the line ending exactly there is the
/// one loaded before (``LineMark``).
///
/// Offsets are in decompressed bytes from the start of the file, line ends included. A partial last
/// line (no line end yet) waits for the rest. Only lines up to the file's last flush point are read
/// (``GrowingFile``): a line written after it is not durable until capture flushes it, and a crash
/// before that flush drops it.
///
/// Memory: ISA-L's state and a 16 KiB compressed buffer (about 120 KiB), plus the framer's 64 KiB.
/// Confined to the loader's thread.
public final class CaptureFileReader {
    public let path: String
    private let file: GrowingFile
    private let gzip: GzipSource
    private var framer: LineFramer
    /// Lines ending at or before this offset were loaded before and are not handed out.
    private let resumeAt: UInt64
    private let resumeMark: LineMark?
    private var verified: Bool
    /// Whether the last read found nothing more (the file's current end).
    public private(set) var isPaused = false
    /// Over-long lines the framer skipped (capture never stores them; counted all the same).
    public var skippedLines: Int { framer.skippedCount }

    /// Opens `path` to hand out the lines after `offset`; `mark` is the fingerprint of the line that
    /// ends at `offset` (`nil` with `offset` 0).
    ///
    /// - Throws: the file's open errors, or ``InputError/decompressorUnavailable(name:reason:)``.
    public init(path: String, resumeAt offset: UInt64, mark: LineMark?) throws(InputError) {
        self.path = path
        file = try GrowingFile(path: path)
        gzip = try GzipSource(wrapping: file, inputCapacity: 16 * 1024, pausesAtInnerEnd: true)
        framer = LineFramer()
        resumeAt = offset
        resumeMark = mark
        verified = offset == 0
    }

    /// Compressed bytes read from the file so far: at most its last flush point (``GrowingFile/durableEnd``).
    public var compressedOffset: UInt64 { file.offset }

    /// The file's size when it was last looked at: at a pause with nothing pending, every line the
    /// file held up to its last flush point at that size has been handed out.
    public var examinedSize: UInt64 { file.examinedSize }

    /// Whether every byte decoded so far was handed out or skipped as loaded: at a pause, the file holds
    /// nothing more.
    public var isDrained: Bool { isPaused && framer.pendingByteCount == 0 && file.isSettled }

    /// Hands `body` each new complete line (bytes without the line end) with the offset just after it,
    /// at most `limit` lines.
    ///
    /// - Returns: the number of lines handed out; fewer than `limit` means the reader is at a pause.
    /// - Throws: ``CaptureReadError``.
    /// - Complexity: O(bytes decoded). - Allocations: none.
    public func read(limit: Int, _ body: (Span<UInt8>, UInt64) -> Void) throws(CaptureReadError) -> Int {
        var handed = 0
        isPaused = false
        while true {
            while handed < limit, let event = framer.nextLine() {
                guard case .line(let line) = event else { continue }  // over-long: counted by the framer
                let end = line.offset + UInt64(line.rawRange.count)
                if end <= resumeAt || !verified {
                    try framer.withBytes(of: line) { bytes throws(CaptureReadError) in
                        try skip(bytes, start: line.offset, end: end)
                    }
                    continue
                }
                framer.withBytes(of: line) { body($0, end) }
                handed += 1
            }
            if handed >= limit { return handed }
            let n: Int
            do {
                n = try unsafe framer.fill { free throws(InputError) in try unsafe gzip.read(into: free) }
            } catch {
                throw .input(error)
            }
            if n == 0 {
                isPaused = true
                // The file holds less than was loaded from it: it was cut back.
                if !verified && framer.streamOffset < resumeAt { throw .changed }
                return handed
            }
        }
    }

    /// A line at or before the resume offset: the one ending exactly there must match its mark.
    private func skip(_ bytes: Span<UInt8>, start: UInt64, end: UInt64) throws(CaptureReadError) {
        if end < resumeAt { return }
        if end == resumeAt && start < resumeAt, resumeMark == nil || LineMark(of: bytes) == resumeMark {
            verified = true
            return
        }
        throw .changed
    }
}

@available(*, unavailable)
extension CaptureFileReader: Sendable {}
