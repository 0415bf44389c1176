import ChatPosix
import Synchronization
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// A writer thread that does the `write(2)` and `close(2)` calls of many ``GzipWriter``s for one
/// producer thread, through a bounded pool of output chunks.
///
/// ```
///  producer (ingest) thread                          spool thread
///  GzipWriter ──deflate──▶ chunk ──submit──▶ [ queue of chunks, FIFO ] ──write(2)──▶ files
///        ▲                                                  │
///        └────────────── free chunks ◀──────────────────────┘
/// ```
/// Only whole chunks cross the thread boundary (one hand-off per 64 KiB of compressed output, not per
/// line). Between ``beginBatch()`` and ``endBatch()`` (a flush of every open file), the small outputs
/// of the writers' flushes are copied into shared chunks (``pack(_:file:failWith:)``), each handed over
/// once with the list of files its pieces go to: one hand-off per 64 KiB of flushed output, not one
/// per file flushed, and the writers keep their chunks (touched only as far as a flush fills them). A slow disk lets chunks queue up to ``limitBytes``; then ``submit(_:count:file:failWith:)`` stops the
/// producer until the queue has drained to half the limit: the caller stops reading its socket
/// (back-pressure) instead of dropping lines or growing memory further. Each such stop is counted
/// (``Counters/backPressureEvents``) and reported through ``onBackPressure``.
///
/// Memory: queued chunks up to `max(limitBytes, files × chunkBytes)` — a flush of every open file
/// outside a batch queues one chunk each, which must not read as a slow disk; in a batch, one chunk
/// per 64 KiB of their output — plus the chunk each open writer is filling and a batch's open pack,
/// and the compressor's state in each writer (docs/capture.md). A chunk is taken while the queue is
/// within its limit and queued when full, so the queue itself can pass the limit by those chunks
/// (each writer's and the pack) before the producer stops.
///
/// Errors: a failed `write(2)` marks its file failed; the file's later chunks are dropped (its data
/// up to the last flush stays intact), its close still closes the descriptor, and ``failure(of:)``
/// and ``firstFailure`` report the error to the producer, which makes it sticky.
///
/// Thread safety: ``submit(_:count:file:failWith:)``, ``acquire()``, ``recycle(_:)``, ``close(file:)``,
/// ``drain()`` and ``shutdown()`` are for the one producer thread; the counters may be read from
/// any thread. After ``shutdown()``, jobs still handed in (a writer released late) run on the caller.
@safe
public final class WriteSpool: @unchecked Sendable {
    /// A file registered with the spool: its descriptor (owned by the spool from then on) and path.
    public struct File: Sendable, Equatable {
        let id: Int
        let descriptor: Int32
        let path: String
    }

    /// What the spool has done so far.
    public struct Counters: Sendable, Equatable {
        /// Times the producer had to stop because the queue was full.
        public var backPressureEvents = 0
        /// Milliseconds the producer spent stopped, in all.
        public var backPressureMs: Int64 = 0
        /// Compressed bytes written to files.
        public var writtenBytes: UInt64 = 0
        /// Compressed bytes waiting in the queue now, and the most there ever were.
        public var queuedBytes = 0
        public var peakQueuedBytes = 0
    }

    /// A stop of the producer: when it began (with the bytes queued), and when it ended.
    public enum BackPressure: Sendable, Equatable {
        case began(queuedBytes: Int, limitBytes: Int)
        case ended(afterMs: Int64, event: Int)
    }

    @safe enum Job {
        case write(File, UnsafeMutableRawBufferPointer, count: Int, failWith: Int32?)
        /// Pieces of several files' output, in one chunk (``pack(_:file:failWith:)``).
        case pack(Pack)
        case close(File)
    }

    /// Size of each chunk.
    public let chunkBytes: Int
    /// Most chunk bytes queued before the producer stops.
    public let limitBytes: Int
    /// Called on the producer thread when it stops for, and resumes after, a full queue.
    public var onBackPressure: ((BackPressure) -> Void)? = nil
    /// Called on the producer thread about every ``stallCallbackMs`` while it waits for the spool (a
    /// full queue, ``drain()``), without the lock: what the producer would otherwise do on time (a
    /// status line) can go on while the disk is behind. It must not hand the spool anything.
    public var onStalled: (() -> Void)? = nil
    public var stallCallbackMs = 100

