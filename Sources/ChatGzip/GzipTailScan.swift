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
    /// decodable as a whole).
    public var droppedByteCount: UInt64
    /// Decompressed bytes the finished member holds (its `ISIZE`, modulo 2³²).
    public var memberSize: UInt32
}

/// Finds out how an existing gzip file ends, and how to finish it when a writer died before `close()`.
///
/// Decodes the file once with `inflate(Z_BLOCK)`, which stops at every deflate block boundary. The
/// last byte-aligned boundary of the final member is where it can be finished without rewriting a
/// byte before it: an empty final block (`03 00`) and the trailer (CRC-32 and size, which zlib keeps
/// running for the member) complete the member there. Every flush of ``GzipWriter`` (a
/// `Z_SYNC_FLUSH`, which ends on an empty stored block) leaves such a boundary, so at most the bytes
/// after the last flush are dropped.
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
        var inMember = false
        var needsReset = false
        var memberStart: UInt64 = 0
        var memberSize: UInt32 = 0
        var best: GzipTailScan? = nil
        while true {
            if unsafe stream.pointee.avail_in == 0 {
                guard readOffset < size else { break }
                let n = try unsafe read(descriptor, into: input, at: readOffset, path: path)
                if n == 0 { break }  // the file shrank under us: take what we saw
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
                // Fallback while no boundary is known: drop the member whole (its header is incomplete).
                best = GzipTailScan(truncateTo: memberStart, suffix: [], memberSize: 0)
            }
            // SAFETY: `scratch` is writable for its count; zlib writes at most `avail_out` bytes there.
            unsafe stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            unsafe stream.pointee.avail_out = UInt32(min(scratch.count, Int(UInt32.max)))
            let before = unsafe stream.pointee.avail_out
            // SAFETY: `next_in`/`avail_in` and `next_out`/`avail_out` describe live buffers (set above).
            let result = unsafe inflate(stream, Z_BLOCK)
            memberSize &+= unsafe before - stream.pointee.avail_out
            let consumed = readOffset - UInt64(unsafe stream.pointee.avail_in)
            switch result {
            case Z_STREAM_END:
                inMember = false
                needsReset = true
                best = nil
            case Z_OK, Z_BUF_ERROR:
                let dataType = unsafe stream.pointee.data_type
                guard dataType & 128 != 0 else { continue }  // not at a block boundary
                // Bits taken from the input but not used yet; whole unused bytes are given back.
                let bits = UInt64(dataType & 63)
                let crc = UInt32(truncatingIfNeeded: unsafe stream.pointee.adler)
                if dataType & 64 == 0 {
                    // Between blocks (or right after the header): finishable only at a byte boundary.
                    guard bits % 8 == 0 else { continue }
                    best = GzipTailScan(
                        truncateTo: consumed - bits / 8, suffix: [0x03, 0x00] + trailer(crc: crc, size: memberSize),
                        memberSize: memberSize)
                } else {
                    // After the final block: the rest of its last byte is padding; the trailer follows.
                    best = GzipTailScan(
                        truncateTo: consumed - bits / 8, suffix: trailer(crc: crc, size: memberSize),
                        memberSize: memberSize)
                }
            default:
                // SAFETY: `msg` is NULL or a static NUL-terminated string zlib set for this stream.
                let reason = unsafe stream.pointee.msg.map { unsafe String(cString: $0) } ?? "zlib error \(result)"
                throw GzipWriterError.damagedFile(path: path, compressedOffset: position, reason: reason)
            }
        }
        return inMember ? best : nil
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
