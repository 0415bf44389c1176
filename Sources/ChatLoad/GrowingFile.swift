public import ChatInput
public import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The compressed bytes of a capture file that may still be growing, read with `pread(2)` from where
/// the last read stopped. At the file's current end a read returns 0 — a pause, not the end: a later
/// read looks again (for `GzipSource(…, pausesAtInnerEnd: true)`).
///
/// Capture only appends, except after a crash: its next run cuts the file back to the last flush point
/// and finishes the member there (``GzipTailRepair``), so bytes this source has already read may be
/// replaced. Before reading on after a pause, the source checks that the file is not shorter than what
/// was read and that the last 16 bytes read are still there; if not, the read throws
/// ``InputError/corrupt(name:compressedOffset:reason:)`` with ``rewrittenReason`` and
/// ``wasRewritten`` is set, so that the caller reads the file again.
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
        while true {
            let n = unsafe pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
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
