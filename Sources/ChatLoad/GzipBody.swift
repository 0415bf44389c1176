import CZlib

/// Compresses a batch into one gzip member for `Content-Encoding: gzip` (zlib, level 1: rows of chat
/// compress about 5:1 at level 1, and the loader's thread has better things to do than level 6).
///
/// Owns a zlib stream, reset for every body (its ~256 KiB of state is allocated once).
@safe
final class GzipBody {
    private let stream: UnsafeMutablePointer<z_stream>

    /// - Throws: ``LoadError/http(_:)`` when zlib cannot start (out of memory).
    init(level: Int32 = 1) throws(LoadError) {
        unsafe stream = .allocate(capacity: 1)
        unsafe stream.initialize(to: z_stream())
        // `16 + MAX_WBITS`: a gzip header and trailer.
        // SAFETY: a zero-initialised stream, as deflateInit2 requires.
        let status = unsafe deflateInit2_(
            stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            unsafe stream.deinitialize(count: 1)
            unsafe stream.deallocate()
            throw LoadError.http("zlib error \(status)")
        }
    }

    deinit {
        _ = unsafe deflateEnd(stream)
        unsafe stream.deinitialize(count: 1)
        unsafe stream.deallocate()
    }

    /// `input` as one gzip member.
    ///
    /// - Complexity: O(`input.count`). - Allocations: the output array.
    func compress(_ input: [UInt8]) -> [UInt8] {
        _ = unsafe deflateReset(stream)
        var output = [UInt8](repeating: 0, count: Int(unsafe deflateBound(stream, UInt(input.count))) + 64)
        var produced = 0
        unsafe input.withUnsafeBytes { source in
            unsafe output.withUnsafeMutableBytes { target in
                // SAFETY: zlib reads `avail_in` bytes of `source` and writes at most `avail_out` into `target`;
                // both live for the call.
                unsafe stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: source.baseAddress?.assumingMemoryBound(to: UInt8.self))
                unsafe stream.pointee.avail_in = UInt32(source.count)
                unsafe stream.pointee.next_out = target.baseAddress!.assumingMemoryBound(to: UInt8.self)
                unsafe stream.pointee.avail_out = UInt32(target.count)
                let status = unsafe deflate(stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflateBound leaves room for the whole member")
                produced = unsafe target.count - Int(stream.pointee.avail_out)
                unsafe stream.pointee.next_in = nil
                unsafe stream.pointee.next_out = nil
            }
        }
        output.removeSubrange(produced...)
        return output
    }
}

@available(*, unavailable)
extension GzipBody: Sendable {}
