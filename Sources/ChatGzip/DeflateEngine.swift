import CIsal
import CZlib
import ChatPosix

/// The compressor of one gzip member: ISA-L's igzip for levels 1…3, the system zlib for 0 and 4…9.
///
/// | level | engine | why |
/// | --- | --- | --- |
/// | 0 | zlib 0 | stored blocks only; ISA-L's level 0 still compresses |
/// | 1…3 | ISA-L 1…3 | on chat text ISA-L 1 is ~5× faster than zlib 1 and compresses better (3.68:1 vs 3.44:1) |
/// | 4…9 | zlib 4…9 | ISA-L's best (level 3, ~3.78:1) compresses less than zlib 6 (4.10:1) and 9 (4.18:1) |
///
/// Both write the same format: a gzip header, deflate blocks, a `.sync` flush ends with an empty
/// stored block (`00 00 ff ff`, byte-aligned), `.finish` writes the final block and the trailer.
///
/// Owns the engine's state (ISA-L: ~82 KiB of stream plus a level buffer of ~276–340 KiB; zlib:
/// ~256 KiB), allocated once in `init`. Confined to its writer, which holds it inline (a noncopyable
/// value, not an object): a line reaches the library's state in one load fewer, which at 10,000
/// channels is a cache miss fewer per line.
@safe
struct DeflateEngine: ~Copyable {
    enum Flush {
        /// Take the input; output follows as blocks fill.
        case none
        /// Emit everything taken so far, byte-aligned, so that a reader decodes up to here.
        case sync
        /// End the member: final block, CRC-32 and size.
        case finish
    }

    /// What one call did.
    struct Step {
        var consumed: Int
        var produced: Int
        /// The request is done (input taken; flush or member end written). If not, the output was full.
        var complete: Bool
    }

    @unsafe private enum State {
        case isal(OpaquePointer)
        /// At a fixed address, because zlib checks that its stream does not move.
        case zlib(UnsafeMutablePointer<z_stream>)
    }

    private let state: State
    /// The library doing the work, for messages and tests: `"isal"` or `"zlib"`.
    let library: String

    /// Whether `level` (0…9) is compressed by ISA-L.
    static func usesIsal(level: Int32) -> Bool { (1...3).contains(level) }

    /// Sets up a compressor writing a gzip member at `level`.
    ///
    /// - Throws: ``DeflateEngineError`` when the library cannot start (out of memory).
    /// - Precondition: `level` is in 0…9.
    /// - Allocations: the engine's state, once.
    init(level: Int32) throws(DeflateEngineError) {
        precondition(level >= 0 && level <= 9, "gzip level must be in 0...9")
        if Self.usesIsal(level: level) {
            // SAFETY: a plain call; the level is one ISA-L accepts (1...3); 0 asks for its default level buffer.
            guard let deflater = unsafe cisal_deflater_create(level, 0) else {
                throw DeflateEngineError(reason: "igzip could not allocate its state")
            }
            unsafe state = .isal(deflater)
            library = "isal"
            return
        }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        unsafe stream.initialize(to: z_stream())
        // `16 + MAX_WBITS`: write a gzip header and trailer, with the largest window; memLevel 8 is
        // zlib's default.
        // SAFETY: `stream` is zero-initialised (`zalloc`/`zfree`/`opaque` = Z_NULL), as deflateInit2 requires.
        let status = unsafe deflateInit2_(
            stream, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            unsafe stream.deinitialize(count: 1)
            unsafe stream.deallocate()
            throw DeflateEngineError(reason: "zlib error \(status)")
        }
        unsafe state = .zlib(stream)
        library = "zlib"
    }

    deinit {
        switch unsafe state {
        case .isal(let deflater):
            // SAFETY: created by cisal_deflater_create in `init`; destroyed once here.
            unsafe cisal_deflater_destroy(deflater)
        case .zlib(let stream):
            // SAFETY: set up by deflateInit2 in `init`; ended once here.
            unsafe deflateEnd(stream)
            unsafe stream.deinitialize(count: 1)
            unsafe stream.deallocate()
        }
    }

