import CZlib
public import ChatPosix

/// The decompressed bytes of a gzip stream read from another ``ByteSource``, inflated by the system zlib.
///
/// Handles multi-member files (as `GzipWriter` appends them, or `cat a.gz b.gz` makes them): after a
/// member ends, the decoder is reset and the next member follows on. Damage is not fatal: a stream
/// that ends inside a member, or bytes zlib rejects, first yield everything decoded up to that point,
/// then one ``InputError/truncated(name:compressedOffset:)`` or
/// ``InputError/corrupt(name:compressedOffset:reason:)`` (see ``InputError/isDamage``), then the end.
///
/// ```
///  inner ──read──▶ input [ consumed … | next_in … avail_in | free ]  ──inflate──▶ caller's buffer
///                  ^ compressed offset `consumedBase`
/// ```
/// The compressed buffer and zlib's state (about 7 KiB plus a 32 KiB window) are allocated once, in
/// `init`; reading allocates nothing.
///
/// Confined to the task that reads it.
@safe
public final class GzipSource: ByteSource {
    public let name: String
    private var inner: any ByteSource
    /// zlib's stream state; at a fixed address, because zlib checks that it does not move.
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    /// Compressed offset of `input[0]`.
    private var consumedBase: UInt64 = 0
    /// Bytes of `input` filled by the last inner read.
    private var inputFill = 0
    private var innerEnded = false
    /// Whether the decoder is inside a member (its header has started).
    private var inMember = false
    /// Whether a member ended and the decoder needs `inflateReset` before the next one.
    private var needsReset = false
    private var finished = false
    /// Damage to report on the next read, after the bytes decoded before it were handed out.
    private var pendingError: InputError? = nil

    /// Members decoded completely so far.
    public private(set) var memberCount = 0

    /// Compressed bytes consumed by the decoder so far.
    public var compressedOffset: UInt64 {
        consumedBase + UInt64(inputFill - Int(unsafe stream.pointee.avail_in))
    }

    /// Decompresses the gzip stream `inner` yields.
    ///
    /// - Parameter inputCapacity: size of the compressed-input buffer.
    /// - Throws: ``InputError/decompressorUnavailable(name:reason:)`` when zlib cannot start.
    /// - Allocations: the input buffer and zlib's state, once.
    public init(wrapping inner: any ByteSource, inputCapacity: Int = 32 * 1024) throws(InputError) {
        precondition(inputCapacity > 0 && inputCapacity <= Int(UInt32.max), "inputCapacity out of range")
        self.inner = inner
        name = inner.name
        unsafe stream = .allocate(capacity: 1)
        unsafe stream.initialize(to: z_stream())
        unsafe input = .allocate(byteCount: inputCapacity, alignment: 16)
        // `16 + MAX_WBITS`: expect a gzip header and trailer, with the largest window.
        // SAFETY: `stream` is zero-initialised (`zalloc`/`zfree`/`opaque` = Z_NULL, no input yet), as
        // inflateInit2 requires; the version string and struct size let zlib check the ABI.
        let status = unsafe inflateInit2_(stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            unsafe input.deallocate()
            unsafe stream.deinitialize(count: 1)
            unsafe stream.deallocate()
            throw InputError.decompressorUnavailable(name: inner.name, reason: "zlib error \(status)")
        }
    }

    deinit {
        // SAFETY: `stream` was set up by inflateInit2 in `init` (a failed init never gets here).
        unsafe inflateEnd(stream)
        unsafe stream.deinitialize(count: 1)
        unsafe stream.deallocate()
        unsafe input.deallocate()
    }

