/// Batches: the small outputs of many files' flushes share chunks (see ``WriteSpool``).
///
/// ```
///  beginBatch()  ─ flush of file A ─▶ pack [ A's piece | B's piece | … ] ──queued when full or at endBatch()──▶ spool
///                ─ flush of file B ─▶        (a chunk of the pool)          one write(2) per piece, in order
/// ```
/// Anything else queued (a full chunk, a file's last chunk, a close) queues the open pack first, so
/// every file's bytes reach it in the order they were handed in.
extension WriteSpool {
    /// One piece of a ``Pack``: `count` bytes at `offset` in the pack's chunk, for `file`.
    struct Piece {
        let file: File
        let offset: Int
        let count: Int
        let failWith: Int32?
    }

    /// A chunk shared by the flushes of many files and its pieces. Filled by the producer, then owned
    /// by the spool thread until written; recycled (its piece list keeps its capacity), so a warm
    /// spool allocates none.
    @safe final class Pack: @unchecked Sendable {  // handed between the threads under the lock
        var chunk: UnsafeMutableRawBufferPointer
        var used = 0
        var pieces: [Piece] = []

        init(chunk: UnsafeMutableRawBufferPointer) { unsafe self.chunk = chunk }
    }

    /// Opens a batch: until ``endBatch()``, packed pieces are gathered into shared chunks, each handed
    /// to the spool thread when full. Batches do not nest (the one caller, a flush of every open
    /// file, never opens one inside another).
    ///
    /// - Precondition: no batch is open.
    public func beginBatch() {
        precondition(!isBatching, "beginBatch() inside a batch")
        isBatching = true
    }

    /// Closes the batch and queues the pack being filled.
    ///
    /// - Precondition: a batch is open.
    /// - Complexity: O(1); never waits.
    public func endBatch() {
        precondition(isBatching, "endBatch() without beginBatch()")
        isBatching = false
        commitPack()
    }

    /// Copies `bytes` (a writer's flushed output for `file`) into the pack being filled, to be
    /// written after everything queued for `file` before. A full pack is queued and a fresh one taken,
    /// which waits while the queue is over its limit (back-pressure, as ``acquire()``).
    ///
    /// - Throws: the file's error if an earlier write to it failed.
    /// - Precondition: `bytes` is not empty and at most ``chunkBytes``.
    /// - Complexity: O(`bytes.count`), amortised. - Allocations: none once the spool is warm.
    public func pack(_ bytes: UnsafeRawBufferPointer, file: File, failWith: Int32? = nil) throws(GzipWriterError) {
        if let error = failure(of: file) { throw error }
        precondition(bytes.count > 0 && bytes.count <= chunkBytes)
        if let open = openPack, open.used + bytes.count > chunkBytes { commitPack() }
        let pack = openPack ?? takePack()
        openPack = pack
        // SAFETY: `used + bytes.count <= chunkBytes` (checked above), the size of the pack's chunk.
        unsafe pack.chunk.baseAddress!.advanced(by: pack.used).copyMemory(
            from: bytes.baseAddress!, byteCount: bytes.count)
        pack.pieces.append(Piece(file: file, offset: pack.used, count: bytes.count, failWith: failWith))
        pack.used += bytes.count
    }

    /// A free pack with a chunk to fill (``acquire()``: it may wait for the disk).
    private func takePack() -> Pack {
        let chunk = unsafe acquire()
        lock()
        let pack = freePacks.popLast()
        unlock()
        guard let pack else { return unsafe Pack(chunk: chunk) }
        unsafe pack.chunk = chunk
        return pack
    }

    /// Queues the pack being filled, if any.
    func commitPack() {
        guard let pack = openPack else { return }
        openPack = nil
        enqueue(.pack(pack), bytes: chunkBytes)
    }
}
