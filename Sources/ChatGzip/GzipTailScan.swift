import CZlib

#if canImport(Glibc)
    import Glibc
#endif

/// What a ``GzipWriter`` did to the end of an existing file before appending its own member.
public struct GzipTailRepair: Sendable, Equatable {
    /// Where the file now continues: the earlier bytes are untouched, the bytes from here on were
    /// replaced by the end of the unfinished member.
    public var offset: UInt64
    /// Compressed bytes dropped from the end (written after the previous writer's last flush, so never
    /// promised to a reader).
    public var droppedByteCount: UInt64
    /// Decompressed bytes the finished member holds (its `ISIZE`, modulo 2³²).
    public var memberSize: UInt32
    /// Whole lines (ending in LF) that the dropped bytes decode to: written, never flushed, now gone.
    public var droppedLineCount: Int = 0
    /// Whether the dropped bytes end in a line cut short (decodable bytes after the last LF).
    public var droppedPartialLine = false
    /// Decompressed bytes the dropped bytes decode to (the lines above, and the cut one).
    public var droppedTextByteCount: UInt64 = 0

    /// What was dropped, for a message: "3 lines and a cut-off line (1,234 bytes of text)".
    public var droppedDescription: String {
        let lines = "\(droppedLineCount) never-flushed line\(droppedLineCount == 1 ? "" : "s")"
        return lines + (droppedPartialLine ? " and a cut-off line" : "") + " (\(droppedTextByteCount) bytes of text, "
            + "\(droppedByteCount) compressed bytes after byte \(offset))"
    }
}

/// Finds out how an existing gzip file ends, and how to finish it when a writer died before `close()`.
///
/// Decodes the file once with `inflate(Z_BLOCK)`, which stops at every deflate block boundary. The
/// member is finished only at a **flush point** a writer made: a boundary right after an empty stored
/// block (`00 00 FF FF`, what ``GzipWriter/flush(durable:)``'s sync flush ends with) where the text so
/// far ends a line (or is empty), or after the final block of a member whose trailer was cut. Other
/// byte-aligned boundaries are not flush points: the compressor ends blocks wherever its buffers
/// fill, mid-line, and finishing there would keep a cut line that the next run's first line glues
/// onto. An empty final block (`03 00`) and the trailer (CRC-32 and size, which zlib keeps running
/// for the member) complete the member at the flush point without rewriting a byte before it. A
/// member with no flush point is dropped whole. What is dropped is decoded and counted (lines, a
/// cut-off line, bytes), so the writer can say exactly what the crash cost.
///
/// This scan stays on zlib while reading and writing use ISA-L: `isal_inflate` has no counterpart of
/// `Z_BLOCK` (stop at each block boundary and report the bit position in `data_type`), so it cannot
/// tell where a torn member can be finished. It runs once per reopened file, never per line.
struct GzipTailScan {
    /// Where the file is cut before `suffix` is appended: the last usable boundary of the final member.
    var truncateTo: UInt64
    /// Bytes to append at `truncateTo`: a final block and/or the trailer (possibly none, when a member
    /// is dropped whole because its header was cut short).
    var suffix: [UInt8]
    /// The finished member's decompressed size (modulo 2³²), as its trailer records it.
    var memberSize: UInt32
    /// Decompressed bytes of the whole file (every member) up to `truncateTo`: the text it keeps.
    var keptTextBytes: UInt64 = 0
    /// What the bytes after `truncateTo` decode to: whole lines, whether a cut line follows them, bytes.
    var droppedLines = 0
    var droppedPartialLine = false
    var droppedTextBytes: UInt64 = 0