    /// Writes up to `buffer.count` decompressed bytes; 0 at the clean end of the last member.
    ///
    /// - Throws: damage (``InputError/truncated(name:compressedOffset:)``,
    ///   ``InputError/corrupt(name:compressedOffset:reason:)``) once, after the bytes before it were
    ///   returned; or the inner source's error. Later calls return 0.
    /// - Complexity: O(bytes produced + bytes consumed). - Allocations: none.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        precondition(buffer.count > 0, "read(into:) needs a non-empty buffer")
        if let error = pendingError {
            pendingError = nil
            throw error
        }
        if finished { return 0 }
        let capacity = min(buffer.count, Int(UInt32.max))
        // SAFETY: `buffer` is writable for `capacity <= buffer.count` bytes; zlib writes at most
        // `avail_out` bytes from `next_out`, and both are reset on every call.
        unsafe stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        unsafe stream.pointee.avail_out = UInt32(capacity)
        while true {
            if unsafe stream.pointee.avail_in == 0 && !innerEnded {
                try refill()
            }
            if unsafe stream.pointee.avail_in == 0 && innerEnded {
                finished = true
                guard inMember else { return 0 }
                throw InputError.truncated(name: name, compressedOffset: compressedOffset)
            }
            if !inMember {
                if needsReset {
                    // SAFETY: `stream` is a live inflate stream; reset keeps its window and settings.
                    unsafe inflateReset(stream)
                    needsReset = false
                }
                inMember = true
            }
            // SAFETY: `next_in`/`avail_in` describe unread bytes of `input`, `next_out`/`avail_out`
            // free bytes of `buffer` (set above and advanced only by zlib).
            let status = unsafe inflate(stream, Z_NO_FLUSH)
            let produced = capacity - Int(unsafe stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                inMember = false
                needsReset = true
                memberCount += 1
                if produced > 0 { return produced }
            case Z_OK, Z_BUF_ERROR:
                if produced > 0 { return produced }
                // No output with room left means zlib used up its input and wants more, which the
                // next turn of the loop reads. Input left over would mean no progress: never loop on it.
                if unsafe stream.pointee.avail_in != 0 {
                    return try fail(produced: 0, reason: "decoder made no progress")
                }
            default:
                return try fail(produced: produced, reason: zlibMessage(status))
            }
        }
    }

    /// Reads the next chunk of compressed bytes from the inner source.
    private func refill() throws(InputError) {
        consumedBase += UInt64(inputFill)
        inputFill = 0
        unsafe stream.pointee.avail_in = 0
        let n: Int
        do {
            n = try unsafe inner.read(into: input)
        } catch {
            innerEnded = true
            finished = true
            throw error
        }
        if n == 0 {
            innerEnded = true
            return
        }
        inputFill = n
        // SAFETY: the inner source wrote `n <= input.count` bytes at the start of `input`.
        unsafe stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
        unsafe stream.pointee.avail_in = UInt32(n)
    }

    /// Ends decoding at damage: hands out `produced` bytes first if there are any.
    private func fail(produced: Int, reason: String) throws(InputError) -> Int {
        finished = true
        let error = InputError.corrupt(name: name, compressedOffset: compressedOffset, reason: reason)
        guard produced > 0 else { throw error }
        pendingError = error
        return produced
    }

    /// zlib's message for the last error, or a description of `status`.
    private func zlibMessage(_ status: Int32) -> String {
        // SAFETY: `msg` is NULL or a static NUL-terminated string set by zlib for this stream.
        if let message = unsafe stream.pointee.msg { return unsafe String(cString: message) }
        switch status {
        case Z_NEED_DICT: return "needs a preset dictionary"
        case Z_MEM_ERROR: return "out of memory"
        default: return "zlib error \(status)"
        }
    }
}

@available(*, unavailable)
extension GzipSource: Sendable {}

/// Opens `path` (or `-` for standard input) as a byte source that yields text lines: plain inputs as
/// they are, gzip inputs (detected by their magic bytes `1f 8b`, whatever the name) decompressed.
///
/// The `.gz` suffix only decides for a file shorter than two bytes (a gzip file cut short). In follow
/// mode an empty file is waited on until its first bytes tell its format.
///
/// - Throws: the errors of ``FileSource/init(path:follow:)`` and ``GzipSource/init(wrapping:inputCapacity:)``.
/// - Allocations: the source, and for gzip its buffers, once.
public func makeByteSource(path: String, follow: FollowMode? = nil) throws(InputError) -> any ByteSource {
    let file = try FileSource(path: path, follow: follow)
    switch try file.detectFormat(shortInputFormat: path.hasSuffix(".gz") ? .gzip : .plain) {
    case .plain: return file
    case .gzip: return try GzipSource(wrapping: file)
    }
}
