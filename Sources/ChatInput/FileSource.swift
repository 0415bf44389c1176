import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The bytes of a file, or of standard input (`-`), read with `read(2)` straight into the caller's buffer.
///
/// Owns its file descriptor and closes it in `deinit` (standard input is never closed). With a
/// ``FollowMode``, a regular file is followed like `tail -f`: at its end the source polls for growth
/// instead of ending (or, with ``FollowMode/pausesAtEnd``, returns 0 at once and reads on at the next
/// call), until the mode's stop flag or deadline ends it; if the file shrinks (truncated
/// in place, e.g. by `copytruncate`), reading restarts at its beginning and ``restartCount`` goes up.
///
/// ``detectFormat(shortInputFormat:)`` reads the first two bytes to tell gzip from plain text; those
/// bytes are kept and handed out again by the next ``read(into:)``, so detection works on pipes too.
///
/// A regular file opened by path and not followed can give its descriptor back between reads
/// (``releaseDescriptor()``): the next ``read(into:)`` opens the file again, checks that it is the
/// same file (device and inode), and goes on at the same offset. A merge of more inputs than there
/// are descriptors does that (see ``InputDescriptors``).
///
/// Confined to the task that reads it.
@safe
public final class FileSource: ByteSource {
    public let name: String
    private var descriptor: Int32
    private let closesDescriptor: Bool
    /// Whether the descriptor reads a regular file (whose reads end), not a pipe, socket or terminal.
    public let isRegularFile: Bool
    /// The file's device and inode, to tell on reopening that it is still the same file.
    private let identity: (device: UInt64, inode: UInt64)
    /// Whether the descriptor was released and the file must be opened again before the next read.
    private var released = false
    private let follow: FollowMode?
    /// Bytes read from the descriptor since the last restart, to notice a file that shrank.
    private var fileOffset: Int64 = 0
    /// Up to two bytes read by ``detectFormat(shortInputFormat:)`` and not yet handed out
    /// (little-endian in the word).
    private var lookahead: UInt16 = 0
    private var lookaheadCount = 0
    private var lookaheadTaken = 0
    private var ended = false

    /// How often a followed file shrank and was read again from its start.
    public private(set) var restartCount = 0

    /// The name ``FileSource`` gives standard input in messages.
    public static let standardInputName = "(standard input)"