    /// Guards the state below.
    private let monitor = PosixMonitor(conditions: 2)
    /// Signalled when a job is queued or the spool shuts down.
    private static let workReady = PosixMonitor.Condition(0)
    /// Signalled when a chunk is freed or the queue empties.
    private static let spaceReady = PosixMonitor.Condition(1)
    // Guarded by `monitor`:
    private var jobs: [Job] = []
    private var jobHead = 0
    private var free: [UnsafeMutableRawBufferPointer] = unsafe []
    private var allocatedChunks = 0
    private var busy = false
    /// Closes queued and not yet done: each still holds its descriptor. Lock held.
    private var pendingCloses = 0
    private var stopping = false
    private var counters = Counters()
    private var failures: [Int: GzipWriterError] = [:]
    private var first: GzipWriterError? = nil
    /// Packs written and free for the producer to fill again (their chunks are back in `free`).
    var freePacks: [Pack] = []
    // Producer only:
    private var nextID = 0
    /// The pack being filled, not yet queued.
    var openPack: Pack? = nil
    /// Whether a batch is open (``beginBatch()``): writers then ``pack(_:file:failWith:)`` the output
    /// of their flushes instead of handing over their chunks. For ``GzipWriter`` and tests.
    package internal(set) var isBatching = false
    private var thread: PosixThread? = nil
    /// Non-zero once any file failed: lets writers skip the lock on their fast path.
    private let failureCount = Atomic<Int>(0)

    /// Starts the spool thread.
    ///
    /// - Parameters:
    ///   - chunkBytes: size of each output chunk (a writer's compressed-output buffer).
    ///   - limitBytes: most bytes of chunks queued before the producer waits (at least one chunk).
    /// - Allocations: the lock and condition variables; chunks are allocated on demand up to the limit.
    public init(chunkBytes: Int = 64 * 1024, limitBytes: Int = 16 << 20) {
        precondition(chunkBytes >= 64, "chunks of at least 64 bytes")
        self.chunkBytes = chunkBytes
        self.limitBytes = max(limitBytes, chunkBytes)
        thread = PosixThread { [unowned(unsafe) self] in unsafe self.runWriter() }
    }

    deinit {
        shutdown()
        if let pack = openPack { unsafe free.append(pack.chunk) }
        // `for unsafe … in` is misread by swift-format (it drops the space); pop the chunks instead.
        while let chunk = unsafe free.popLast() { unsafe chunk.deallocate() }
    }

    // MARK: - Producer side

    /// Hands `descriptor` to the spool: from now on only the spool writes to or closes it.
    public func register(descriptor: Int32, path: String) -> File {
        nextID += 1
        return File(id: nextID, descriptor: descriptor, path: path)
    }

    /// A chunk to fill (a free one, else a new one) while the queue is within its limit (see
    /// `queueLimit`); past it, first waits until the queue has drained to half of it (back-pressure).
    ///
    /// - Complexity: O(1) unless it waits. - Allocations: a chunk, until the pool has enough.
    public func acquire() -> UnsafeMutableRawBufferPointer {
        lock()
        if counters.queuedBytes <= queueLimit {
            let chunk = unsafe takeChunk()
            unlock()
            return unsafe chunk
        }
        // Full: stop the producer until the queue has drained to half the limit.
        counters.backPressureEvents += 1
        let event = counters.backPressureEvents
        let queued = counters.queuedBytes
        let limit = queueLimit
        unlock()
        onBackPressure?(.began(queuedBytes: queued, limitBytes: limit))
        let start = Moment.now().monotonicMs
        lock()
        while counters.queuedBytes > queueLimit / 2 { waitForSpace() }
        let chunk = unsafe takeChunk()
        let waited = Moment.now().monotonicMs - start
        counters.backPressureMs += waited
        unlock()
        onBackPressure?(.ended(afterMs: waited, event: event))
        return unsafe chunk
    }

    /// Most bytes of chunks that may wait in the queue: ``limitBytes``, or one chunk per open writer
    /// if that is more (a flush of every open file queues one chunk each, which is no sign of a slow
    /// disk). The chunks the writers hold while filling them are not queued and do not count. Lock held.
    ///
    /// `allocatedChunks - free.count` chunks are queued or held; `queuedBytes / chunkBytes` are queued,
    /// so the rest (plus the writer asking now) are the open writers' chunks.
    private var queueLimit: Int {
        let held = unsafe allocatedChunks - free.count - counters.queuedBytes / chunkBytes
        return max(limitBytes, (held + 1) * chunkBytes)
    }

