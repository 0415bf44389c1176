import ChatFormat
import ChatGzip
import ChatIndex
import ChatPosix
import ChatStore
public import IRCWire
public import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// Writes received chat lines to rotating gzip files, one directory per channel.
///
/// ```
///  DIR/<channel>/<YYYY-MM-DD>.log.gz     lines of #channel received that UTC day (see CaptureRotation)
///  DIR/_session/<YYYY-MM-DD>.log.gz      lines without a channel (PING, CAP, 001 …) and our records
/// ```
/// Each line is stored as received, ended with CRLF, with an IRCv3 `time` tag (receive time, RFC 3339
/// with milliseconds, UTC) added as the first tag: `@time=…;rest-of-tags …` or `@time=… :prefix …` —
/// so every file is valid IRC and replay paces by receive time. With ``CaptureOptions/verbatim`` the
/// bytes are unchanged. Session records are lines of our own, described in `CaptureWriter+Records.swift`.
///
/// Crash safety: every file written to is flushed (`Z_SYNC_FLUSH` + `write(2)`) by ``tick(now:)`` once
/// ``CaptureOptions/flushIntervalMs`` has passed, and at rotation; files are only ever appended to, and
/// reopening a file (a restart) adds a new gzip member after repairing a torn tail (``GzipWriter``).
///
/// Back-pressure: lines are compressed on the caller's (ingest) thread; the compressed chunks
/// (``CaptureOptions/outputCapacity`` each) are written by a ``WriteSpool`` thread, so a disk that
/// pauses does not stall chat. A disk slower than chat lets chunks queue up to
/// ``CaptureOptions/bufferLimit``; then the caller is stopped inside ``append(_:message:receivedAt:)``
/// — it stops reading the socket, nothing is dropped — until half of that is written. Each stop is
/// counted (``backPressure``), reported through ``onNotice`` and stored as a `back-pressure` session
/// record. Memory: the buffer limit (or one chunk per open file, if more) plus the compressor's
/// ~290 KiB per open file (``GzipWriter``). While the disk is behind, the queued chunks are what a crash would lose (the status
/// shows them); all files share the one queue, so a flush waits behind chunks queued before it.
///
/// Open files: at most ``CaptureOptions/maxOpenFiles``. Opening another closes the file written to
/// least recently (a search of the open lanes, only when a file is opened); ``tick(now:)`` closes files
/// idle for ``CaptureOptions/idleCloseMs``. A closed file is finished as a complete gzip member, and the
/// channel's next line reopens it (after the spool has written and closed it) with a new member. With
/// ``CaptureOptions/channels``, lines of other channels go to `_session` (``unjoinedLines``), so the
/// number of lanes follows the channels joined, not what a server sends.
///
/// Errors are sticky: after a failed write every call throws the same ``CaptureError``; ``close()``
/// still closes every other file properly.
///
/// Time comes in with each call (`Moment`: wall time names files and tags lines, monotonic time paces
/// flushes), so tests drive midnight and flush intervals without waiting. Confined to one thread.
///
/// `@safe`: its one unsafe stored property, ``lastLane`` (unretained), names a lane that ``lanes``
/// or the session lane keeps for the writer's life; nothing unsafe reaches its interface.
@safe
public final class CaptureWriter {
    public let directory: String
    public let options: CaptureOptions
    /// Channel lanes in first-seen order.
    var lanes: [CaptureLane] = []
    /// Login (any case) → the lane's position in `lanes`: a line finds its lane in O(1) at any
    /// number of channels.
    var laneIndex = NameIndex(matching: .asciiCaseInsensitive)
    /// `lanes` and then the session lane, kept up to date, so that flushing allocates nothing.
    private(set) var allLanes: [CaptureLane] = []
    let sessionLane: CaptureLane
    /// The lane of the last line: chat comes in runs from one channel. Unretained (see
    /// ``lane(for:in:)``).
    var lastLane: Unmanaged<CaptureLane>? = nil
    /// The lanes with an open file (at most ``CaptureOptions/maxOpenFiles``), searched for the least
    /// recently written one when another file must be opened.
    var openLanes: [CaptureLane] = []
    /// Counts writes; a lane's `lastUse` is its value at the lane's last write.
    private var useClock: UInt64 = 0
    /// ``CaptureOptions/channels`` as lowercase login bytes (`nil`: every channel gets a lane), and
    /// channels added since (``admit(channels:)``).
    var joinedKeys: [[UInt8]]?
    /// Whether each of `joinedKeys` is joined now (``retire(channels:)`` clears it: the index
    /// keeps every name it was given).
    var joinedNow: [Bool] = []
    /// Login (any case) → its position in `joinedKeys`, asked when a line's channel has no lane yet.
    var joinedIndex = NameIndex(matching: .asciiCaseInsensitive)
    /// The line being stored, and the `time` tag's value of the millisecond `stampMs`: buffers that
    /// lend their bytes without a reference count (an array's retain and release per line was about
    /// 4% of capture at 10,000 channels, its release waiting for the stores of the line into a cold
    /// stage of the compressor).
    private var line = ByteBuffer(capacity: 16 * 1024 + 64)
    private var stampMs: Int64 = .min
    private var stamp = ByteBuffer(capacity: 64)
    private var lastFlushMs: Int64? = nil
    var failure: CaptureError? = nil
    private var closed = false
    /// Does the `write(2)`s of every file.
    let spool: WriteSpool
    /// Shares the compression of ``flushAll()`` with a second thread (``CaptureOptions/flushThread``).
    private let flushHelper: LoopHelper?
    /// The writers of the flush being compressed, and the helper's loop over them (made once).
    private let flushList = FlushList()
    private let compressFlush: @Sendable (Int) -> Void
    /// Session records waiting for the next ``tick(now:)`` (made where writing them could re-enter a file).
    private var pendingNotes: [(event: String, text: String, at: Timestamp)] = []

