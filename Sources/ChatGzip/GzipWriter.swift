import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Appends a gzip stream to a file through a ``DeflateEngine`` (ISA-L's igzip at levels 1…3, zlib
/// otherwise), with buffered writes.
///
/// Every writer adds one new gzip member at the end of the file (`O_APPEND`): bytes already in the
/// file are never rewritten, and `zcat` reads all members as one stream. ``flush(durable:)`` makes
/// everything written so far decodable (a sync flush, then `write(2)`), so the file is always a
/// valid prefix up to the last flush even if the process dies; ``close()`` finishes the member
/// (a last flush, an empty final block, CRC-32 and size), so its text too ends at a flush point.
///
/// When the file already ends in a member a previous writer never finished (it died between two
/// flushes), opening it finishes that member at its last flush point first (never at another block
/// boundary, so no line is ever cut), dropping only the never-flushed bytes after it, and reports
/// that in ``repair`` with the lines they held; a file that is not gzip, or is
/// damaged before its end, is refused (``GzipWriterError/damagedFile(path:compressedOffset:reason:)``).
/// An exclusive `flock` keeps a second writer off the same file.
///
/// ```
///  write(bytes) ──deflate──▶ output [ compressed … | free ] ──write(2) when full or on flush──▶ file
/// ```
/// The output buffer and the engine's state (about 360 KiB with ISA-L, 256 KiB with zlib) are
/// allocated once, in `init`.
///
/// With a ``WriteSpool``, the output buffer is one of the spool's chunks: a full or flushed chunk is
/// handed to the spool's thread for `write(2)` and the writer goes on with a fresh chunk, so a slow
/// disk does not stall the caller until the spool's limit is reached. Errors of those writes come
/// back through the spool and make this writer fail at its next call.
///
/// Errors are typed and sticky: after a failed `write(2)` (e.g. `ENOSPC`, `EIO`) every call throws
/// the same ``GzipWriterError``, which carries the path and `errno`.
///
/// Confined to one task; not `Sendable`.
@safe
public final class GzipWriter {
    /// The file's path, for messages.
    public let path: String
    /// What opening did to an unfinished end left by an earlier writer, or `nil` if nothing.
    public let repair: GzipTailRepair?
    private let descriptor: Int32
    /// The compressor of this writer's member.
    private let engine: DeflateEngine
    private var output: UnsafeMutableRawBufferPointer
    /// The spool doing this writer's `write(2)`/`close(2)` calls, and this file's handle in it.
    private let spool: WriteSpool?
    private var spoolFile: WriteSpool.File? = nil
    /// Compressed bytes in `output` not yet written.
    private var pending = 0
    private var state = State.open
    /// Whether `descriptor` still needs closing by this writer.
    private var ownsOpenDescriptor = true
    /// Whether `output` is still this writer's (with a spool, the last chunk is the spool's to free).
    private var holdsOutput = true
    /// How far ``compressFlush()`` took the next flush ahead: `none`, all of it (`done`), or up to a
    /// full output buffer (`partial`: the buffer must be written out before the flush goes on).
    private var compressedAhead = CompressedAhead.none

    private enum CompressedAhead {
        case none, partial, done
    }

    /// The file's descriptor (tests use it to model a forked child sharing it).
    package var fileDescriptor: Int32 { descriptor }

    /// Uncompressed bytes taken by ``write(_:)`` so far.
    public private(set) var uncompressedByteCount: UInt64 = 0
    /// Compressed bytes written to the file by this writer so far — with a spool, handed to the spool
    /// (repairs not counted).
    public private(set) var compressedByteCount: UInt64 = 0

    /// Test hook: the library compressing this member, `"isal"` or `"zlib"` (see ``DeflateEngine``).
    package var compressor: String { engine.library }

    /// Test hook: make `write(2)` fail with `errno` once `compressedByteCount` would pass `afterBytes`
    /// (writing up to that point first, as a full disk does).
    package var injectedFailure: (afterBytes: UInt64, errno: Int32)? = nil

    private enum State {
        case open
        case failed(GzipWriterError)
        case closed
    }

    /// The default compression level: 1, ISA-L's fastest full level (see ``DeflateEngine``).
    public static let defaultLevel: Int32 = 1

    /// Opens (or creates, mode 0644) the file at `path` for appending a new gzip member.
    ///
    /// - Parameters:
    ///   - level: 0 (store) … 9 (smallest); 1…3 run on ISA-L, 0 and 4…9 on zlib (see ``DeflateEngine``).
    ///   - outputCapacity: size of the compressed-output buffer; a full buffer is written out.
    ///   - spool: does the writes (and the final close) on its thread; `outputCapacity` is then its chunk size.
    ///   - finishedAt: a size at which the file is known to end in a finished member (this process closed
    ///     it there): if it still has that size, the scan for an unfinished member is skipped.
    /// - Throws: ``GzipWriterError/cannotOpen(path:errno:)``, ``GzipWriterError/busy(path:)``,
    ///   ``GzipWriterError/damagedFile(path:compressedOffset:reason:)``,
    ///   ``GzipWriterError/repairFailed(path:errno:)``, ``GzipWriterError/compressorUnavailable(path:reason:)``.
    /// - Complexity: O(1), plus one decoding pass over an existing non-empty file to find a clean end
    ///   (none when its size is `finishedAt`).
    /// - Allocations: the buffers and the engine's state, once.
    public convenience init(
        path: String, level: Int32 = GzipWriter.defaultLevel, outputCapacity: Int = 64 * 1024, spool: WriteSpool? = nil,
        finishedAt: UInt64? = nil
    ) throws(GzipWriterError) {
        var fd: Int32
        repeat {
            // SAFETY: `path` is bridged to a NUL-terminated C string that lives for the call.
            fd = unsafe open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw GzipWriterError.cannotOpen(path: path, errno: errno) }
        var info = stat()
        // SAFETY: `info` is a properly aligned local `stat` that `fstat` fills in.
        guard unsafe fstat(fd, &info) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw GzipWriterError.cannotOpen(path: path, errno: code)
        }
        let isRegular = info.st_mode & S_IFMT == S_IFREG
        if isRegular && flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            Glibc.close(fd)
            if code == EWOULDBLOCK { throw GzipWriterError.busy(path: path) }
            throw GzipWriterError.cannotOpen(path: path, errno: code)
        }
        try self.init(
            descriptor: fd, path: path, level: level, outputCapacity: outputCapacity,
            existingSize: isRegular ? UInt64(info.st_size) : 0, finishedAt: finishedAt, spool: spool)
    }

    /// Takes over `descriptor` (closed on every path from here on).
    private init(
        descriptor: Int32, path: String, level: Int32, outputCapacity: Int, existingSize: UInt64, finishedAt: UInt64?,
        spool: WriteSpool?
    ) throws(GzipWriterError) {
        precondition(level >= 0 && level <= 9, "gzip level must be in 0...9")
        precondition(outputCapacity >= 64 && outputCapacity <= Int(UInt32.max), "outputCapacity out of range")
        let output =
            unsafe spool?.acquire() ?? UnsafeMutableRawBufferPointer.allocate(byteCount: outputCapacity, alignment: 16)
        func giveUp(_ error: GzipWriterError) -> GzipWriterError {
            if let spool { unsafe spool.recycle(output) } else { unsafe output.deallocate() }
            closeUnlocking(descriptor)
            return error
        }
        var repair: GzipTailRepair? = nil
        if existingSize > 0 && existingSize != finishedAt {
            do {
                repair = try unsafe Self.finishUnfinishedMember(
                    descriptor: descriptor, size: existingSize, path: path, scratch: output)
            } catch {
                throw giveUp(error)
            }
        }
        let engine: DeflateEngine
        do throws(DeflateEngineError) {
            engine = try DeflateEngine(level: level)
        } catch {
            throw giveUp(.compressorUnavailable(path: path, reason: error.reason))
        }
        self.path = path
        self.repair = repair
        self.descriptor = descriptor
        self.engine = engine
        unsafe self.output = output
        self.spool = spool
        spoolFile = spool?.register(descriptor: descriptor, path: path)
    }

    deinit {
        // Best effort for a writer dropped without close(): finish the member so the file stays whole.
        if case .open = state {
            try? finish()
        }
        if let spool {
            if holdsOutput { unsafe spool.recycle(output) }
        } else {
            unsafe output.deallocate()
        }
        _ = closeDescriptor()
    }

    /// Compresses `bytes` into the member. Compressed output is written to the file whenever the
    /// output buffer fills, so not everything written is on disk before ``flush(durable:)``.
    ///
    /// - Throws: ``GzipWriterError/writeFailed(path:errno:)`` (sticky).
    /// - Precondition: the writer is not closed.
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public func write(_ bytes: Span<UInt8>) throws(GzipWriterError) {
        try checkOpen()
        guard !bytes.isEmpty else { return }
        if compressedAhead != .none { try settleCompressedAhead() }
        try unsafe bytes.withUnsafeBytes { buffer throws(GzipWriterError) in
            // SAFETY: the engine reads `buffer` only during the call.
            try unsafe deflateAll(buffer, .none)
        }
        uncompressedByteCount += UInt64(bytes.count)
    }

    /// Makes everything written so far decodable from the file: a sync flush (an empty stored block, as
    /// zlib's `Z_SYNC_FLUSH` writes), then `write(2)` of
    /// all pending output; with `durable`, also `fsync(2)`.
    ///
    /// Afterwards `zcat` decodes the file up to here (and then reports an unexpected end, since the
    /// member is not finished yet).
    ///
    /// - Throws: ``GzipWriterError/writeFailed(path:errno:)``, ``GzipWriterError/syncFailed(path:errno:)``.
    /// - Complexity: O(pending output). - Allocations: none.
    public func flush(durable: Bool = false) throws(GzipWriterError) {
        try checkOpen()
        if compressedAhead == .none {
            try unsafe deflateAll(UnsafeRawBufferPointer(start: nil, count: 0), .sync)
        } else {
            try settleCompressedAhead()
        }
        // In a batch (a flush of every open file) the output goes into the spool's shared chunk and
        // this writer keeps its own.
        try writePending(packed: spool?.isBatching == true)
        if durable, let spool {
            spool.drain()
            try checkOpen()
        }
        if durable && fsync(descriptor) != 0 {
            try fail(.syncFailed(path: path, errno: errno))
        }
    }

    /// The compressing half of ``flush(durable:)``, done ahead, possibly on another thread while the
    /// writer's own thread waits for it (``CaptureWriter``'s flush of every open file shares this work
    /// between two threads): the sync flush of everything written so far, compressed into the output
    /// buffer, with no system call and no hand-off to the spool. The next ``flush(durable:)`` then only
    /// hands the output on; if the buffer filled first, it writes the buffer out and finishes the flush.
    /// The file's bytes are then those of the ``flush(durable:)`` alone. (A ``write(_:)`` or ``close()``
    /// in its place finishes the flush too and keeps every line, though not always the same bytes: the
    /// text that follows lands after the flush's output in the buffer, and a flush marker depends on
    /// the room left.)
    ///
    /// Does nothing on a writer that is not open or was already compressed ahead (a failed writer
    /// throws at its next call as before).
    ///
    /// - Precondition: the next call on this writer is ``flush(durable:)`` (``write(_:)`` and
    ///   ``close()`` also work, as if that flush had been made).
    /// - Complexity: O(bytes staged since the last flush). - Allocations: none.
    package func compressFlush() {
        guard case .open = state, compressedAhead == .none else { return }
        // An incomplete step filled the buffer (see ``DeflateEngine/deflate(_:into:flush:)``).
        compressedAhead = unsafe step(UnsafeRawBufferPointer(start: nil, count: 0), .sync).complete ? .done : .partial
    }

    /// Finishes a flush ``compressFlush()`` began: writes a full buffer out and, when the flush
    /// stopped at one, goes on with it, exactly as ``deflateAll(_:_:)`` would have.
    private func settleCompressedAhead() throws(GzipWriterError) {
        let ahead = compressedAhead
        compressedAhead = .none
        if unsafe pending == output.count { try writePending() }
        if ahead == .partial { try unsafe deflateAll(UnsafeRawBufferPointer(start: nil, count: 0), .sync) }
    }

    /// Finishes the member (last block, CRC-32, size), writes it out and closes the file.
    ///
    /// Closing a closed writer does nothing; closing a failed one closes the descriptor and throws
    /// its error.
    ///
    /// - Complexity: O(pending output). - Allocations: none.
    public func close() throws(GzipWriterError) {
        switch state {
        case .closed:
            return
        case .failed(let error):
            state = .closed
            _ = closeDescriptor()
            throw error
        case .open:
            break
        }
        do {
            try finish()
        } catch {
            state = .closed
            _ = closeDescriptor()
            throw error
        }
        state = .closed
        // EINTR from close(2) on Linux still releases the descriptor; it is not an error to report.
        if let code = closeDescriptor(), code != EINTR {
            throw GzipWriterError.closeFailed(path: path, errno: code)
        }
    }

    /// Test hook: closes the descriptor without finishing the member or writing pending output, as
    /// if the process had died.
    package func abandon() {
        guard case .open = state else { return }
        state = .closed
        _ = closeDescriptor()
    }

    /// Closes the descriptor if this writer owns it and has not closed it yet; the `errno` of a failure.
    /// With a spool, queues the close after the file's writes (its error comes back through the spool).
    private func closeDescriptor() -> Int32? {
        guard ownsOpenDescriptor else { return nil }
        ownsOpenDescriptor = false
        if let spool, let spoolFile {
            spool.close(file: spoolFile)
            return nil
        }
        return closeUnlocking(descriptor) == 0 ? nil : errno
    }

    // MARK: - Internals

    /// Ends the member: a sync flush first, so that its text ends at a flush point like every flush
    /// (readers of growing files such as `load` read only up to the last one), then the final block
    /// (empty) and the trailer.
    private func finish() throws(GzipWriterError) {
        // A flush compressed ahead is finished first, as the flush it stands for would have been.
        if compressedAhead != .none { try settleCompressedAhead() }
        try unsafe deflateAll(UnsafeRawBufferPointer(start: nil, count: 0), .sync)
        try unsafe deflateAll(UnsafeRawBufferPointer(start: nil, count: 0), .finish)
        try writePending(last: true)
    }

    private func checkOpen() throws(GzipWriterError) {
        switch state {
        case .open:
            // Per line: one atomic load, no copy of the spool or of its file record (their retains were
            // about 5% of capture's time at 10,000 channels); the failure itself is looked up only then.
            if spool?.hasFailures == true { try checkSpool() }
            return
        case .failed(let error): throw error
        case .closed: preconditionFailure("\(path): GzipWriter used after close()")
        }
    }

    /// Fails the writer when the spool failed to write its file.
    @inline(never)
    private func checkSpool() throws(GzipWriterError) {
        if let spool, let spoolFile, let error = spool.failure(of: spoolFile) { try fail(error) }
    }

    /// Runs the engine with `flush` until it has taken all of `input` (`.none`), emitted the flush
    /// (`.sync`) or ended the member (`.finish`), writing the output buffer out whenever it fills.
    private func deflateAll(_ input: UnsafeRawBufferPointer, _ flush: DeflateEngine.Flush) throws(GzipWriterError) {
        let capacity = unsafe output.count
        var taken = 0
        while true {
            // SAFETY: `taken <= end <= input.count`.
            let end = taken + min(input.count - taken, Int(UInt32.max))
            let step = unsafe step(UnsafeRawBufferPointer(rebasing: input[taken..<end]), flush)
            taken += step.consumed
            let filled = pending == capacity
            if filled { try writePending() }
            if step.complete { return }
            // An incomplete step filled the output; anything else would loop for ever.
            precondition(filled, "the deflate engine stopped without progress")
        }
    }

    /// One call of the engine from `input` into the free part of the output buffer; `pending` grows by
    /// what it produced. (``deflateAll(_:_:)`` and ``compressFlush()``.)
    private func step(_ input: UnsafeRawBufferPointer, _ flush: DeflateEngine.Flush) -> DeflateEngine.Step {
        // SAFETY: `pending < output.count` (a full buffer is always written out before the next step),
        // so the free part is not empty.
        let step = unsafe engine.deflate(
            input, into: UnsafeMutableRawBufferPointer(rebasing: output[pending...]), flush: flush)
        pending += step.produced
        return step
    }

    /// Writes the pending compressed bytes with `write(2)`, retrying short writes and `EINTR` — or
    /// hands them to the spool and goes on with a fresh chunk.
    /// `last`: the member's end; with a spool, the chunk goes without a new one in return, so a close
    /// never waits for the spool. `packed`: with a spool, the bytes are copied into its batch
    /// (``WriteSpool/pack(_:file:failWith:)``) and the chunk stays.
    private func writePending(last: Bool = false, packed: Bool = false) throws(GzipWriterError) {
        guard pending > 0 else { return }
        // A full disk (test hook): only the bytes up to the limit go out, then the write fails.
        var count = pending
        var failWith: Int32? = nil
        if let injected = injectedFailure {
            let room = injected.afterBytes > compressedByteCount ? injected.afterBytes - compressedByteCount : 0
            if room == 0 { try fail(.writeFailed(path: path, errno: injected.errno)) }
            if room < UInt64(count) {
                count = Int(room)
                failWith = injected.errno
            }
        }
        if let spool, let spoolFile {
            do throws(GzipWriterError) {
                if packed && !last {
                    // SAFETY: `count <= pending <= output.count` bytes initialised by deflate, copied by the call.
                    try unsafe spool.pack(
                        UnsafeRawBufferPointer(rebasing: output[..<count]), file: spoolFile, failWith: failWith)
                } else if last {
                    try unsafe spool.submitLast(output, count: count, file: spoolFile, failWith: failWith)
                    holdsOutput = false
                } else {
                    unsafe output = try unsafe spool.submit(output, count: count, file: spoolFile, failWith: failWith)
                }
            } catch {
                try fail(error)
            }
            compressedByteCount += UInt64(count)
            pending = 0
            return
        }
        // SAFETY: `count <= pending <= output.count` bytes initialised by deflate.
        let (written, code) = unsafe writeFully(descriptor, output.baseAddress!, count: count)
        compressedByteCount += UInt64(written)
        if let code = code ?? failWith { try fail(.writeFailed(path: path, errno: code)) }
        pending = 0
    }

    private func fail(_ error: GzipWriterError) throws(GzipWriterError) -> Never {
        state = .failed(error)
        throw error
    }

    /// Finishes a member an earlier writer left open, so that the new member follows a complete one.
    private static func finishUnfinishedMember(
        descriptor: Int32, size: UInt64, path: String, scratch: UnsafeMutableRawBufferPointer
    ) throws(GzipWriterError) -> GzipTailRepair? {
        guard let fix = try unsafe GzipTailScan.scan(descriptor: descriptor, size: size, path: path, scratch: scratch)
        else { return nil }
        if fix.truncateTo < size && ftruncate(descriptor, off_t(fix.truncateTo)) != 0 {
            throw GzipWriterError.repairFailed(path: path, errno: errno)
        }
        // SAFETY: the suffix array outlives the call.
        let (_, code) = unsafe fix.suffix.withUnsafeBytes { raw in
            unsafe raw.isEmpty ? (0, nil) : writeFully(descriptor, raw.baseAddress!, count: raw.count)
        }
        if let code { throw GzipWriterError.repairFailed(path: path, errno: code) }
        return GzipTailRepair(
            offset: fix.truncateTo, droppedByteCount: size - fix.truncateTo, memberSize: fix.memberSize,
            droppedLineCount: fix.droppedLines, droppedPartialLine: fix.droppedPartialLine,
            droppedTextByteCount: fix.droppedTextBytes)
    }
}

@available(*, unavailable)
extension GzipWriter: Sendable {}
