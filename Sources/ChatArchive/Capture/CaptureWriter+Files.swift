import ChatGzip

/// Opening and closing the files of lanes: at most ``CaptureOptions/maxOpenFiles`` open, the least
/// recently written closed first, a closed file reopened with a new gzip member.
extension CaptureWriter {
    /// Closes files, least recently written first, until another one may be opened
    /// (``CaptureOptions/maxOpenFiles``).
    ///
    /// - Complexity: O(open files), only when a file is about to be opened; waits for the writer
    ///   thread only while more than ``closingSlack`` closes are queued.
    func closeLeastRecentlyWritten(besides lane: CaptureLane) throws(CaptureError) {
        while openLanes.count >= max(1, options.maxOpenFiles) {
            var oldest: CaptureLane? = nil
            for open in openLanes where open !== lane && open.lastUse < (oldest?.lastUse ?? .max) { oldest = open }
            guard let oldest else { return }
            try closeFile(of: oldest)
        }
        // A closed file keeps its descriptor until the writer thread gets to its close: bound those too.
        spool.waitForCloses(atMost: Self.closingSlack)
    }

    /// Files closed but not yet released by the writer thread that may stay open beside
    /// ``CaptureOptions/maxOpenFiles``.
    static let closingSlack = 8

    /// Opens `lane`'s file for `period`, at continuation `index` or (size rotation) the first one after
    /// it that is still under the limit.
    func openFile(of lane: CaptureLane, period: Int64, index: Int) throws(CaptureError) {
        // Reopening a file this capture closed: its close (which releases the file's lock) and its last
        // chunks may still be queued, so wait for the spool first. The file then ends in the member
        // finished at that close, so it needs no scan for an unfinished one.
        var finishedAt: (index: Int, size: UInt64)? = nil
        if let closed = lane.closedFile, closed.period == period {
            spool.drain()
            finishedAt = closed.size.map { (closed.index, $0) }
        } else if period <= lane.newestPeriod {
            // Back to a period this lane had a file of (a backfilled line from before midnight, a line
            // dated ahead and then today's again): that file's close may still be queued, holding its
            // lock. Rare (time runs forward), so waiting for the spool costs nothing per line.
            spool.drain()
        }
        var index = index
        var path = lane.directory + "/" + options.rotation.fileName(period: period, index: index)
        var existing = Self.fileSize(path)
        if case .size(let limit) = options.rotation {
            while existing >= limit {
                index += 1
                path = lane.directory + "/" + options.rotation.fileName(period: period, index: index)
                existing = Self.fileSize(path)
            }
        }
        let writer: GzipWriter
        do throws(GzipWriterError) {
            writer = try GzipWriter(
                path: path, level: options.level, outputCapacity: options.outputCapacity, spool: spool,
                finishedAt: finishedAt?.index == index ? finishedAt?.size : nil)
        } catch {
            failure = .file(error)
            throw .file(error)
        }
        writer.injectedFailure = injectedFailure
        if let repair = writer.repair {
            onNotice?(
                "\(path): finished the gzip member an earlier run left open at its last flush point; dropped "
                    + repair.droppedDescription)
        }
        lane.writer = writer
        lane.period = period
        lane.newestPeriod = max(lane.newestPeriod, period)
        lane.index = index
        lane.existingBytes = existing
        lane.dirty = false
        lane.closedFile = nil
        openLanes.append(lane)
    }

    /// Finishes and closes `lane`'s open file, if any (its flush is part of closing).
    func closeFile(of lane: CaptureLane) throws(CaptureError) {
        guard let writer = lane.writer else { return }
        lane.writer = nil
        lane.dirty = false
        lane.closedUncompressed += writer.uncompressedByteCount
        if let i = openLanes.firstIndex(where: { $0 === lane }) { openLanes.remove(at: i) }
        lane.closedFile = (lane.period, lane.index, nil)
        do throws(GzipWriterError) { try writer.close() } catch {
            // A writer that failed earlier already recorded (and reported) its error.
            if failure == nil { failure = .file(error) }
            throw .file(error)
        }
        // The file now ends in the member just finished (unless an earlier run's tail was repaired,
        // which changed its size).
        if writer.repair == nil { lane.closedFile?.size = lane.existingBytes + writer.compressedByteCount }
    }
}