    /// Connections made after the first one, and gaps recorded (from ``record(_:)``).
    public internal(set) var reconnects = 0
    public internal(set) var gaps = 0
    /// Called with a note worth showing the user (e.g. a repaired torn tail).
    public var onNotice: ((String) -> Void)? = nil

    /// Test hook: every file opened from now on fails its `write(2)` with `errno` once it has written
    /// `afterBytes` compressed bytes (see ``GzipWriter/injectedFailure``).
    package var injectedFailure: (afterBytes: UInt64, errno: Int32)? = nil

    /// Creates `directory` (and its parents) and `directory/_session` if needed and checks that both
    /// can be written, so a bad directory is reported before connecting. Opens no file yet.
    ///
    /// - Throws: ``CaptureError/directory(path:errno:)``.
    public init(directory: String, options: CaptureOptions = CaptureOptions()) throws(CaptureError) {
        let dir = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.directory = dir
        self.options = options
        joinedKeys = options.channels.map { list in
            list.map { Array($0.drop { $0 == "#" }.utf8).map(\.asciiLowercased) }
        }
        try Self.makeDirectory(dir, parents: true)
        sessionLane = CaptureLane(key: Array("_session".utf8), directory: dir + "/_session")
        allLanes = [sessionLane]
        try Self.makeDirectory(sessionLane.directory, parents: false)
        try Self.checkWritable(dir)
        try Self.checkWritable(sessionLane.directory)
        spool = WriteSpool(chunkBytes: options.outputCapacity, limitBytes: options.bufferLimit)
        flushHelper = options.flushThread ? LoopHelper() : nil
        compressFlush = { [flushList] i in flushList.compress(i) }
        spool.onBackPressure = { [unowned self] event in self.backPressure(event) }
        spool.onStalled = { [unowned self] in self.onStalled?() }
        for (i, key) in (joinedKeys ?? []).enumerated()
        where joinedPosition(of: key.span, key: joinedIndex.key(for: key.span)) == nil {
            joinedIndex.insert(UInt64(i), for: key.span)
        }
        joinedNow = Array(repeating: true, count: joinedKeys?.count ?? 0)
    }

    deinit {
        try? close()
    }

    // MARK: - Writing

