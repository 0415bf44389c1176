import ChatFormat
import ChatInput
public import ChatPosix
import ChatStore
import IRCWire
public import TwitchSession

/// Ships a capture directory into ClickHouse and keeps following it: the engine of `chatcap load`.
///
/// One thread does everything, in rounds: list the directory (every ``LoadOptions/scanIntervalMs``),
/// read new complete lines from the files (each open file at most a slice of the batch per round, so a
/// backlog in one does not hold up the others), encode them as rows (``ClickHouseRow``), and send the
/// batch when it is full or its first row has waited ``LoadOptions/batchDelayMs``. With a records
/// client, the session files (`DIR/_session/`) are read too: their records (``ClickHouseRecordRow``:
/// gaps, start and stop, joins and parts…) fill a second batch for the records table, their other
/// lines (connection lines, lines of channels not joined) are passed over. Before a table's first
/// INSERT, its columns are checked (``TableCheck``).
///
/// Nothing is lost or doubled by a crash: a file's progress (``FileProgress``: the offset after the
/// last line ClickHouse acknowledged) moves only after the INSERT holding that line returned 200, and
/// is saved atomically (``LoadProgressStore``) before the next batch is read. A file whose new lines
/// make no row (a session file's connection lines) moves on at once: nothing of it needs acknowledging. A crash before the save
/// re-sends that batch from the files, which the table's ReplacingMergeTree key collapses. While
/// ClickHouse is unreachable or answers with a temporary error, the same batch is retried with back-off
/// and nothing more is read (memory stays bounded by one batch).
///
/// A capture file rewritten below what was read (a capture restarted after a crash cuts a file back
/// to its last flush point) is read again: from the last acknowledged line when that line is still
/// there, else from its start. Rows of the older reading still in flight do not move its progress.
public final class Loader {  // not Sendable: one thread runs it
    private let directory: String
    /// Chat lines' destination first, then the records' (when loaded).
    private let destinations: [LoadDestination]
    private let store: LoadProgressStore
    private let options: LoadOptions
    /// The files known, by path relative to the directory; `order` is their reading order, `active`
    /// those of them with something to do (open, or grown since they were finished), refreshed at
    /// each listing, so that a round does not walk years of finished files.
    private var files: [String: TrackedFile] = [:]
    private var order: [String] = []
    private var active: [TrackedFile] = []
    private var row = JSONWriter(capacity: 16 * 1024)
    private var nextScanMs: Int64 = 0
    /// Where the next reading round starts in `order` (round robin).
    private var cursor = 0
    private var progressDirty = false

    public private(set) var counters = LoadCounters()
    /// Notes for people (stderr), e.g. "ClickHouse unreachable …".
    public var onNotice: (String) -> Void = { _ in }
    /// Called once per round (for a status).
    public var onTick: (Moment) -> Void = { _ in }

    /// Prepares a load of `directory` with `client` (chat lines) and `recordsClient` (capture's records,
    /// `nil`: not loaded), resuming from `store`'s progress.
    ///
    /// - Throws: ``LoadError/progress(path:reason:)`` for unreadable progress.
    public init(
        directory: String, client: ClickHouseClient, recordsClient: ClickHouseClient? = nil,
        store: LoadProgressStore, options: LoadOptions
    ) throws(LoadError) {
        self.directory = directory
        destinations =
            [LoadDestination(client: client, kind: .lines, columns: ClickHouseRow.columns(options.times))]
            + (recordsClient.map {
                [LoadDestination(client: $0, kind: .records, columns: ClickHouseRecordRow.columns(options.times))]
            } ?? [])
        self.store = store
        self.options = options
        for (path, progress) in try store.load() {
            let file = TrackedFile(relativePath: path, directory: directory, acknowledged: progress)
            files[path] = file
            order.append(path)
        }
        order.sort()
    }

    /// Files whose progress is stored, and the rows acknowledged in them, when the load starts.
    public var resumed: (files: Int, rows: UInt64) {
        (files.count, files.values.reduce(0) { $0 + $1.acknowledged.lines })
    }

