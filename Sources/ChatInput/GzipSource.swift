import CIsal
import ChatPosix

/// The decompressed bytes of a gzip stream read from another ``ByteSource``, inflated by ISA-L's igzip
/// (`isal_inflate`, which parses the gzip header and checks each member's CRC-32 and size).
///
/// Handles multi-member files (as `GzipWriter` appends them, or `cat a.gz b.gz` makes them): after a
/// member ends, the decoder is reset and the next member follows on. Damage is not fatal: a stream
/// that ends inside a member, or bytes the decoder rejects, first yield everything decoded up to that
/// point, then one ``InputError/truncated(name:compressedOffset:)`` or
/// ``InputError/corrupt(name:compressedOffset:reason:)`` (see ``InputError/isDamage``), then the end.
///
/// ```
///  inner ──read──▶ input [ consumed … | unread (inputStart ..< inputFill) | free ]  ──inflate──▶ caller's buffer
///                  ^ compressed offset `consumedBase`
/// ```
/// Over a growing file (``init(wrapping:inputCapacity:pausesAtInnerEnd:)`` with `pausesAtInnerEnd`), an
/// end of the inner source is a pause, not the end: the read returns 0, and a later read asks the inner
/// source again and decodes on from where it stopped (inside a member too), as bytes are appended.
///
/// The compressed buffer and ISA-L's state (about 100 KiB, most of it a 64 KiB history and output
/// buffer) are allocated once, in `init`; reading allocates nothing.
///
/// Confined to the task that reads it.
@safe
public final class GzipSource: ByteSource {
    public let name: String
    private var inner: any ByteSource
    /// ISA-L's inflate state, opaque (see `CIsal.h`).
    private let inflater: OpaquePointer
    private let input: UnsafeMutableRawBufferPointer
    /// Compressed offset of `input[0]`.
    private var consumedBase: UInt64 = 0
    /// Bytes of `input` filled by the last inner read.
    private var inputFill = 0
    /// Bytes of `input` the decoder has taken (`inputStart <= inputFill`).
    private var inputStart = 0
    private var innerEnded = false
    /// Whether the inner source's end is a pause (it grows later); see `init`.
    private let pausesAtInnerEnd: Bool
    /// Whether a member ended and the decoder needs resetting before the next one.
    private var needsReset = false
    /// Compressed offset of the current member's first byte, and how many of its magic bytes were checked.
    private var memberStart: UInt64 = 0
    private var magicChecked = 0
    private var finished = false
    /// Damage to report on the next read, after the bytes decoded before it were handed out.
    private var pendingError: InputError? = nil

    /// Members decoded completely so far.
    public private(set) var memberCount = 0

    /// Compressed bytes consumed by the decoder so far (including up to 8 bytes it has buffered but
    /// not decoded yet).
    public var compressedOffset: UInt64 {
        consumedBase + UInt64(inputStart)
    }

    /// Decompresses the gzip stream `inner` yields.
    ///
    /// - Parameters:
    ///   - inputCapacity: size of the compressed-input buffer.
    ///   - pausesAtInnerEnd: whether a 0 from `inner` means "nothing more yet" (a file still being
    ///     written, read by a source that returns 0 at its current end and more later): ``read(into:)``
    ///     then returns 0 and the next call asks `inner` again. Damage and `inner`'s errors still end
    ///     the stream; a stream that stops inside a member is never reported as truncated.
    /// - Throws: ``InputError/decompressorUnavailable(name:reason:)`` when ISA-L's state cannot be allocated.
    /// - Allocations: the input buffer and ISA-L's state, once.
    public init(
        wrapping inner: any ByteSource, inputCapacity: Int = 128 * 1024, pausesAtInnerEnd: Bool = false
    ) throws(InputError) {
        precondition(inputCapacity > 0 && inputCapacity <= Int(UInt32.max), "inputCapacity out of range")
        self.inner = inner
        self.pausesAtInnerEnd = pausesAtInnerEnd
        name = inner.name
        guard let inflater = unsafe cisal_inflater_create() else {
            throw InputError.decompressorUnavailable(name: inner.name, reason: "out of memory")
        }
        unsafe self.inflater = inflater
        unsafe input = .allocate(byteCount: inputCapacity, alignment: 64)
    }

    deinit {
        // SAFETY: created by cisal_inflater_create in `init`; destroyed once here.
        unsafe cisal_inflater_destroy(inflater)
        unsafe input.deallocate()
    }

    /// Whether stopping here cuts nothing: no member was begun and left unfinished (at a pause of a
    /// growing file, whether its writer finished it).
    public var endsCleanlyHere: Bool {
        // SAFETY: `inflater` is live.
        unsafe cisal_inflater_in_member(inflater) == 0 && (needsReset || magicChecked == 0)
    }

    /// Whether the compressed file's descriptor is open now.
    public var holdsDescriptor: Bool { inner.holdsDescriptor }

    /// Whether the compressed file's descriptor was given back (the decoder's state is kept).
    public var isReleased: Bool { inner.isReleased }

    /// Gives the compressed file's descriptor back; the decoder keeps its state and goes on at the
    /// same compressed offset when it needs more input. See ``FileSource/releaseDescriptor()``.
    @discardableResult
    public func releaseDescriptor() -> Bool { inner.releaseDescriptor() }

