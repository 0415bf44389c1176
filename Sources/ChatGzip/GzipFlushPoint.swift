#if canImport(Glibc)
    import Glibc
#endif

/// How much of a gzip file that a capture may still be writing (or may have died writing) is durable:
/// the part no crash repair will ever cut (``GzipTailScan``'s rule, for readers that follow files).
public enum GzipFlushPoint: Sendable {
    /// The last four bytes of every flush a ``GzipWriter`` makes (and of the text of every member it
    /// closes): the length and its complement of an empty stored block, `00 00 FF FF`, read as a
    /// little-endian word.
    public static let syncFlushMarker: UInt32 = 0xFFFF_0000

    /// Where the last sync-flush marker in `bytes` ends (the offset just after it), or `nil` when
    /// `bytes` holds none. A cheap way to find a growing file's last flush point from its end; a
    /// random `00 00 FF FF` inside compressed data would be taken for one (about one in 2³² positions).
    ///
    /// - Complexity: O(bytes after the last marker). - Allocations: none.
    public static func lastMarkerEnd(in bytes: UnsafeRawBufferPointer) -> Int? {
        var i = bytes.count - 4
        while i >= 0 {
            // SAFETY: `0 <= i` and `i + 4 <= bytes.count`.
            if unsafe UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)) == syncFlushMarker {
                return i + 4
            }
            i -= 1
        }
        return nil
    }

    /// The length of the file's durable prefix: all `size` bytes when it ends in a finished member (or
    /// is empty), else the end of its last flush point (the start of its last member when it has none).
    ///
    /// - Throws: ``GzipWriterError/damagedFile(path:compressedOffset:reason:)`` for bytes zlib rejects,
    ///   ``GzipWriterError/cannotOpen(path:errno:)`` for a read error.
    /// - Complexity: O(`size`): the file is decoded once. - Allocations: a 64 KiB read buffer, a 256 KiB
    ///   scratch and zlib's state, for the call.
    public static func durableLength(descriptor: Int32, size: UInt64, path: String) throws(GzipWriterError) -> UInt64 {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { unsafe scratch.deallocate() }
        guard let end = try unsafe GzipTailScan.scan(descriptor: descriptor, size: size, path: path, scratch: scratch)
        else { return size }
        return end.truncateTo
    }

    /// How much of the file's text (decompressed, every member) is durable: `nil` when all of it is (the
    /// file ends in a finished member, or is empty), else the text up to its last flush point, which
    /// ends a line. A reader that must not take a line the repair will cut skips the lines starting at
    /// or past it.
    ///
    /// - Throws: as ``durableLength(descriptor:size:path:)``.
    /// - Complexity: O(`size`): the file is decoded once. - Allocations: as ``durableLength(descriptor:size:path:)``.
    public static func durableTextLength(descriptor: Int32, size: UInt64, path: String) throws(GzipWriterError)
        -> UInt64?
    {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { unsafe scratch.deallocate() }
        return try unsafe GzipTailScan.scan(descriptor: descriptor, size: size, path: path, scratch: scratch)?
            .keptTextBytes
    }
}