    /// Stores one received line (without its line terminator) in its channel's file, or in the session
    /// file when it has no channel.
    ///
    /// - Parameters:
    ///   - bytes: the line as received, without CR LF.
    ///   - message: its parse (for the channel and `tmi-sent-ts`).
    ///   - receivedAt: receive time: names the file, and is the `time` tag.
    /// - Throws: ``CaptureError`` (sticky).
    /// - Complexity: O(`bytes.count`). - Allocations: none per line once the channel's file is open.
    public func append(_ bytes: Span<UInt8>, message: TwitchMessage, receivedAt: Moment) throws(CaptureError) {
        try checkUsable()
        let failed = unsafe try lane(for: message.channel, in: bytes)._withUnsafeGuaranteedRef {
            lane -> CaptureError? in
            if let sent = message.sentTimestamp(in: bytes) {
                lane.lagSumMs += receivedAt.wall.milliseconds - sent
                lane.lagCount += 1
            }
            do throws(CaptureError) { try store(bytes, in: lane, receivedAt: receivedAt) } catch { return error }
            if message.command == .privmsg || message.command == .usernotice { lane.messages += 1 }
            return nil
        }
        if let failed { throw failed }
    }

    /// Stores a line the parser rejected, as received (with the `time` tag unless verbatim), in the
    /// session file: nothing received is lost, and replay reports it again with its position.
    ///
    /// - Throws: ``CaptureError`` (sticky).
    /// - Complexity: O(`bytes.count`). - Allocations: none once the session file is open.
    public func appendUnparsed(_ bytes: Span<UInt8>, receivedAt: Moment) throws(CaptureError) {
        try checkUsable()
        unparsedLines += 1
        try store(bytes, in: sessionLane, receivedAt: receivedAt)
    }

    /// Lines stored by ``appendUnparsed(_:receivedAt:)``.
    public private(set) var unparsedLines = 0

    /// Lines of channels not in ``CaptureOptions/channels``, stored in `_session`.
    public internal(set) var unjoinedLines = 0

    /// Files open now (channels and `_session`); at most ``CaptureOptions/maxOpenFiles``.
    public var openFileCount: Int { allLanes.reduce(0) { $0 + ($1.writer == nil ? 0 : 1) } }

    /// Adds the time tag (unless verbatim) and CR LF, and writes the line to `lane`'s file.
    ///
    /// The line is assembled in one reused buffer (a ~400-byte copy) so that deflate is called once
    /// per line: cheaper than three calls for the tag, the bytes and CR LF.
    private func store(_ bytes: Span<UInt8>, in lane: CaptureLane, receivedAt: Moment) throws(CaptureError) {
        line.reset()
        if options.verbatim {
            append(bytes)
        } else {
            appendTimeTag(receivedAt.wall.milliseconds)
            if !bytes.isEmpty && bytes[0] == UInt8(ascii: "@") {
                line.raw(byte: UInt8(ascii: ";"))
                append(bytes.extracting(1...))
            } else {
                line.raw(byte: UInt8(ascii: " "))
                append(bytes)
            }
        }
        line.raw(byte: 13)
        line.raw(byte: 10)
        try line.withBytes { (buffer) throws(CaptureError) in
            try write(buffer, to: lane, wallMs: receivedAt.wall.milliseconds)
        }
        lane.lines += 1
    }

    /// Flushes every file written to since the last flush, once ``CaptureOptions/flushIntervalMs``
    /// has passed since then, and closes files whose period has ended. Call it often (every loop turn).
    ///
    /// - Complexity: O(1) between flushes, O(open files) at a flush. - Allocations: none.
    public func tick(now: Moment) throws(CaptureError) {
        try checkUsable()
        if let error = spool.firstFailure {
            failure = .file(error)
            throw .file(error)
        }
        try writePendingNotes()
        guard let last = lastFlushMs else {
            lastFlushMs = now.monotonicMs
            return
        }
        guard now.monotonicMs - last >= options.flushIntervalMs else { return }
        try flushAll()
        lastFlushMs = now.monotonicMs
        let period = options.rotation.period(ofWallMs: now.wall.milliseconds)
        for lane in allLanes where lane.writer != nil {
            if period > lane.period || now.wall.milliseconds - lane.lastWallMs >= options.idleCloseMs {
                try closeFile(of: lane)
            }
        }
    }