    /// A free chunk, or a new one. Lock held.
    private func takeChunk() -> UnsafeMutableRawBufferPointer {
        if let chunk = unsafe free.popLast() { return unsafe chunk }
        allocatedChunks += 1
        return .allocate(byteCount: chunkBytes, alignment: 16)
    }

    /// Queues the first `count` bytes of `chunk` for writing to `file` and returns a chunk to fill
    /// next (see ``acquire()``: this is where the producer waits when the queue is full).
    ///
    /// - Throws: the file's error if an earlier write to it failed (the chunk is kept by the caller).
    /// - Complexity: O(1) amortised unless it waits. - Allocations: none once the pool is warm.
    public func submit(_ chunk: UnsafeMutableRawBufferPointer, count: Int, file: File, failWith: Int32? = nil)
        throws(GzipWriterError) -> UnsafeMutableRawBufferPointer
    {
        if let error = failure(of: file) { throw error }
        precondition(count > 0 && count <= chunk.count)
        commitPack()
        enqueue(unsafe .write(file, chunk, count: count, failWith: failWith), bytes: chunkBytes)
        return unsafe acquire()
    }

    /// Queues the first `count` bytes of `chunk` for writing to `file`, as the writer's last: no chunk
    /// comes back (the spool frees this one once written) and the producer never waits here, so
    /// closing a file never stops it.
    ///
    /// - Throws: the file's error if an earlier write to it failed (the chunk is kept by the caller).
    public func submitLast(_ chunk: UnsafeMutableRawBufferPointer, count: Int, file: File, failWith: Int32? = nil)
        throws(GzipWriterError)
    {
        if let error = failure(of: file) { throw error }
        precondition(count > 0 && count <= chunk.count)
        commitPack()
        enqueue(unsafe .write(file, chunk, count: count, failWith: failWith), bytes: chunkBytes)
    }

    /// Queues closing `file`'s descriptor after its queued writes.
    public func close(file: File) {
        commitPack()
        enqueue(.close(file), bytes: 0)
    }

    /// Waits until at most `count` queued closes are left: each holds a descriptor until the writer
    /// thread gets to it, so a producer that bounds its open files bounds these too.
    ///
    /// - Complexity: O(1) when the writer keeps up; otherwise waits.
    public func waitForCloses(atMost count: Int) {
        lock()
        while pendingCloses > count { waitForSpace() }
        unlock()
    }

    /// Gives back a chunk a writer no longer needs.
    public func recycle(_ chunk: UnsafeMutableRawBufferPointer) {
        lock()
        unsafe free.append(chunk)
        monitor.broadcast(Self.spaceReady)
        unlock()
    }

    /// Waits until every queued job is done.
    public func drain() {
        commitPack()
        lock()
        while jobHead < jobs.count || busy { waitForSpace() }
        unlock()
    }

    /// Waits (lock held) for `spaceReady`, at most ``stallCallbackMs``; on a timeout, calls
    /// ``onStalled`` without the lock.
    private func waitForSpace() {
        if !monitor.wait(Self.spaceReady, milliseconds: stallCallbackMs), let onStalled {
            unlock()
            onStalled()
            lock()
        }
    }

    /// Finishes every queued job and ends the spool thread. Later jobs run on the caller's thread.
    public func shutdown() {
        guard let thread else { return }
        commitPack()
        self.thread = nil
        lock()
        stopping = true
        monitor.signal(Self.workReady)
        unlock()
        thread.join()
    }

    /// The error of `file`'s first failed write or close, if any.
    ///
    /// - Complexity: O(1); takes the lock only once some file has failed.
    /// Whether any file failed to write (then ``failure(of:)`` says which).
    ///
    /// - Complexity: O(1): one atomic load. - Allocations: none.
    var hasFailures: Bool { failureCount.load(ordering: .acquiring) > 0 }

    public func failure(of file: File) -> GzipWriterError? {
        guard failureCount.load(ordering: .acquiring) > 0 else { return nil }
        lock()
        defer { unlock() }
        return failures[file.id]
    }