    /// Scans the regular file open at `descriptor` (`size` bytes), using `scratch` for the discarded
    /// decompressed bytes.
    ///
    /// - Returns: `nil` for an empty file or one that ends at a member boundary.
    /// - Throws: ``GzipWriterError/damagedFile(path:compressedOffset:reason:)`` for anything zlib rejects
    ///   (including a file that is not gzip at all), ``GzipWriterError/cannotOpen(path:errno:)`` for a
    ///   read error.
    /// - Complexity: O(`size`): the file is decoded once. - Allocations: a 64 KiB read buffer and zlib's state.
    static func scan(
        descriptor: Int32, size: UInt64, path: String, scratch: UnsafeMutableRawBufferPointer
    ) throws(GzipWriterError) -> GzipTailScan? {
        guard size > 0 else { return nil }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { unsafe input.deallocate() }
        // zlib checks that its stream does not move, so it lives at one allocated address.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        unsafe stream.initialize(to: z_stream())
        defer {
            unsafe stream.deinitialize(count: 1)
            unsafe stream.deallocate()
        }
        // SAFETY: `stream` is zero-initialised, as inflateInit2 requires.
        let status = unsafe inflateInit2_(stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw GzipWriterError.compressorUnavailable(path: path, reason: "zlib error \(status)")
        }
        // SAFETY: set up by inflateInit2 above; ended once, before the memory is freed (defers run last-first).
        defer { _ = unsafe inflateEnd(stream) }

        var readOffset: UInt64 = 0
        var bufferStart: UInt64 = 0
        var inMember = false
        var needsReset = false
        var memberStart: UInt64 = 0
        var memberSize: UInt32 = 0
        var best: GzipTailScan? = nil
        // Decompressed bytes of the file so far, every member.
        var textBytes: UInt64 = 0
        // The text decoded since `best`'s point: lines, bytes, and its last byte (LF: a line just ended).
        var linesSince = 0
        var bytesSince: UInt64 = 0
        var lastByte: UInt8 = 0x0A
        while true {
            if unsafe stream.pointee.avail_in == 0 {
                guard readOffset < size else { break }
                let n = try unsafe read(descriptor, into: input, at: readOffset, path: path)
                if n == 0 { break }  // the file shrank under us: take what we saw
                bufferStart = readOffset
                readOffset += UInt64(n)
                // SAFETY: `pread` filled `n <= input.count` bytes at the start of `input`.
                unsafe stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                unsafe stream.pointee.avail_in = UInt32(n)
            }
            let position = readOffset - UInt64(unsafe stream.pointee.avail_in)
            if !inMember {
                if needsReset {
                    // SAFETY: `stream` is a live inflate stream.
                    unsafe inflateReset(stream)
                    needsReset = false
                }
                inMember = true
                memberStart = position
                memberSize = 0
                // Fallback while no flush point is known: drop the member whole.
                best = GzipTailScan(truncateTo: memberStart, suffix: [], memberSize: 0, keptTextBytes: textBytes)
                (linesSince, bytesSince, lastByte) = (0, 0, 0x0A)
            }
            // SAFETY: `scratch` is writable for its count; zlib writes at most `avail_out` bytes there.
            unsafe stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            unsafe stream.pointee.avail_out = UInt32(min(scratch.count, Int(UInt32.max)))
            let before = unsafe stream.pointee.avail_out
            // SAFETY: `next_in`/`avail_in` and `next_out`/`avail_out` describe live buffers (set above).
            let result = unsafe inflate(stream, Z_BLOCK)
            let produced = Int(unsafe before - stream.pointee.avail_out)
            memberSize &+= UInt32(truncatingIfNeeded: produced)
            textBytes += UInt64(produced)
            if produced > 0 {
                // SAFETY: inflate wrote `produced <= scratch.count` bytes at the start of `scratch`.
                let text = unsafe UnsafeRawBufferPointer(rebasing: scratch[0..<produced])
                linesSince += unsafe Self.lineFeeds(in: text)
                bytesSince += UInt64(produced)
                lastByte = unsafe text[produced - 1]
            }
            let consumed = readOffset - UInt64(unsafe stream.pointee.avail_in)
            switch result {
            case Z_STREAM_END:
                inMember = false
                needsReset = true
                best = nil
            case Z_OK, Z_BUF_ERROR:
                let dataType = unsafe stream.pointee.data_type
                guard dataType & 128 != 0 else { continue }  // not at a block boundary
                // A flush point ends a line (or the member has no text yet): never keep a cut line.
                guard lastByte == 0x0A else { continue }
                // Bits taken from the input but not used yet; whole unused bytes are given back.
                let bits = UInt64(dataType & 63)
                let crc = UInt32(truncatingIfNeeded: unsafe stream.pointee.adler)
                let point: GzipTailScan
                if dataType & 64 == 0 {
                    // Between blocks: a flush point only right after an empty stored block, byte-aligned.
                    guard bits % 8 == 0, consumed - bits / 8 >= memberStart + 4 else { continue }
                    let end = consumed - bits / 8
                    let marker = try unsafe Self.bytes(
                        before: end, buffer: input, bufferStart: bufferStart, bufferEnd: readOffset,
                        descriptor: descriptor, path: path)
                    guard marker == GzipFlushPoint.syncFlushMarker else { continue }
                    point = GzipTailScan(
                        truncateTo: end, suffix: [0x03, 0x00] + trailer(crc: crc, size: memberSize),
                        memberSize: memberSize, keptTextBytes: textBytes)
                } else {
                    // After the final block: the rest of its last byte is padding; the trailer follows.
                    point = GzipTailScan(
                        truncateTo: consumed - bits / 8, suffix: trailer(crc: crc, size: memberSize),
                        memberSize: memberSize, keptTextBytes: textBytes)
                }
                best = point
                (linesSince, bytesSince) = (0, 0)
            default:
                // SAFETY: `msg` is NULL or a static NUL-terminated string zlib set for this stream.
                let reason = unsafe stream.pointee.msg.map { unsafe String(cString: $0) } ?? "zlib error \(result)"
                throw GzipWriterError.damagedFile(path: path, compressedOffset: position, reason: reason)
            }
        }
        guard inMember, var result = best else { return nil }
        result.droppedLines = linesSince
        result.droppedPartialLine = bytesSince > 0 && lastByte != 0x0A
        result.droppedTextBytes = bytesSince
        return result
    }