    /// Flushes every file written to since its last flush, as one batch of the spool: the flushes'
    /// small outputs share chunks, handed to the writer thread once per chunk, not once per file.
    ///
    /// - Complexity: O(lanes) plus the flushes. - Allocations: none once the spool is warm.
    public func flushAll() throws(CaptureError) {
        try checkUsable()
        if let flushHelper { compressFlushes(with: flushHelper) }
        spool.beginBatch()
        defer { spool.endBatch() }
        for lane in allLanes where lane.dirty { try flush(lane) }
    }

    /// The compressing half of the flushes of ``flushAll()``, shared with `helper`'s thread
    /// (``GzipWriter/compressFlush()``): each writer is compressed by one thread while this one waits
    /// for both to finish; the flushes then hand the output to the spool on this thread, in order.
    ///
    /// - Complexity: O(lanes) plus the compression. - Allocations: none once `flushList` has grown.
    private func compressFlushes(with helper: LoopHelper) {
        unsafe flushList.writers.removeAll(keepingCapacity: true)
        for lane in allLanes where lane.dirty {
            if let writer = lane.writer { unsafe flushList.writers.append(.passUnretained(writer)) }
        }
        // One file: nothing to share.
        guard unsafe flushList.writers.count >= 2 else { return }
        unsafe helper.run(flushList.writers.count, compressFlush)
    }

    /// Flushes `lane` (a sync flush handed to the spool, which writes its chunks in order).
    func flush(_ lane: CaptureLane) throws(CaptureError) {
        guard lane.dirty else { return }
        try guarded { () throws(GzipWriterError) in try lane.writer?.flush() }
        lane.dirty = false
    }

    /// Waits until everything handed to the spool so far is written (or failed). For tests and
    /// before reading the files back; ``tick(now:)`` never waits.
    public func waitForWrites() throws(CaptureError) {
        spool.drain()
        if let error = spool.firstFailure, failure == nil { failure = .file(error) }
        if let failure { throw failure }
    }

    /// Finishes and closes every file and waits until the spool has written everything. After an
    /// error, the other files are still closed properly and the first error is thrown. Closing twice
    /// does nothing.
    public func close() throws(CaptureError) {
        guard !closed else { return }
        var first = failure
        // The channels' files first, then the records of back-pressure met so far (closing never
        // waits for the spool, so none comes after them), then the session file.
        for lane in lanes where lane.writer != nil {
            do throws(CaptureError) { try closeFile(of: lane) } catch {
                if first == nil { first = error }
            }
        }
        if first == nil {
            do throws(CaptureError) { try writePendingNotes() } catch { first = error }
        }
        closed = true
        do throws(CaptureError) { try closeFile(of: sessionLane) } catch {
            if first == nil { first = error }
        }
        spool.shutdown()
        flushHelper?.stop()
        if first == nil, let error = spool.firstFailure { first = .file(error) }
        if let first, failure == nil { failure = first }
        if let first { throw first }
    }

    /// Writes the session records made where writing could re-enter a file (back-pressure), including
    /// those made while writing them.
    private func writePendingNotes() throws(CaptureError) {
        while !pendingNotes.isEmpty {
            let notes = pendingNotes
            pendingNotes.removeAll()
            for n in notes { try note(event: n.event, text: n.text, at: n.at) }
        }
    }

    /// Called on the ingest thread about every 100 ms while it is stopped for the disk (back-pressure,
    /// or waiting for the spool before reopening a file): what must keep its pace, such as a status
    /// line, can run. It may read counters; it must not write to the capture.
    public var onStalled: (() -> Void)? = nil

    /// Back-pressure so far: stops of the ingest thread for a full write queue, and their total time.
    public var backPressure: (events: Int, totalMs: Int64) {
        let c = spool.counterSnapshot
        return (c.backPressureEvents, c.backPressureMs)
    }

    /// Compressed bytes on disk so far, and waiting in the spool's queue now.
    public var diskCounters: (written: UInt64, queued: Int) {
        let c = spool.counterSnapshot
        return (c.writtenBytes, c.queuedBytes)
    }

