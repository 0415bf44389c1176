import ChatGzip
public import ChatInput
import ChatPosix
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// The compressed bytes of a capture file that may still be growing, read with `pread(2)` from where
/// the last read stopped. At the file's current (durable) end a read returns 0 — a pause, not the end:
/// a later read looks again (for `GzipSource(…, pausesAtInnerEnd: true)`).
///
/// Capture only appends, except after a crash: its next run cuts the file back to the last flush point
/// and finishes the member there (``GzipTailRepair``), so bytes this source has already read may be
/// replaced. Before reading on after a pause, the source checks that the file is not shorter than what
/// was read and that the last 16 bytes read are still there; if not, the read throws
/// ``InputError/corrupt(name:compressedOffset:reason:)`` with ``rewrittenReason`` and
/// ``wasRewritten`` is set, so that the caller reads the file again.
///
/// **Only durable bytes are read:** those up to the file's last flush point, the end of its last
/// sync-flush marker (`00 00 FF FF`, the empty stored block a ``GzipWriter`` flush ends with, and with
/// which its `close()` ends every member's text). Capture writes compressed output whenever its buffer
/// fills, so a file usually holds bytes past its last flush; a crash before the next flush leaves them
/// torn, and the restarted capture's repair cuts them off. Lines decoded from them must never be
/// loaded: the decoder is handed bytes only up to ``durableEnd``, which moves on as capture flushes
/// (about once a second). (A random `00 00 FF FF` inside compressed data would be taken for a flush
/// point: about one in 2³² positions, and harmful only if capture then crashed before its next flush.)
///
/// Confined to the loader's thread.
@safe
public final class GrowingFile: ByteSource {
    public let name: String
    private let descriptor: Int32
    /// Compressed bytes read so far.
    public private(set) var offset: UInt64 = 0
    /// The last (up to) 16 bytes read, oldest first, to recognise the file after a pause.
    private var recent: [UInt8] = []
    private var paused = false
    /// Whether the file was found cut back or changed below ``offset``.
    public private(set) var wasRewritten = false
    /// Bytes that may be read: the end of the last sync-flush marker found (0: none yet).
    public private(set) var durableEnd: UInt64 = 0
    /// The file's size when ``durableEnd`` was last looked for; what lies between the two is not read.
    public private(set) var examinedSize: UInt64 = 0
    /// Scratch for the backward search of a marker, allocated on first use.
    private var scan: [UInt8] = []
    /// The size at which the whole file was last decoded to find its durable end (see ``findDurableEnd()``).
    private var decodedSize: UInt64 = 0

    /// Whether every byte examined is accounted for: read up to the durable end, and what follows it
    /// was looked at (a finished member's last few bytes, or bytes a crash left that the next capture
    /// will cut). Until then a paused reader may still have lines to hand out.
    public var isSettled: Bool {
        examinedSize <= durableEnd + Self.closingBytes || decodedSize == examinedSize
    }

    /// When ``examinedSize`` was taken (monotonic milliseconds).
    private var examinedAtMs: Int64 = 0
    /// How long a file must keep its size before it is decoded whole (see ``findDurableEnd()``).
    static let quietMs: Int64 = 2_000

    /// What may follow a member's last flush point without holding text: the empty final block and the
    /// trailer that ``GzipWriter``'s `close()` writes after its last flush (10 bytes with zlib).
    static let closingBytes: UInt64 = 16

    /// The reason a read gives for a file changed below what was read.
    public static let rewrittenReason = "the file changed below what was read (a capture restarted after a crash?)"

    /// Opens `path` for reading.
    ///
    /// - Throws: the ``InputError`` of `open(2)`.
    public init(path: String) throws(InputError) {
        var fd: Int32
        repeat {
            fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw InputError.opening(path, errno: errno) }
        descriptor = fd
        name = path
        recent.reserveCapacity(16)
    }

    deinit { close(descriptor) }