    /// Writes up to `buffer.count` decompressed bytes; 0 at the clean end of the last member (or, when
    /// pausing at the inner end, when the inner source has nothing more yet).
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
        while true {
            if needsReset {
                // SAFETY: `inflater` is live; the reset keeps its gzip settings.
                unsafe cisal_inflater_next_member(inflater)
                needsReset = false
                memberStart = compressedOffset
                magicChecked = 0
            }
            if let reason = checkMagic() {
                return try fail(produced: 0, reason: reason)
            }
            // With the input used up, the call still hands out bytes ISA-L decoded ahead into its own buffer:
            // those go out before the inner source is asked for more (which, following a file, may wait).
            var consumed: UInt32 = 0
            var producedCount: UInt32 = 0
            var memberEnd: Int32 = 0
            // SAFETY: `input[inputStart ..< inputFill]` holds unread compressed bytes and `buffer` is writable
            // for `capacity <= buffer.count` bytes; ISA-L reads and writes only within the counts it is given.
            let status = unsafe cisal_inflate(
                inflater, input.baseAddress!.assumingMemoryBound(to: UInt8.self) + inputStart,
                UInt32(inputFill - inputStart), buffer.baseAddress!.assumingMemoryBound(to: UInt8.self),
                UInt32(capacity), &consumed, &producedCount, &memberEnd)
            inputStart += Int(consumed)
            let produced = Int(producedCount)
            guard cisal_inflate_failed(status) == 0 else {
                // SAFETY: `cisal_inflate_message` returns a static NUL-terminated string.
                return try fail(produced: produced, reason: unsafe String(cString: cisal_inflate_message(status)))
            }
            if memberEnd != 0 {
                needsReset = true
                memberCount += 1
            }
            if produced > 0 { return produced }
            if inputStart == inputFill {
                if !innerEnded {
                    guard try refill() else { return 0 }  // a pause: nothing more yet
                    continue
                }
                finished = true
                // SAFETY: `inflater` is live.
                guard unsafe cisal_inflater_in_member(inflater) != 0 else { return 0 }
                throw InputError.truncated(name: name, compressedOffset: compressedOffset)
            }
            if memberEnd == 0 && consumed == 0 && inputStart < inputFill {
                // Input left and room for output, yet nothing happened: never loop on it.
                return try fail(produced: 0, reason: "decoder made no progress")
            }
        }
    }

    /// Checks the member's first bytes (`1f 8b 08`: gzip, deflate) as they arrive, before ISA-L takes them:
    /// ISA-L only looks at a header once it has all ten bytes, so a short non-gzip tail would otherwise
    /// look like a cut-off member. The reason for damage, or `nil`.
    private func checkMagic() -> String? {
        let magic: (UInt8, UInt8, UInt8) = (0x1f, 0x8b, 0x08)
        while magicChecked < 3 {
            let offset = memberStart + UInt64(magicChecked)
            // Bytes before `inputStart` were checked before ISA-L could take them.
            assert(offset >= consumedBase + UInt64(inputStart), "a header byte was decoded unchecked")
            let index = Int(offset - consumedBase)
            guard index < inputFill else { return nil }
            let expected = magicChecked == 0 ? magic.0 : magicChecked == 1 ? magic.1 : magic.2
            // SAFETY: `inputStart <= index < inputFill <= input.count`.
            guard unsafe input[index] == expected else {
                return magicChecked < 2 ? "incorrect header check" : "unknown compression method"
            }
            magicChecked += 1
        }
        return nil
    }

    /// Reads the next chunk of compressed bytes from the inner source; `false` for a pause (the inner
    /// source has nothing now and ``pausesAtInnerEnd``).
    private func refill() throws(InputError) -> Bool {
        consumedBase += UInt64(inputFill)
        inputFill = 0
        inputStart = 0
        let n: Int
        do {
            n = try unsafe inner.read(into: input)
        } catch {
            innerEnded = true
            finished = true
            throw error
        }
        if n == 0 {
            if pausesAtInnerEnd { return false }
            innerEnded = true
            return true
        }
        inputFill = n
        return true
    }

    /// Ends decoding at damage: hands out `produced` bytes first if there are any.
    private func fail(produced: Int, reason: String) throws(InputError) -> Int {
        finished = true
        let error = InputError.corrupt(name: name, compressedOffset: compressedOffset, reason: reason)
        guard produced > 0 else { throw error }
        pendingError = error
        return produced
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
/// With `prefetchesGzip`, a gzip regular file that is not followed is inflated on a thread of its own
/// (``PrefetchSource``), ahead of the caller. (Such a file's reads never wait, so the mode's `idle`
/// never runs on that thread.)
///
/// - Throws: the errors of ``FileSource/init(path:follow:)`` and ``GzipSource/init(wrapping:inputCapacity:)``.
/// - Allocations: the source, and for gzip its buffers, once.
public func makeByteSource(
    path: String, follow: FollowMode? = nil, prefetchesGzip: Bool = false
) throws(InputError) -> any ByteSource {
    let file = try FileSource(path: path, follow: follow)
    switch try file.detectFormat(shortInputFormat: path.hasSuffix(".gz") ? .gzip : .plain) {
    case .plain: return file
    case .gzip:
        let prefetches = prefetchesGzip && follow?.followsFiles != true && file.isRegularFile
        let pauses = follow?.pausesAtEnd == true && follow?.followsFiles == true && file.isRegularFile
        let gzip = try GzipSource(wrapping: file, pausesAtInnerEnd: pauses)
        return prefetches ? PrefetchSource(wrapping: gzip) : gzip
    }
}