    private func backPressure(_ event: WriteSpool.BackPressure) {
        switch event {
        case .began(let queued, let limit):
            onNotice?(
                "the disk is slower than chat: \(CaptureStatus.Snapshot.size(UInt64(queued))) waiting to be written "
                    + "(limit \(CaptureStatus.Snapshot.size(UInt64(limit)))); stopped reading the socket until half is written"
            )
        case .ended(let ms, let n):
            let text = "back-pressure \(n): stopped reading the socket for \(ms) ms while the disk caught up"
            onNotice?("resumed: " + text)
            pendingNotes.append((event: "back-pressure", text: text, at: Moment.now().wall))
        }
    }

    // MARK: - Counters

    /// Lines stored so far (chat and session lines, not our own records).
    public var lineCount: UInt64 { allLanes.reduce(0) { $0 + $1.lines } }
    /// Bytes handed to the compressor so far (lines with their tags and CRLF).
    public var uncompressedByteCount: UInt64 { allLanes.reduce(0) { $0 + $1.uncompressedBytes } }

    /// Per channel (in first-seen order; `_session` last): lines and chat messages (PRIVMSG,
    /// USERNOTICE) so far, and the sum and number of lags (receive time minus `tmi-sent-ts`,
    /// milliseconds) of the lines that carried `tmi-sent-ts`.
    public var channelCounters: [(channel: String, lines: UInt64, messages: UInt64, lagSumMs: Int64, lagCount: Int64)] {
        allLanes.map { ($0.name, $0.lines, $0.messages, $0.lagSumMs, $0.lagCount) }
    }

    // MARK: - Internals

    func checkUsable() throws(CaptureError) {
        if let failure { throw failure }
        precondition(!closed, "CaptureWriter used after close()")
    }

    /// Runs `body`, turning a writer error into the sticky ``CaptureError``.
    func guarded(_ body: () throws(GzipWriterError) -> Void) throws(CaptureError) {
        do throws(GzipWriterError) { try body() } catch {
            failure = .file(error)
            throw .file(error)
        }
    }

    /// The lane for a line's channel (`nil`, or not a login: the session lane), unretained: `lanes`
    /// and `sessionLane` keep every lane for the writer's life (none is ever removed), so a line passes
    /// its lane on without a retain and release (at 10,000 channels the lane of the line before is
    /// almost never the line's, and each was a release of a cold object plus the atomics, about 4% of
    /// capture).
    ///
    /// - Complexity: O(`range.count`): one hash and O(1) expected lane comparisons (``NameIndex``),
    ///   whatever the number of lanes. - Allocations: none once the channel has its lane.
    private func lane(for range: ByteRange?, in bytes: Span<UInt8>) throws(CaptureError) -> Unmanaged<CaptureLane> {
        guard let range else { return unsafe .passUnretained(sessionLane) }
        let channel = bytes.extracting(range.range)
        // Chat comes in runs from one channel: a lane's key is a valid login, so a match needs no check.
        let words = ChannelIndex.words(of: channel, lowercasingASCII: true)
        if let last = unsafe lastLane, unsafe last._withUnsafeGuaranteedRef({ $0.matches(channel, words: words) }) {
            return unsafe last
        }
        let hashKey = laneIndex.key(for: channel)
        if let found = laneIndex.value(forKey: hashKey, where: { lanes[Int($0)].matches(channel, words: words) }) {
            let lane = unsafe Unmanaged.passUnretained(lanes[Int(found)])
            // Taken off the list at run time: what still comes (until the server has the PART) is unjoined.
            if unsafe lane._withUnsafeGuaranteedRef({ $0.isParted }) {
                unjoinedLines += 1
                return unsafe .passUnretained(sessionLane)
            }
            unsafe lastLane = lane
            return unsafe lane
        }
        guard CaptureLane.isDirectoryName(channel) else { return unsafe .passUnretained(sessionLane) }
        if !isJoined(channel, key: hashKey) {
            unjoinedLines += 1
            return unsafe .passUnretained(sessionLane)
        }
        var key: [UInt8] = []
        for i in channel.indices { key.append(channel[i].asciiLowercased) }
        let lane = CaptureLane(key: key, directory: directory + "/" + String(decoding: key, as: UTF8.self))
        do throws(CaptureError) { try Self.makeDirectory(lane.directory, parents: false) } catch {
            failure = error
            throw error
        }
        laneIndex.insert(UInt64(lanes.count), forKey: hashKey)
        lanes.append(lane)
        allLanes.insert(lane, at: allLanes.count - 1)
        unsafe lastLane = .passUnretained(lane)
        return unsafe .passUnretained(lane)
    }