    /// The four compressed bytes before `end` (little-endian), from the read buffer when it holds
    /// them, else read from the file.
    private static func bytes(
        before end: UInt64, buffer: UnsafeMutableRawBufferPointer, bufferStart: UInt64, bufferEnd: UInt64,
        descriptor: Int32, path: String
    ) throws(GzipWriterError) -> UInt32 {
        var word: UInt32 = 0
        if end - 4 >= bufferStart && end <= bufferEnd {
            // SAFETY: `bufferStart <= end - 4` and `end <= bufferEnd`: the four bytes are inside the
            // `bufferEnd - bufferStart` bytes `pread` filled at the start of `buffer`.
            unsafe word = buffer.loadUnaligned(fromByteOffset: Int(end - 4 - bufferStart), as: UInt32.self)
        } else {
            var four: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            try unsafe withUnsafeMutableBytes(of: &four) { raw throws(GzipWriterError) in
                guard try unsafe read(descriptor, into: raw, at: end - 4, path: path) == 4 else { return }
                unsafe word = raw.loadUnaligned(as: UInt32.self)
            }
        }
        return UInt32(littleEndian: word)
    }

    /// LF bytes in `text`.
    private static func lineFeeds(in text: UnsafeRawBufferPointer) -> Int {
        var count = 0
        var from = 0
        while from < text.count {
            // SAFETY: `from < text.count`: the search covers `text.count - from` bytes inside `text`.
            guard let hit = unsafe memchr(text.baseAddress! + from, 0x0A, text.count - from) else { break }
            count += 1
            // SAFETY: `hit` points inside `text` (memchr found it there).
            from = unsafe UnsafeRawPointer(hit) - text.baseAddress! + 1
        }
        return count
    }

    /// The gzip trailer: CRC-32 and size, both little-endian.
    private static func trailer(crc: UInt32, size: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
            + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    }

    /// `pread(2)` with `EINTR` retried.
    private static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64, path: String
    ) throws(GzipWriterError) -> Int {
        while true {
            // SAFETY: `buffer` is writable for `buffer.count` bytes.
            let n = unsafe pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw GzipWriterError.cannotOpen(path: path, errno: errno) }
        }
    }
}
