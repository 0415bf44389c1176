#if canImport(Glibc)
    import Glibc
#endif

/// How much of a gzip file that a capture may still be writing (or may have died writing) is durable:
/// the part no crash repair will ever cut (``GzipTailScan``'s rule, for readers that follow files).
public enum GzipFlushPoint {
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
}