    /// Opens `path` for reading; `-` means standard input (descriptor 0).
    ///
    /// - Throws: ``InputError/notFound(path:)``, ``InputError/permissionDenied(path:)``,
    ///   ``InputError/isDirectory(path:)`` or ``InputError/cannotOpen(path:errno:)``.
    /// - Allocations: none beyond the instance.
    public convenience init(path: String, follow: FollowMode? = nil) throws(InputError) {
        if path == "-" {
            self.init(descriptor: 0, name: Self.standardInputName, closesDescriptor: false, follow: follow)
            return
        }
        let (fd, info) = try Self.openForReading(path)
        if info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw InputError.isDirectory(path: path)
        }
        self.init(descriptor: fd, name: path, closesDescriptor: true, follow: follow)
    }

    /// Reads from an open descriptor, e.g. one end of a pipe.
    ///
    /// - Parameters:
    ///   - closesDescriptor: whether `deinit` closes `descriptor`.
    ///   - follow: following takes effect when `descriptor` is a regular file; its `idle` and `stop`
    ///     also serve the waits of a pipe or terminal.
    ///
    /// A descriptor it closes counts in ``InputDescriptors`` while it is open.
    public init(descriptor: Int32, name: String, closesDescriptor: Bool, follow: FollowMode? = nil) {
        if closesDescriptor { InputDescriptors.opened() }
        self.descriptor = descriptor
        self.name = name
        self.closesDescriptor = closesDescriptor
        self.follow = follow
        var info = stat()
        // SAFETY: `info` is a properly aligned local `stat` that `fstat` fills in.
        let known = unsafe fstat(descriptor, &info) == 0
        isRegularFile = known && info.st_mode & S_IFMT == S_IFREG
        identity = known ? (UInt64(info.st_dev), UInt64(info.st_ino)) : (0, 0)
    }

    deinit {
        if closesDescriptor && !released {
            close(descriptor)
            InputDescriptors.closed()
        }
    }

    /// Whether the source owns an open descriptor now (standard input and borrowed descriptors do
    /// not count).
    public var holdsDescriptor: Bool { closesDescriptor && !released }

    /// Whether the descriptor was released and the next ``read(into:)`` opens the file again.
    public var isReleased: Bool { released }

    /// Closes the descriptor of a regular file opened by path and not followed; the next
    /// ``read(into:)`` that needs the file opens it again and goes on at the same offset. A source at
    /// its end (of any kind) needs its descriptor no more and always gives it back.
    ///
    /// - Returns: whether a descriptor was closed.
    /// - Complexity: one `close(2)`. - Allocations: none.
    @discardableResult
    public func releaseDescriptor() -> Bool {
        guard closesDescriptor, !released else { return false }
        guard ended || (isRegularFile && follow?.followsFiles != true) else { return false }
        close(descriptor)
        InputDescriptors.closed()
        descriptor = -1
        released = true
        return true
    }

    /// `open(2)` for reading (retried on `EINTR`) and `fstat(2)` of what it opened; the descriptor is
    /// closed again when `fstat` fails.
    ///
    /// - Throws: the ``InputError`` of the failed call (``InputError/opening(_:errno:)``).
    private static func openForReading(_ path: String) throws(InputError) -> (Int32, stat) {
        var fd: Int32
        repeat {
            // SAFETY: `path` is bridged to a NUL-terminated C string that lives for the call.
            fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw InputError.opening(path, errno: errno) }
        var info = stat()
        // SAFETY: `info` is a properly aligned local `stat` that `fstat` fills in.
        guard unsafe fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw InputError.opening(path, errno: code)
        }
        return (fd, info)
    }

    /// Opens the file again after ``releaseDescriptor()``, at the offset it was read to.
    ///
    /// - Throws: the errors of opening (``InputError/cannotOpen(path:errno:)`` with `EMFILE` when
    ///   descriptors ran out), or ``InputError/replaced(name:)`` when the path names another file now.
    private func reopen() throws(InputError) {
        let (fd, info) = try Self.openForReading(name)
        guard UInt64(info.st_dev) == identity.device, UInt64(info.st_ino) == identity.inode else {
            close(fd)
            throw InputError.replaced(name: name)
        }
        guard lseek(fd, off_t(fileOffset), SEEK_SET) == off_t(fileOffset) else {
            let code = errno
            close(fd)
            throw InputError.readFailed(name: name, errno: code)
        }
        InputDescriptors.opened()
        descriptor = fd
        released = false
    }

    /// Whether the input starts with the gzip magic bytes `1f 8b`, decided from its first two bytes.
    ///
    /// Reads (and in follow mode waits for) up to two bytes; they are not lost.
    ///
    /// - Parameter shortInputFormat: the answer for an input shorter than two bytes, which cannot tell
    ///   (e.g. ``InputFormat/gzip`` for a `.gz` file cut short, so that it is reported as truncated).
    /// - Precondition: nothing was read from this source yet.
    /// - Complexity: O(1) reads. - Allocations: none.
    public func detectFormat(shortInputFormat: InputFormat = .plain) throws(InputError) -> InputFormat {
        precondition(lookaheadCount == 0 && fileOffset == 0 && !ended, "detectFormat() must come before any read")
        var word: UInt16 = 0
        var count = 0
        while count < 2 {
            let n = try unsafe withUnsafeMutableBytes(of: &word) { raw throws(InputError) -> Int in
                // SAFETY: `count < 2 == raw.count`, so the rebased slice is a non-empty part of `word`.
                try unsafe read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]))
            }
            if n == 0 { break }
            count += n
        }
        lookahead = word
        lookaheadCount = count
        lookaheadTaken = 0
        guard count == 2 else { return shortInputFormat }
        return word.littleEndian == 0x8B1F ? .gzip : .plain
    }

    /// Reads up to `buffer.count` bytes; 0 at the end (in follow mode: once following ended).
    ///
    /// `EINTR` is retried.
    ///
    /// - Throws: ``InputError/readFailed(name:errno:)``, or after ``releaseDescriptor()`` the errors of
    ///   opening the file again; the source is at its end afterwards.
    /// - Complexity: one `read(2)`, plus polls while following. - Allocations: none.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        precondition(buffer.count > 0, "read(into:) needs a non-empty buffer")
        if lookaheadTaken < lookaheadCount {
            var n = 0
            while lookaheadTaken < lookaheadCount && n < buffer.count {
                // SAFETY: `n < buffer.count`; `lookaheadTaken < lookaheadCount <= 2` bytes of the word.
                unsafe buffer[n] = UInt8(truncatingIfNeeded: lookahead.littleEndian >> (8 * lookaheadTaken))
                n += 1
                lookaheadTaken += 1
            }
            return n
        }
        if ended { return 0 }
        if released {
            do throws(InputError) { try reopen() } catch {
                ended = true
                throw error
            }
        }
        if !isRegularFile, let follow, follow.idle != nil || follow.stop != nil, !waitForInput(follow) {
            ended = true
            return 0
        }
        while true {
            // SAFETY: `buffer` is writable for `buffer.count` bytes (the caller's contract).
            let n = unsafe Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if n > 0 {
                fileOffset += Int64(n)
                return n
            }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                ended = true
                throw InputError.readFailed(name: name, errno: code)
            }
            guard let follow, follow.followsFiles, isRegularFile, !follow.isOver else {
                ended = true
                return 0
            }
            if currentSize() < fileOffset {
                lseek(descriptor, 0, SEEK_SET)
                fileOffset = 0
                restartCount += 1
                continue
            }
            if follow.pausesAtEnd { return 0 }  // a pause: the caller asks again later
            var pause = Self.pause(follow)
            if let due = follow.idle?() { pause = min(pause, due - ContinuousClock.now) }
            sleepThread(for: pause)
        }
    }

    /// Before a `read(2)` on a pipe or terminal that might block: while nothing is readable, runs
    /// the mode's `idle` and waits in `poll(2)` until input comes, `idle` wants to run again, or (at
    /// least every 250 ms) to look at the stop flag.
    ///
    /// - Returns: `false` when the stop flag was raised before input came.
    /// - Complexity: one `poll(2)` when input is ready. - Allocations: none.
    private func waitForInput(_ follow: FollowMode) -> Bool {
        var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // SAFETY: one local `pollfd`.
        if unsafe poll(&fds, 1, 0) != 0 { return true }
        while true {
            if let stop = follow.stop, stop.isRaised { return false }
            var timeout: Int32 = follow.stop == nil ? -1 : 250
            if let due = follow.idle?() {
                let ms = Int32(clamping: max(1, (due - ContinuousClock.now).inMilliseconds + 1))
                timeout = timeout < 0 ? ms : min(timeout, ms)
            }
            fds.revents = 0
            // SAFETY: one local `pollfd`.
            let ready = unsafe poll(&fds, 1, timeout)
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }
        }
    }

    /// The file's size now, or `Int64.max` when it cannot be read (so that nothing restarts).
    private func currentSize() -> Int64 {
        var info = stat()
        // SAFETY: `info` is a properly aligned local `stat` that `fstat` fills in.
        guard unsafe fstat(descriptor, &info) == 0 else { return .max }
        return Int64(info.st_size)
    }

    /// How long to wait before looking again: one poll interval, or until the deadline if that
    /// comes first.
    private static func pause(_ follow: FollowMode) -> Duration {
        guard let deadline = follow.deadline else { return follow.pollInterval }
        return min(follow.pollInterval, deadline - ContinuousClock.now)
    }
}

@available(*, unavailable)
extension FileSource: Sendable {}

/// How an input's bytes are encoded, as told by its first bytes.
public enum InputFormat: Sendable, Equatable {
    /// Text lines as they are.
    case plain
    /// A gzip stream (magic bytes `1f 8b`), one or more members.
    case gzip
}