    /// Whether `channel` (a login, any case, whose ``NameIndex/key(for:)`` is `key`) is one of
    /// ``CaptureOptions/channels``; every channel is when none are named.
    ///
    /// - Complexity: O(`channel.count`). - Allocations: none.
    func isJoined(_ channel: Span<UInt8>, key: UInt64) -> Bool {
        guard joinedKeys != nil else { return true }
        return joinedPosition(of: channel, key: key).map { joinedNow[$0] } ?? false
    }

    /// The position of `channel` in `joinedKeys`, whether joined now or not.
    ///
    /// - Complexity: O(`channel.count`). - Allocations: none.
    func joinedPosition(of channel: Span<UInt8>, key: UInt64) -> Int? {
        guard let joinedKeys else { return nil }
        return joinedIndex.value(forKey: key) { channel.equals(lowercased: joinedKeys[Int($0)], at: channel.indices) }
            .map { Int($0) }
    }

    /// Writes `bytes` to `lane`'s file for `wallMs`, rotating first if its period (or size) says so.
    func write(_ bytes: Span<UInt8>, to lane: CaptureLane, wallMs: Int64) throws(CaptureError) {
        let period = options.rotation.period(ofWallMs: wallMs)
        if lane.writer == nil || lane.period != period {
            let index = lane.writer == nil && lane.closedFile?.period == period ? lane.closedFile!.index : 0
            try closeFile(of: lane)
            try closeLeastRecentlyWritten(besides: lane)
            try openFile(of: lane, period: period, index: index)
        } else if case .size(let limit) = options.rotation, lane.fileBytes >= limit {
            let next = lane.index + 1
            try closeFile(of: lane)
            try openFile(of: lane, period: period, index: next)
        }
        // A guaranteed reference: the lane keeps its writer for the call (nothing in `write` reaches the
        // lane), so a line costs no retain and release of the writer (about 4% of capture at 10,000 channels).
        try guarded { () throws(GzipWriterError) in
            let failed = unsafe Unmanaged.passUnretained(lane.writer!)._withUnsafeGuaranteedRef {
                writer -> GzipWriterError? in
                do throws(GzipWriterError) { try writer.write(bytes) } catch { return error }
                return nil
            }
            if let failed { throw failed }
        }
        lane.dirty = true
        useClock &+= 1
        lane.lastUse = useClock
        lane.lastWallMs = wallMs
    }

    /// Appends `time=<RFC 3339>` after an `@`, formatting only when the millisecond changes.
    func appendTimeTag(_ wallMs: Int64) {
        if wallMs != stampMs {
            stampMs = wallMs
            stamp.reset()
            stamp.raw(rfc3339: Timestamp(milliseconds: wallMs))
        }
        line.raw("@time=")
        stamp.withBytes { line.raw($0, $0.indices) }
    }

    /// Copies `bytes` to the end of the line buffer.
    func append(_ bytes: Span<UInt8>) {
        // An empty span may have no address, which `raw` needs.
        if !bytes.isEmpty { line.raw(bytes, bytes.indices) }
    }
}

@available(*, unavailable)
extension CaptureWriter: Sendable {}

/// The writers whose flushes ``CaptureWriter/flushAll()`` compresses on two threads. Filled by the
/// writer's thread before the loop and only read during it, by both threads (each writer by one).
/// Unretained: the lanes keep their writers open for the loop.
@safe
private final class FlushList: @unchecked Sendable {  // written only while no loop runs
    var writers: [Unmanaged<GzipWriter>] = unsafe []

    func compress(_ i: Int) {
        unsafe writers[i]._withUnsafeGuaranteedRef { $0.compressFlush() }
    }
}