    /// The first error of any file, if any.
    public var firstFailure: GzipWriterError? {
        guard failureCount.load(ordering: .acquiring) > 0 else { return nil }
        lock()
        defer { unlock() }
        return first
    }

    /// A snapshot of the counters.
    public var counterSnapshot: Counters {
        lock()
        defer { unlock() }
        return counters
    }

    // MARK: - Spool thread

    func enqueue(_ job: Job, bytes: Int) {
        lock()
        if stopping {
            // After shutdown (e.g. a writer released late closes its file): do it here, in order.
            counters.queuedBytes += bytes
            unlock()
            let (written, error) = perform(job)
            lock()
            finished(job, written: written, error: error)
            unlock()
            return
        }
        if jobHead > 0 && jobHead == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            jobHead = 0
        }
        jobs.append(job)
        if case .close = job { pendingCloses += 1 }
        counters.queuedBytes += bytes
        counters.peakQueuedBytes = max(counters.peakQueuedBytes, counters.queuedBytes)
        monitor.signal(Self.workReady)
        unlock()
    }

    private func runWriter() {
        lock()
        while true {
            while jobHead == jobs.count && !stopping {
                monitor.wait(Self.workReady)
            }
            if jobHead == jobs.count { break }
            let job = jobs[jobHead]
            jobHead += 1
            busy = true
            unlock()
            let (written, error) = perform(job)
            lock()
            busy = false
            finished(job, written: written, error: error)
        }
        unlock()
    }

    /// Books a done job: frees its chunk, counts, records a failure, wakes the producer. Lock held.
    private func finished(_ job: Job, written: Int, error: GzipWriterError?) {
        counters.writtenBytes += UInt64(written)
        switch job {
        case .write(let file, let chunk, _, _):
            unsafe free.append(chunk)
            counters.queuedBytes -= chunkBytes
            if let error { record(error, of: file) }
        case .pack(let pack):
            unsafe free.append(pack.chunk)
            pack.used = 0
            pack.pieces.removeAll(keepingCapacity: true)
            freePacks.append(pack)
            counters.queuedBytes -= chunkBytes
        case .close(let file):
            pendingCloses = max(0, pendingCloses - 1)  // a close done at once after shutdown was never counted
            if let error { record(error, of: file) }
        }
        monitor.broadcast(Self.spaceReady)
    }

    /// Marks `file` failed with `error`, unless it already is. Lock held.
    private func record(_ error: GzipWriterError, of file: File) {
        guard failures[file.id] == nil else { return }
        failures[file.id] = error
        if first == nil { first = error }
        failureCount.add(1, ordering: .releasing)
    }

    /// Does one job without the lock; returns the bytes written and the error, if any.
    private func perform(_ job: Job) -> (Int, GzipWriterError?) {
        switch job {
        case .close(let file):
            // EINTR from close(2) on Linux still releases the descriptor; it is not an error to report.
            if closeUnlocking(file.descriptor) != 0 && errno != EINTR {
                return (0, .closeFailed(path: file.path, errno: errno))
            }
            return (0, nil)
        case .write(let file, let chunk, let count, let failWith):
            if failure(of: file) != nil { return (0, nil) }  // the file failed: drop its later chunks
            // SAFETY: the chunk holds `count` bytes and is not touched by the producer until freed.
            let (done, code) = unsafe writeFully(file.descriptor, chunk.baseAddress!, count: count)
            return (done, (code ?? failWith).map { .writeFailed(path: file.path, errno: $0) })
        case .pack(let pack):
            // Each piece as a write of its own; a failed one marks its file failed at once, so that its
            // later pieces (in this pack or later ones) are dropped, as a failed file's chunks are.
            var total = 0
            for piece in pack.pieces where failure(of: piece.file) == nil {
                // SAFETY: the piece lies within the pack's chunk, which the producer does not touch until freed.
                let (done, code) = unsafe writeFully(
                    piece.file.descriptor, pack.chunk.baseAddress!.advanced(by: piece.offset), count: piece.count)
                total += done
                if let code = code ?? piece.failWith {
                    lock()
                    record(.writeFailed(path: piece.file.path, errno: code), of: piece.file)
                    unlock()
                }
            }
            return (total, nil)
        }
    }

    func lock() { monitor.lock() }
    func unlock() { monitor.unlock() }
}