    /// The file's size now (`fstat`), or `nil` when it cannot be read.
    public var currentSize: UInt64? {
        var info = stat()
        guard unsafe fstat(descriptor, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }

    /// The file's size and last change time (`st_ctim`: any write or truncation moves it), or `nil`.
    private var changeStamp: ChangeStamp? {
        var info = stat()
        guard unsafe fstat(descriptor, &info) == 0 else { return nil }
        return ChangeStamp(size: info.st_size, seconds: info.st_ctim.tv_sec, nanoseconds: info.st_ctim.tv_nsec)
    }

    private struct ChangeStamp: Equatable {
        var size: Int
        var seconds: Int
        var nanoseconds: Int
    }

    /// Reads up to `buffer.count` bytes at ``offset``; 0 when there are none yet.
    ///
    /// - Throws: ``InputError/readFailed(name:errno:)``, or `corrupt` when the file was rewritten.
    /// - Complexity: one `pread(2)` (two and an `fstat` after a pause). - Allocations: none, but a
    ///   16-byte array for the check after a pause.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        precondition(buffer.count > 0, "read(into:) needs a non-empty buffer")
        if wasRewritten {
            throw InputError.corrupt(name: name, compressedOffset: offset, reason: Self.rewrittenReason)
        }
        if paused {
            try checkUnchanged()
        }
        if offset >= durableEnd { try findDurableEnd() }
        let want = Int(min(UInt64(buffer.count), durableEnd - min(durableEnd, offset)))
        guard want > 0 else {
            paused = true
            return 0
        }
        while true {
            let n = unsafe pread(descriptor, buffer.baseAddress, want, off_t(offset))
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError.readFailed(name: name, errno: errno)
            }
            paused = n == 0
            if n > 0 {
                offset += UInt64(n)
                unsafe remember(buffer, n)
            }
            return n
        }
    }

    /// Moves ``durableEnd`` to the end of the last sync-flush marker in the bytes the file gained since
    /// it was last examined (searched backwards from its end, so usually one short read: a flushed
    /// file ends in a marker).
    ///
    /// - Complexity: O(bytes since the last marker found). - Allocations: a 64 KiB scratch, once.
    ///
    /// When the file has not grown for ``quietMs`` and more than a closing follows the last
    /// marker, the file is quiet and ends otherwise: in a member finished without a last flush (another
    /// gzip writer, an older chatcap), or torn by a crash. It is then decoded once at that size to tell
    /// (``GzipFlushPoint``): a finished member is durable to its end.
    private func findDurableEnd() throws(InputError) {
        guard let size = currentSize else { return }
        if size < examinedSize { examinedSize = durableEnd }  // cut back by a repair: look again from there
        if size == examinedSize {
            // Capture flushes an open file about once a second: quiet for two, it is not being written.
            guard !isSettled, Moment.now().monotonicMs - examinedAtMs >= Self.quietMs else { return }
            // A capture that restarts meanwhile repairs the file under the decoder (cuts it back, finishes
            // the member, appends): a decode that raced with a change says nothing, and is tried again.
            let before = changeStamp
            let end: UInt64
            do throws(GzipWriterError) {
                end = try GzipFlushPoint.durableLength(descriptor: descriptor, size: size, path: name)
            } catch {
                guard changeStamp == before else { return }
                throw InputError.corrupt(name: name, compressedOffset: durableEnd, reason: "\(error)")
            }
            guard changeStamp == before else { return }
            decodedSize = size
            durableEnd = max(durableEnd, end)
            return
        }
        let floor = max(durableEnd, examinedSize >= 3 ? examinedSize - 3 : 0)
        examinedSize = size
        examinedAtMs = Moment.now().monotonicMs
        if scan.isEmpty { scan = [UInt8](repeating: 0, count: 64 * 1024) }
        var end = size
        while end >= floor + 4 {
            let start = max(floor, end >= UInt64(scan.count) ? end - UInt64(scan.count) : 0)
            let count = Int(end - start)
            let n = unsafe scan.withUnsafeMutableBytes { raw in
                unsafe pread(descriptor, raw.baseAddress, count, off_t(start))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError.readFailed(name: name, errno: errno)
            }
            guard n == count else { return }  // cut back meanwhile: the next read notices
            let found = unsafe scan.withUnsafeBytes { raw in
                unsafe GzipFlushPoint.lastMarkerEnd(in: UnsafeRawBufferPointer(rebasing: raw[0..<count]))
            }
            if let found {
                durableEnd = start + UInt64(found)
                return
            }
            // Keep three bytes of overlap so a marker across two windows is found.
            end = start + 3
            if start == floor { return }
        }
    }

    /// Keeps the last 16 bytes of what was read.
    private func remember(_ buffer: UnsafeMutableRawBufferPointer, _ n: Int) {
        let take = min(16, n)
        if recent.count + take > 16 { recent.removeFirst(recent.count + take - 16) }
        for i in (n - take)..<n { unsafe recent.append(buffer[i]) }
    }

    /// After a pause: the file still holds what was read (its size, and the last bytes read).
    private func checkUnchanged() throws(InputError) {
        guard let size = currentSize else { return }
        var same = size >= offset
        if same && !recent.isEmpty {
            var check = [UInt8](repeating: 0, count: recent.count)
            let n = unsafe check.withUnsafeMutableBytes { raw in
                unsafe pread(descriptor, raw.baseAddress, raw.count, off_t(offset) - off_t(raw.count))
            }
            same = n == check.count && check == recent
        }
        if !same {
            wasRewritten = true
            throw InputError.corrupt(name: name, compressedOffset: offset, reason: Self.rewrittenReason)
        }
    }
}

@available(*, unavailable)
extension GrowingFile: Sendable {}