    /// Runs until `stop` is raised (then one last attempt to send what is pending), or with
    /// ``LoadOptions/once`` until everything listed is acknowledged.
    ///
    /// - Throws: a ``LoadError`` that retrying cannot fix (authentication, unknown table, rows
    ///   refused), an unreadable directory, or progress that cannot be saved.
    public func run(stop: StopFlag) throws(LoadError) {
        var backoffMs = options.retryBaseMs
        var lastDownNoteMs: Int64? = nil
        while true {
            let now = Moment.now()
            if stop.isRaised { break }
            if now.monotonicMs >= nextScanMs {
                try scan()
                nextScanMs = now.monotonicMs + options.scanIntervalMs
            }
            var read = 0
            if !destinations.contains(where: { $0.batch.body != nil }) { read = fill(now: now) }
            let due = destinations.first { isDue($0.batch, now: now, read: read) }
            if let due {
                do throws(LoadError) {
                    try send(due)
                    if counters.clickhouseDown {
                        let seconds = Double(Moment.now().monotonicMs - counters.downSinceMs) / 1000
                        onNotice("ClickHouse answers again after \(Self.format(seconds)) s; sending on")
                    }
                    counters.clickhouseDown = false
                    counters.lastError = nil
                    backoffMs = options.retryBaseMs
                } catch {
                    guard error.isTemporary else { throw error }
                    counters.failedAttempts += 1
                    let at = Moment.now().monotonicMs
                    if !counters.clickhouseDown {
                        counters.clickhouseDown = true
                        counters.downSinceMs = at
                    }
                    counters.lastError = error.description
                    if let limit = options.giveUpAfterMs, at - counters.downSinceMs >= limit {
                        throw LoadError.gaveUp(seconds: Double(at - counters.downSinceMs) / 1000, reason: "\(error)")
                    }
                    if lastDownNoteMs.map({ at - $0 >= 10_000 }) ?? true {
                        lastDownNoteMs = at
                        onNotice(
                            "\(error); retrying (every \(Self.format(Double(options.retryMaxMs) / 1000)) s at most, "
                                + "\(due.batch.count) rows waiting, nothing is read meanwhile)")
                    }
                    onTick(Moment.now())
                    pause(ms: backoffMs, stop: stop)
                    backoffMs = min(backoffMs * 2, options.retryMaxMs)
                    continue
                }
            } else if options.once && read == 0 && destinations.allSatisfy({ $0.batch.marks.isEmpty }) && isComplete {
                break
            }
            try closeIdleFiles(now: now)
            if progressDirty {
                try store.save(progressSnapshot())
                progressDirty = false
            }
            onTick(now)
            if read == 0 && due == nil { pause(ms: options.pollIntervalMs, stop: stop) }
        }
        for destination in destinations where !destination.batch.marks.isEmpty {
            do throws(LoadError) { try send(destination) } catch {
                onNotice(
                    "\(error): \(destination.batch.count) rows not acknowledged; the next load sends them again")
            }
        }
        if progressDirty { try store.save(progressSnapshot()) }
        for file in active { file.reader = nil }
        counters.openFiles = 0
    }

    // MARK: Files

    /// Lists the directory: new files are tracked, sizes refreshed, vanished files forgotten.
    private func scan() throws(LoadError) {
        let listing: CaptureScan.Listing
        do { listing = try CaptureScan.list(directory, sessions: destinations.count > 1) } catch {
            throw LoadError.input(error)
        }
        counters.ignoredEntries = listing.ignored
        var seen = Set<String>()
        for entry in listing.files {
            seen.insert(entry.relativePath)
            if let file = files[entry.relativePath] {
                file.listedSize = entry.size
            } else {
                let file = TrackedFile(relativePath: entry.relativePath, directory: directory, acknowledged: .init())
                file.listedSize = entry.size
                files[entry.relativePath] = file
                order.append(entry.relativePath)
            }
        }
        // Progress of a file that is gone stays in the store (it may come back, e.g. from a restore),
        // but the file is not read.
        for (path, file) in files where !seen.contains(path) && file.reader == nil { file.listedSize = nil }
        order.sort()
        active = order.compactMap { files[$0] }.filter { $0.reader != nil || $0.wantsOpening }
        counters.files = seen.count
    }

    /// Reads new lines into the batch, round robin over the files; returns the number of rows added.
    private func fill(now: Moment) -> Int {
        guard !active.isEmpty else { return 0 }
        var added = 0
        let slice = max(1, options.batchRows / 8)
        for step in 0..<active.count {
            let file = active[(cursor + step) % active.count]
            let batch = destination(of: file).batch
            let room = options.batchRows - batch.count
            guard room > 0 && batch.bytes.count < options.batchBytes else { continue }
            guard let reader = openIfNeeded(file, now: now) else { continue }
            added += read(file, reader, limit: min(room, slice), now: now)
        }
        cursor = (cursor + 1) % active.count
        return added
    }