    /// Starts a new gzip member (after `.finish`, or dropping an unfinished one), keeping the state.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func reset() {
        switch unsafe state {
        case .isal(let deflater):
            // SAFETY: created by cisal_deflater_create in `init`.
            unsafe cisal_deflater_reset(deflater)
        case .zlib(let stream):
            // SAFETY: set up by deflateInit2 in `init`.
            _ = unsafe deflateReset(stream)
        }
    }

    /// Compresses from `input` into `output` with `flush`.
    ///
    /// Call again with the rest of the input and fresh output room until the step is `complete`; an
    /// incomplete step always filled `output`.
    ///
    /// - Precondition: `output` is not empty; both counts fit in `UInt32`.
    /// - Complexity: O(`consumed` + `produced`). - Allocations: none.
    func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, flush: Flush) -> Step {
        precondition(output.count > 0 && output.count <= Int(UInt32.max) && input.count <= Int(UInt32.max))
        switch unsafe state {
        case .isal(let deflater):
            return unsafe isalDeflate(deflater, input, output, flush)
        case .zlib(let stream):
            return unsafe zlibDeflate(stream, input, output, flush)
        }
    }

    private func isalDeflate(
        _ deflater: OpaquePointer, _ input: UnsafeRawBufferPointer, _ output: UnsafeMutableRawBufferPointer,
        _ flush: Flush
    ) -> Step {
        var consumed: UInt32 = 0
        var produced: UInt32 = 0
        var complete: Int32 = 0
        let mode: Int32 =
            switch flush {
            case .none: Int32(CISAL_NO_FLUSH)
            case .sync: Int32(CISAL_SYNC_FLUSH)
            case .finish: Int32(CISAL_FINISH)
            }
        // SAFETY: ISA-L reads at most `input.count` bytes from `input` (none if it is empty) and writes at
        // most `output.count` bytes to `output`; it keeps neither pointer after the call.
        let status = unsafe cisal_deflate(
            deflater, input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(input.count),
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(output.count), mode, &consumed,
            &produced, &complete)
        // Only a bad level, level buffer or flush fails, all fixed in `init`.
        precondition(status == 0, "isal_deflate failed with \(status): the stream state is inconsistent")
        return Step(consumed: Int(consumed), produced: Int(produced), complete: complete != 0)
    }

    private func zlibDeflate(
        _ stream: UnsafeMutablePointer<z_stream>, _ input: UnsafeRawBufferPointer,
        _ output: UnsafeMutableRawBufferPointer, _ flush: Flush
    ) -> Step {
        // SAFETY: zlib only reads `next_in` (the header lacks `const`) for `avail_in` bytes and writes
        // at most `avail_out` bytes from `next_out`; both are cleared before returning.
        unsafe stream.pointee.next_in = input.baseAddress.map {
            unsafe UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
        }
        unsafe stream.pointee.avail_in = UInt32(input.count)
        unsafe stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        unsafe stream.pointee.avail_out = UInt32(output.count)
        defer {
            unsafe stream.pointee.next_in = nil
            unsafe stream.pointee.avail_in = 0
            unsafe stream.pointee.next_out = nil
            unsafe stream.pointee.avail_out = 0
        }
        let zlibFlush =
            switch flush {
            case .none: Z_NO_FLUSH
            case .sync: Z_SYNC_FLUSH
            case .finish: Z_FINISH
            }
        // SAFETY: the stream was set up by deflateInit2; its buffers are set above.
        let status = unsafe CZlib.deflate(stream, zlibFlush)
        let consumed = input.count - Int(unsafe stream.pointee.avail_in)
        let produced = output.count - Int(unsafe stream.pointee.avail_out)
        let filled = produced == output.count
        let complete: Bool
        switch status {
        case Z_OK:
            complete =
                switch flush {
                case .none: consumed == input.count
                case .sync: !filled
                case .finish: false
                }
        case Z_STREAM_END:
            complete = true
        case Z_BUF_ERROR:
            complete = !filled  // nothing left to do (e.g. a second flush in a row)
        default:
            preconditionFailure("deflate failed with \(status): the stream state is inconsistent")
        }
        return Step(consumed: consumed, produced: produced, complete: complete)
    }
}

@available(*, unavailable)
extension DeflateEngine: Sendable {}

/// Why a ``DeflateEngine`` could not start.
struct DeflateEngineError: Error {
    var reason: String
}