    /// The file's reader, opened when the file has something to load and a slot is free.
    private func openIfNeeded(_ file: TrackedFile, now: Moment) -> CaptureFileReader? {
        if let reader = file.reader { return reader }
        guard file.wantsOpening, let size = file.listedSize else { return nil }
        if counters.openFiles >= options.maxOpenFiles && !closeOneIdleFile() { return nil }
        let start = file.restartFromZero ? FileProgress() : file.acknowledged
        do {
            file.reader = try CaptureFileReader(path: file.path, resumeAt: start.offset, mark: start.mark)
        } catch {
            onNotice("\(error); not loaded for now")
            file.damagedAtSize = size
            return nil
        }
        file.readFrom = start
        file.handed = start
        file.lastActiveMs = now.monotonicMs
        counters.openFiles += 1
        return file.reader
    }

    /// The destination of `file`'s rows.
    private func destination(of file: TrackedFile) -> LoadDestination {
        destinations[file.isSession ? 1 : 0]
    }

    /// Reads up to `limit` lines of `file` into its destination's batch; returns the lines read.
    private func read(_ file: TrackedFile, _ reader: CaptureFileReader, limit: Int, now: Moment) -> Int {
        let skippedBefore = reader.skippedLines
        let channel = file.channel
        let destination = destination(of: file)
        var count = 0
        var rows = 0
        do throws(CaptureReadError) {
            _ = try reader.read(limit: limit) { line, end in
                count += 1
                row.reset()
                var received: Timestamp? = nil
                if file.isSession {
                    if ClickHouseRecordRow.encode(line, end: end, times: options.times, into: &row) { rows += 1 }
                } else {
                    let facts = ClickHouseRow.encode(
                        line, channel: channel, end: end, times: options.times, into: &row)
                    received = facts.received
                    if !facts.parsed { counters.unparsedLines += 1 }
                    rows += 1
                }
                if row.count > 0 { appendRow(received: received, to: destination, now: now) }
                file.handed.offset = end
                file.handed.lines += 1
                file.handed.mark = LineMark(of: line)
                file.handed.completeSize = 0
            }
        } catch {
            switch error {
            case .changed: reread(file, fromStart: true)
            case .input(let error): inputFailed(file, error)
            }
        }
        counters.skippedLines += reader.skippedLines - skippedBefore
        if count > 0 {
            destination.batch.marks[file.relativePath] = (file.generation, file.handed)
            file.lastActiveMs = now.monotonicMs
            counters.rowsRead += UInt64(rows)
        }
        counters.pendingRows = destinations.reduce(0) { $0 + $1.batch.count }
        return count
    }

    /// Adds the row encoded in `row` to `destination`'s batch.
    private func appendRow(received: Timestamp?, to destination: LoadDestination, now: Moment) {
        row.withBytes { bytes in
            unsafe bytes.withUnsafeBufferPointer { unsafe destination.batch.bytes.append(contentsOf: $0) }
        }
        destination.batch.bytes.append(0x0A)
        if destination.batch.count == 0 { destination.batch.firstAtMs = now.monotonicMs }
        destination.batch.count += 1
        if let received { destination.batch.receivedMs.append(received.milliseconds) }
    }

    /// A file that cannot be read on: read again when it was rewritten, else reported and left.
    private func inputFailed(_ file: TrackedFile, _ error: InputError) {
        if case .corrupt(_, _, let reason) = error, reason == GrowingFile.rewrittenReason {
            reread(file, fromStart: false)
        } else {
            onNotice("\(error); the lines before it are loaded, the rest of the file is not")
            counters.damagedFiles += 1
            file.damagedAtSize = file.listedSize
            closeReader(file)
        }
    }

    /// Starts `file` over: its rows in flight no longer move its progress.
    private func reread(_ file: TrackedFile, fromStart: Bool) {
        counters.rereads += 1
        onNotice(
            "\(file.relativePath): \(GrowingFile.rewrittenReason); reading it again from "
                + (fromStart ? "its start" : "its last acknowledged line")
                + " (the table collapses the lines loaded twice)")
        closeReader(file)
        file.generation += 1
        file.restartFromZero = fromStart
    }

    private func closeReader(_ file: TrackedFile) {
        guard file.reader != nil else { return }
        file.reader = nil
        counters.openFiles -= 1
    }

    /// Whether `file` has been read to its end and all of it acknowledged.
    private func isDone(_ file: TrackedFile) -> Bool {
        guard let reader = file.reader else { return false }
        return reader.isDrained && destination(of: file).batch.marks[file.relativePath] == nil
            && file.acknowledged.offset == file.handed.offset && file.acknowledged.mark == file.handed.mark
    }

    /// Closes files read to their end, acknowledged and idle for ``LoadOptions/idleCloseMs``, recording
    /// their size as complete.
    private func closeIdleFiles(now: Moment) throws(LoadError) {
        for file in active where file.reader != nil && isDone(file) {
            guard now.monotonicMs - file.lastActiveMs >= options.idleCloseMs || options.once else { continue }
            retire(file)
        }
    }

    /// Closes the least recently active finished file to free a slot; `false` when none is finished.
    private func closeOneIdleFile() -> Bool {
        guard
            let file = active.filter({ $0.reader != nil && isDone($0) }).min(by: {
                $0.lastActiveMs < $1.lastActiveMs
            })
        else { return false }
        retire(file)
        return true
    }

    /// Closes a finished file, noting its size so that it is opened again only when it grows.
    private func retire(_ file: TrackedFile) {
        if let reader = file.reader {
            file.acknowledged.completeSize = reader.examinedSize
            progressDirty = true
        }
        closeReader(file)
    }

    /// Whether every file listed is loaded to its end as of the last listing (for ``LoadOptions/once``):
    /// the files left out of `active` then had nothing to load.
    private var isComplete: Bool {
        active.allSatisfy { file in file.reader != nil ? isDone(file) : !file.wantsOpening }
    }

    // MARK: Sending

    /// Whether `batch` goes out now: full, waited long enough, being retried, or (``LoadOptions/once``)
    /// nothing more was read; a batch of progress without rows at once.
    private func isDue(_ batch: LoadBatch, now: Moment, read: Int) -> Bool {
        guard batch.count > 0 else { return !batch.marks.isEmpty }
        return batch.body != nil || batch.count >= options.batchRows || batch.bytes.count >= options.batchBytes
            || now.monotonicMs - batch.firstAtMs >= options.batchDelayMs || (options.once && read == 0)
    }

    /// Sends `destination`'s batch (checking its table first, compressing the batch the first time) and,
    /// once acknowledged, moves and saves the progress of its files. A batch without rows (lines that
    /// make none) only moves the progress.
    private func send(_ destination: LoadDestination) throws(LoadError) {
        if destination.batch.count > 0 { try insert(destination) }
        for (path, mark) in destination.batch.marks {
            guard let file = files[path], file.generation == mark.generation else { continue }
            file.acknowledged = mark.progress
            file.restartFromZero = false
        }
        destination.batch = LoadBatch()
        counters.pendingRows = destinations.reduce(0) { $0 + $1.batch.count }
        try store.save(progressSnapshot())
        progressDirty = false
    }

    /// INSERTs `destination`'s batch and counts it.
    private func insert(_ destination: LoadDestination) throws(LoadError) {
        let client = destination.client
        if !destination.checked {
            try TableCheck.check(client, columns: destination.columns, kind: destination.kind)
            destination.checked = true
        }
        if destination.batch.body == nil { destination.batch.body = client.body(for: destination.batch.bytes) }
        let batch = destination.batch
        try client.insert(body: batch.body!)
        let ackMs = Moment.now().wall.milliseconds
        for received in batch.receivedMs {
            let delay = ackMs - received
            counters.delaySumMs += delay
            counters.delayCount += 1
            counters.delayMaxMs = max(counters.delayMaxMs, delay)
        }
        counters.batches += 1
        counters.rowsAcknowledged += UInt64(batch.count)
        counters.rowBytesAcknowledged += UInt64(batch.bytes.count)
        counters.bodyBytesAcknowledged += UInt64(batch.body!.count)
        if destination.kind == .records { counters.recordsAcknowledged += UInt64(batch.count) }
    }

    private func progressSnapshot() -> [String: FileProgress] {
        files.compactMapValues {
            $0.acknowledged.offset > 0 || $0.acknowledged.completeSize > 0 ? $0.acknowledged : nil
        }
    }

    /// Sleeps `ms`, waking early when `stop` is raised.
    private func pause(ms: Int64, stop: StopFlag) {
        var left = ms
        while left > 0 && !stop.isRaised {
            let step = min(left, 50)
            sleepThread(for: .milliseconds(step))
            left -= step
        }
    }

    static func format(_ seconds: Double) -> String {
        let tenths = (seconds * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}

@available(*, unavailable)
extension Loader: Sendable {}
