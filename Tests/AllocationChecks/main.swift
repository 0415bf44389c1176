// `make alloc`: heap allocations per scenario, counted by malloc-interposer (LD_PRELOAD), and Swift
// retains (reference-count increments), counted by Benchmarks/retain_count.c (LD_PRELOAD too),
// compared with limits.json. Each scenario runs once to warm up, then several times; the smallest
// count is compared. Runs alone, in release, because the counters add up every thread of the process.

import ChatArchive
import ChatFormat
import ChatGzip
import ChatHTTP
import ChatInput
import ChatLogStore
import ChatLogs
import ChatMemory
import ChatNet
import ChatOutput
import ChatPosix
import ChatServe
import ChatStore
import ChatTestSupport
import IRCWire
import MallocInterposerSwift
import TwitchSession
import WebSocketWire

#if canImport(Glibc)
    import Glibc
#endif

struct Scenario {
    var name: String
    var unit: String
    var units: Int
    var body: @MainActor () -> Int
}

/// Committed fixtures, repeated until the input holds at least `lines` lines.
func fixtureInput(lines: Int) throws -> [UInt8] {
    var one: [UInt8] = []
    for file in try Fixtures.lineFiles() where file != "malformed.irc" {
        one += try Fixtures.bytes("lines/" + file)
    }
    let perCopy = one.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    var all: [UInt8] = []
    for _ in 0..<((lines + perCopy - 1) / perCopy) { all += one }
    return all
}

let input = try fixtureInput(lines: 10_000)
let inputLines = input.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
var framer = LineFramer()

/// Frames every line of `input`, parses it, and adds up what `body` makes of it (lines that do
/// not parse count 0).
@MainActor func sumOverMessages(_ body: (Span<UInt8>, TwitchMessage) -> Int) -> Int {
    var sum = 0
    framer.reset()
    framer.feed(input.span) { event, framer in
        guard case .line(let line) = event else { return }
        sum &+= framer.withBytes(of: line) { bytes -> Int in
            guard let m = try? TwitchMessage.parse(bytes) else { return 0 }
            return body(bytes, m)
        }
    }
    return sum
}

/// Frames, parses and reads every Twitch field a renderer would use, for every line of `input`.
@MainActor func frameParseView() -> Int {
    sumOverMessages { bytes, m in
        var s = m.tags.count &+ (m.channel?.count ?? 0)
        if let p = m.privmsg(in: bytes) {
            s &+= p.text.count &+ p.login.count &+ CodePoints.count(in: bytes, p.text)
            m.tags[.displayName]?.unescape(in: bytes) { s &+= Int($0) }
            var badges = m.badges
            while let b = badges.next(in: bytes) { s &+= b.version.count }
            var emotes = m.emotes
            while let e = emotes.next(in: bytes) { s &+= e.start }
            if let r = m.replyParent { s &+= r.messageId.raw.count }
            if let src = m.sharedChatSource(in: bytes) { s &+= src.roomId.raw.count }
        }
        _ = m.userNotice(in: bytes)?.kind
        _ = m.clearChat(in: bytes)
        _ = m.clearMsg(in: bytes)
        _ = m.roomState(in: bytes)
        _ = m.notice(in: bytes)
        m.tags.forEachUnknown(in: bytes) { s &+= $0.key.count }
        return s
    }
}

/// A store with the default 2,500-entry rings, warmed up until every ring is full.
let store = ChatStore()
var clock: Int64 = 0
@MainActor func ingestAll() -> Int {
    var now = clock
    defer { clock = now }
    framer.reset()
    return feedLines(input, into: store, framer: &framer, now: &now)
}

/// Frames `input` and appends every line to `store`, stamped `now` onward. Not on the main actor, like
/// ``appendFramed(_:to:now:)``: a closure formed in a main-actor function and called from a
/// nonisolated one (the framer's) checks its isolation at run time, a retain a call, which the retain
/// count would charge to the store.
nonisolated func feedLines(_ input: [UInt8], into store: ChatStore, framer: inout LineFramer, now: inout Int64) -> Int {
    var sum = 0
    framer.feed(input.span) { event, framer in
        guard case .line(let line) = event else { return }
        now += 1
        sum &+= framer.withBytes(of: line) { bytes in
            (try? store.ingest(bytes, receivedAt: Timestamp(milliseconds: now))).map { Int($0.seq & 1) } ?? 0
        }
    }
    return sum
}

/// Appends every complete line `framer` holds to `store`, stamped `now` onward (see ``feedLines``).
///
/// - Returns: the scenario's checksum, and the lines appended.
nonisolated func appendFramed(_ framer: inout LineFramer, to store: ChatStore, now: inout Int64) -> (
    sum: Int, lines: Int
) {
    var sum = 0
    var lines = 0
    while let event = framer.nextLine() {
        guard case .line(let line) = event else { continue }
        now += 1
        lines += 1
        sum &+= framer.withBytes(of: line) { bytes in
            (try? store.ingest(bytes, receivedAt: Timestamp(milliseconds: now))).map { Int($0.seq & 1) } ?? 0
        }
    }
    return (sum, lines)
}
// Warm-up: the input again and again until every ring is full, so that the scenario measures
// appends to full rings only (a ring still filling grows, and growing allocates by design).
var warmUpPasses = 0
repeat {
    _ = ingestAll()
    warmUpPasses += 1
} while (0..<store.channelCount).contains(where: { !store.log(at: $0)!.ring.isFull }) && warmUpPasses < 2_000
let notFull = (0..<store.channelCount).filter { !store.log(at: $0)!.ring.isFull }
guard notFull.isEmpty else {
    print("warm-up did not fill every ring in \(warmUpPasses) passes (\(notFull.count) still filling): FAILED")
    exit(2)
}
print("warm-up: \(warmUpPasses) passes of the input until all \(store.channelCount) rings are full")
let busiest = (0..<store.channelCount).map { store.log(at: $0)! }.max { $0.ring.count < $1.ring.count }!
let mailbox = store.viewModel.observe(channel: busiest.index)
let reader = store.readers.makeReader()!

@MainActor func publishWindows() -> Int {
    for _ in 0..<1_000 {
        clock += 1
        store.viewModel.publish(busiest, now: clock, force: true)
    }
    return mailbox.take()?.coalesced ?? 0
}

@MainActor func resolveWindows() -> Int {
    var sum = 0
    for _ in 0..<1_000 {
        let window = store.viewModel.window(of: busiest)
        busiest.ring.withEntries(in: window.range, reader: reader) { info, bytes in
            sum &+= bytes.count &+ Int(info.seq & 1)
        }
    }
    return sum
}

/// Encodes every line as typed NDJSON, ircdocs atoms and text into reused writers (the output
/// edge of replay), as `replay --format json|irc|text` does per line.
var jsonWriter = JSONWriter()
let renderer = TextRenderer(color: true)
@MainActor func encodeAll() -> Int {
    sumOverMessages { bytes, m in
        let context = LineContext(
            timestamp: LineTime(of: m, in: bytes).timestamp, tombstone: Tombstone.none, isMirror: false)
        jsonWriter.reset()
        TypedJSONEncoder.encode(
            bytes, m, context, options: JSONOptions(withTags: true, withRaw: true), into: &jsonWriter)
        IRCAtomsEncoder.encode(bytes, m, into: &jsonWriter)
        renderer.render(bytes, m, context, into: &jsonWriter.buffer)
        return jsonWriter.count
    }
}

/// The live read path over a socketpair: bytes written into one end are read by a TCPConnection
/// straight into a LineFramer, parsed in place and appended to full rings (as LiveSession does).
var pair: [Int32] = [0, 0]
guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatalError("socketpair failed") }
let socketReader = try TCPConnection(adopting: pair[0], peer: "socketpair")
var socketFramer = LineFramer()
@MainActor func socketPath() -> Int {
    var now = clock
    defer { clock = now }
    var sum = 0
    var sent = 0
    while sent < input.count {
        let n = input.withUnsafeBytes { raw in write(pair[1], raw.baseAddress! + sent, min(65_536, raw.count - sent)) }
        if n > 0 { sent += n }
        while true {
            guard let outcome = try? socketReader.read(into: &socketFramer) else { return -1 }
            sum &+= appendFramed(&socketFramer, to: store, now: &now).sum
            if case .bytes = outcome { continue }
            break
        }
    }
    return sum
}

/// The live read path over WebSocket: the input as a server sends it — text frames (binary for a
/// message that is not UTF-8) of 7-bit, 16-bit and 64-bit lengths, every third message in two
/// fragments that split a line — written into a socketpair and read by a client-side WebSocketStream over a TCPConnection, which unwraps the
/// frames in place in the framer's buffer; lines parsed in place and appended to full rings. Every
/// line must come out (checked), or the count would mean nothing.
let webSocketFrames: [UInt8] = {
    var frames: [UInt8] = []
    let sizes = [90, 3_000, 70_000, 600]
    var start = 0
    var n = 0
    while start < input.count {
        // A message ends at a line's end (as Twitch's do); its fragments may split a line.
        var end = min(input.count, start + sizes[n % sizes.count])
        while end < input.count && input[end - 1] != 0x0A { end += 1 }
        let message = Array(input[start..<end])
        // A message with bytes that are not UTF-8 (edge-cases.irc has some) goes as binary, as RFC 6455
        // §8.1 asks of a server; the text messages are checked for UTF-8 on the way in.
        let opcode: WebSocketOpcode = String(validating: message, as: UTF8.self) == nil ? .binary : .text
        if n % 3 == 2 && message.count > 1 {
            let half = message.count / 2
            let (first, second) = (Array(message[..<half]), Array(message[half...]))
            WebSocketFrame.append(opcode: opcode, payload: first.span, fin: false, to: &frames)
            WebSocketFrame.append(opcode: .continuation, payload: second.span, to: &frames)
        } else {
            WebSocketFrame.append(opcode: opcode, payload: message.span, to: &frames)
        }
        start = end
        n += 1
    }
    return frames
}()
var webSocketPair: [Int32] = [0, 0]
guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &webSocketPair) == 0 else { fatalError("socketpair failed") }
let webSocketReader = WebSocketStream(
    open: try TCPConnection(adopting: webSocketPair[0], peer: "socketpair"), role: .client, peer: "socketpair")
var webSocketFramer = LineFramer()
@MainActor func webSocketPath() -> Int {
    var now = clock
    defer { clock = now }
    var sum = 0
    var sent = 0
    var lines = 0
    defer {
        if lines != inputLines { fatalError("websocket-read-parse-ring: \(lines) of \(inputLines) lines came out") }
    }
    while sent < webSocketFrames.count {
        let n = webSocketFrames.withUnsafeBytes { raw in
            write(webSocketPair[1], raw.baseAddress! + sent, min(65_536, raw.count - sent))
        }
        if n > 0 { sent += n }
        while true {
            guard let outcome = try? webSocketReader.read(into: &webSocketFramer) else { return -1 }
            let appended = appendFramed(&webSocketFramer, to: store, now: &now)
            sum &+= appended.sum
            lines += appended.lines
            if case .bytes = outcome { continue }
            break
        }
    }
    return sum
}

/// Capture: every line parsed and appended to a CaptureWriter (time tag, gzip level 1, a flush
/// every 1,000 lines handing chunks to the spool thread, whose allocations count too).
let captureDirectory = "/tmp/chatcap-alloc-\(getpid())"
// With the flush thread, as `chatcap capture` runs on two CPUs or more: its flushes allocate nothing either.
let captureWriter = try CaptureWriter(
    directory: captureDirectory,
    options: {
        var options = CaptureOptions()
        options.flushThread = true
        return options
    }())
var captureClock = Moment(monotonicMs: 0, wallMs: 1_763_700_000_000)
@MainActor func captureAppend() -> Int {
    sumOverMessages { bytes, message in
        captureClock.monotonicMs += 1
        if captureClock.monotonicMs % 1_000 == 0 { try? captureWriter.tick(now: captureClock.advanced(byMs: 1_000)) }
        return (try? captureWriter.append(bytes, message: message, receivedAt: captureClock)) != nil ? 1 : 0
    }
}

/// Reading gzip: the input as one gzip member (written at level 1, by ISA-L), decoded again and again by one
/// GzipSource — its inner source starts the member over at its end, so the stream is an endless run of
/// members and each run decodes one member's worth of bytes, resets between members included.
final class RepeatingSource: ByteSource {
    let name = "repeating.gz"
    let bytes: [UInt8]
    var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if position == bytes.count { position = 0 }
        let n = min(buffer.count, bytes.count - position)
        for i in 0..<n { buffer[i] = bytes[position + i] }
        position += n
        return n
    }
}
let gzipPath = "/tmp/chatcap-alloc-\(getpid()).gz"
let gzipMember: [UInt8] = try {
    let writer = try GzipWriter(path: gzipPath)
    try writer.write(input.span)
    try writer.close()
    defer { unlink(gzipPath) }
    return try FileBytes.read(gzipPath)
}()
let gzipSource = try GzipSource(wrapping: RepeatingSource(gzipMember))
let gzipBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
/// Reads `input.count` decompressed bytes from `source` into `gzipBuffer`, 64 KiB at a time.
@MainActor func readDecompressed(_ source: any ByteSource, scenario: String) -> Int {
    var source = source  // the same object (both sources are classes); `read` is a mutating requirement
    var left = input.count
    var sum = 0
    while left > 0 {
        let room = UnsafeMutableRawBufferPointer(rebasing: gzipBuffer[..<min(left, gzipBuffer.count)])
        let n = (try? source.read(into: room)) ?? 0
        guard n > 0 else { fatalError("\(scenario): the source ended or failed; the count would mean nothing") }
        sum &+= Int(gzipBuffer[n - 1])
        left -= n
    }
    return sum
}
@MainActor func gzipRead() -> Int { readDecompressed(gzipSource, scenario: "gzip-read") }

/// Reading gzip a few chunks ahead, on a reader thread (replay's one-log path): the same endless run of
/// members through a PrefetchSource. The interposer counts both threads' allocations.
let readAheadSource = PrefetchSource(wrapping: try GzipSource(wrapping: RepeatingSource(gzipMember)))
@MainActor func gzipReadAhead() -> Int { readDecompressed(readAheadSource, scenario: "gzip-read-ahead") }

/// replay's parse-ahead stage (ParseAhead) over one plain log (the input, 8 times over): one lane, so
/// its reader thread frames into recycled blocks and the two threads share the blocks' parses; each
/// run lends `inputLines` of its events. The interposer counts both threads' allocations.
let parseAheadPath = "/tmp/chatcap-alloc-parse-ahead-\(getpid()).log"
/// Writes the input 8 times over to `path` (a plain log for a stage to read ahead).
func writeParseAheadLog(_ path: String) -> String {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(path)")
    for _ in 0..<8 {
        let written = input.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        precondition(written == input.count, "short write to \(path)")
    }
    close(fd)
    return path
}
let parseAheadStage = ParseAhead(MergeReader(paths: [writeParseAheadLog(parseAheadPath)]))
/// Lends `inputLines` events of `stage` a run, each line with its rendering (which must not be empty
/// when `rendered`); `scenario` names it when the log ends.
@MainActor func lend(_ stage: ParseAhead, scenario: String, rendered: Bool) -> Int {
    var sum = 0
    var lent = 0
    while lent < inputLines {
        let more = stage.next(
            rendered: { line, bytes, output in
                precondition(!rendered || !output.isEmpty, "a line came without its rendering")
                sum &+= line.lineNumber &+ bytes.count &+ output.count
                lent += 1
                return lent < inputLines
            },
            events: { _, _ in
                lent += 1
                return lent < inputLines
            })
        guard more else { fatalError("\(scenario): the log ended; the count would mean nothing") }
    }
    return sum
}
@MainActor func parseAheadLend() -> Int { lend(parseAheadStage, scenario: "parse-ahead", rendered: false) }

/// replay --format json's stage with renderers (OutputPipeline.renderer()): a second copy of the log,
/// its lines encoded where their blocks are parsed and lent with their JSON (next(rendered:ahead:events:)),
/// `inputLines` a run. The interposer counts both threads' allocations.
let renderPath = "/tmp/chatcap-alloc-parse-ahead-render-\(getpid()).log"
/// A JSON pipeline (replay's defaults) writing to /dev/null.
func jsonPipelineToNull() -> OutputPipeline {
    var options = PipelineOptions()
    options.format = .json
    return OutputPipeline(
        options: options, sink: OutputSink(descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC)), diagnose: { _ in })
}
let renderPipeline = jsonPipelineToNull()
let renderStage = ParseAhead(
    MergeReader(paths: [writeParseAheadLog(renderPath)]), renderer: renderPipeline.renderer())
@MainActor func parseAheadRender() -> Int { lend(renderStage, scenario: "parse-ahead-render", rendered: true) }

/// replay without the stage: a MergeReader of the same log lends `inputLines` events a run through
/// EventSource's line path (a parsed line as a LentLine, one event a call), as OutputPipeline.run reads it.
let lineReader = MergeReader(paths: [parseAheadPath])
@MainActor func replayLines() -> Int {
    var sum = 0
    for _ in 0..<inputLines {
        let more = lineReader.next(
            lines: { line, bytes in
                sum &+= line.lineNumber &+ bytes.count
                return true
            },
            events: { _, _ in true })
        guard more else { fatalError("replay-lines: the log ended; the count would mean nothing") }
    }
    return sum
}

/// `stats` without the stage: the same log's lines counted (channels, types, msg-ids of NOTICEs and
/// USERNOTICEs, capture records), `inputLines` events a run, every key seen in the warm-up run. Read as
/// `stats` reads, only the times of the tags sorted (its rare lines parsed again whole).
let statsReader: MergeReader = {
    let reader = MergeReader(paths: [parseAheadPath])
    reader.tagScope = .times
    return reader
}()
let statsCollector = StatsCollector()
@MainActor func statsLines() -> Int {
    for _ in 0..<inputLines {
        let more = statsReader.next(
            lines: { line, bytes in
                statsCollector.handleLine(line, bytes)
                return true
            },
            events: { event, bytes in
                statsCollector.handle(event, bytes)
                return true
            })
        guard more else { fatalError("stats-lines: the log ended; the count would mean nothing") }
    }
    return statsCollector.lines
}

/// replay's owner, a line at a time: each line appended to the pipeline's store and encoded as JSON into
/// its sink (/dev/null), as ``OutputPipeline/run(_:)`` does with a line it was not lent rendered.
let jsonPipeline = jsonPipelineToNull()
let pipelineLocation = MergedLine(
    inputName: "", inputIndex: 0, lineNumber: 1, byteOffset: 0, timestamp: nil, timeSource: .none)
@MainActor func pipelineLines() -> Int {
    let pipeline = jsonPipeline
    return sumOverMessages { bytes, m in
        (try? pipeline.handleLine(LentLine(pipelineLocation, m), bytes, inputName: "")) == nil ? 0 : 1
    }
}
// Warm-up: until every ring of the pipeline's store is full (as for the store's own scenario).
var pipelineWarmUps = 0
repeat {
    _ = pipelineLines()
    pipelineWarmUps += 1
} while (0..<jsonPipeline.store.channelCount).contains(where: { !jsonPipeline.store.log(at: $0)!.ring.isFull })
    && pipelineWarmUps < 2_000

/// serve's per-line work: every line written for sending with its times rebased and, as in a second
/// `--loop` pass, its message ids replaced (the longest rewrite).
var servedLineWriter = ServedLineWriter()
@MainActor func serveWriteLines() -> Int {
    sumOverMessages { bytes, m in
        servedLineWriter.write(
            bytes, message: m, lineTime: 1_763_700_000_000, sentAtMs: 1_800_000_000_000, pass: 2, keepTime: false)
        return servedLineWriter.bytes.count &+ servedLineWriter.untaggedStart
    }
}

/// `replay --dedupe`'s per-line check: every line remembered and, a window later, forgotten (the
/// clock moves 10 ms a line, the window is 1 s), lines alternating between two inputs, so that ids,
/// id-less lines and repeats of both take their paths.
var repeatFilter = RepeatFilter(windowMs: 1_000)
var repeatClock: Int64 = 0
@MainActor func replayDedupe() -> Int {
    sumOverMessages { bytes, m in
        repeatClock &+= 10
        let verdict = repeatFilter.check(m, in: bytes, at: repeatClock, input: Int(repeatClock / 10 % 2))
        return verdict == .new ? 1 : 2
    }
}

/// serve's per-line work with `--http-port`: the line written for sending, then kept in its channel's
/// recent-messages ring (full after the warm-up run: 500 lines a channel, as by default). The line is
/// read as `LogTimeline.deliver` reads it: borrowed through `ServedLineWriter.withLine` (reading
/// `bytes` and `message` one by one from the writer retained a line twice).
let servedHistory = RecentHistory(limit: 500)
var historyWriter = ServedLineWriter()
@MainActor func serveRecordHistory() -> Int {
    // The global bound to a local once: read in the per-line closure, it would be retained a line by
    // the harness itself (see `captureHTTPRings`).
    let servedHistory = servedHistory
    return sumOverMessages { bytes, m in
        historyWriter.write(
            bytes, message: m, lineTime: 1_763_700_000_000, sentAtMs: 1_800_000_000_000, pass: 2, keepTime: false)
        return historyWriter.withLine(parsing: true) { line, message in
            if let message {
                servedHistory.record(line, message: message, receivedAt: Timestamp(milliseconds: 1_800_000_000_000))
            }
            return line.count
        }
    }
}

/// capture's per-line work with `--http-port` (and `--http-channel-metrics`), the listener running: the
/// line counted (lag histogram, per-channel count), kept in its channel's recent-messages ring (the
/// default 2,500 lines, full after the warm-up below), and appended to a CaptureWriter.
// As capture --http-port makes it: with the default memory budget (not reached by these channels).
let liveHistory = RecentHistory(limit: 2_500, budget: MemoryBudget(limit: MemoryBudget.defaultLimit))
let liveMetrics = IngestMetrics(countsPerChannel: true)
let liveDirectory = "/tmp/chatcap-alloc-http-\(getpid())"
let liveWriter = try CaptureWriter(directory: liveDirectory)
let liveListener = try HTTPListener(
    host: "127.0.0.1", port: 0,
    router: {
        var router = HTTPRouter()
        RecentMessagesEndpoint(store: liveHistory.store, bound: 2_500) { _ in true }.install(in: &router)
        return router
    }())
var liveClock = Moment(monotonicMs: 0, wallMs: 1_763_700_000_000)
@MainActor func captureHTTPRings() -> Int {
    // Globals bound to locals once: read in the per-line closure, a global object is retained and
    // released a line by the harness itself, which the retain count would charge to capture.
    let (liveMetrics, liveHistory, liveWriter) = (liveMetrics, liveHistory, liveWriter)
    let liveStore = liveHistory.store
    return sumOverMessages { bytes, message in
        liveClock.monotonicMs += 1
        liveClock.wall = liveClock.wall.advanced(byMilliseconds: 1)
        if liveClock.monotonicMs % 1_000 == 0 { try? liveWriter.tick(now: liveClock.advanced(byMs: 1_000)) }
        liveMetrics.line(bytes, message, receivedAt: liveClock.wall, store: liveStore)
        liveHistory.record(bytes, message: message, receivedAt: liveClock.wall)
        return (try? liveWriter.append(bytes, message: message, receivedAt: liveClock)) != nil ? 1 : 0
    }
}
// Warm-up: until every ring is full (a ring still filling grows, and growing allocates by design).
var liveWarmUps = 0
repeat {
    _ = captureHTTPRings()
    liveWarmUps += 1
} while (0..<liveHistory.store.channelCount).contains(where: {
    let log = liveHistory.store.log(at: $0)!
    return log.ring.count > 0 && !log.ring.isFull
}) && liveWarmUps < 2_000

/// logs: every line encoded in rustlog's text, full JSON and raw shapes by ChatLogs' LogEncoder, one
/// encoder per format kept across runs (what an answer does per line).
var logsText = LogEncoder(format: .text)
var logsJSON = LogEncoder(format: .json)
var logsRaw = LogEncoder(format: .raw)
@MainActor func logsEncode() -> Int {
    sumOverMessages { bytes, message in
        let line = StoredLine(message: message, received: nil)
        var n = logsText.encode(line, in: bytes) { $0.count }
        n &+= logsJSON.encode(line, in: bytes) { $0.count }
        n &+= logsRaw.encode(line, in: bytes) { $0.count }
        return n
    }
}

let scenarios = [
    Scenario(name: "frame-parse-view", unit: "line", units: inputLines, body: frameParseView),
    Scenario(name: "store-append-full-rings", unit: "line", units: inputLines, body: ingestAll),
    Scenario(name: "window-publish", unit: "publish", units: 1_000, body: publishWindows),
    Scenario(name: "window-resolve", unit: "resolve", units: 1_000, body: resolveWindows),
    Scenario(name: "encode-json-irc-text", unit: "line", units: inputLines, body: encodeAll),
    Scenario(name: "socket-read-parse-ring", unit: "line", units: inputLines, body: socketPath),
    Scenario(name: "websocket-read-parse-ring", unit: "line", units: inputLines, body: webSocketPath),
    Scenario(name: "capture-append-gzip", unit: "line", units: inputLines, body: captureAppend),
    Scenario(name: "gzip-read", unit: "line", units: inputLines, body: gzipRead),
    Scenario(name: "gzip-read-ahead", unit: "line", units: inputLines, body: gzipReadAhead),
    Scenario(name: "parse-ahead", unit: "line", units: inputLines, body: parseAheadLend),
    Scenario(name: "parse-ahead-render", unit: "line", units: inputLines, body: parseAheadRender),
    Scenario(name: "replay-lines", unit: "line", units: inputLines, body: replayLines),
    Scenario(name: "stats-lines", unit: "line", units: inputLines, body: statsLines),
    Scenario(name: "pipeline-json-lines", unit: "line", units: inputLines, body: pipelineLines),
    Scenario(name: "serve-write-lines", unit: "line", units: inputLines, body: serveWriteLines),
    Scenario(name: "replay-dedupe", unit: "line", units: inputLines, body: replayDedupe),
    Scenario(name: "serve-record-history", unit: "line", units: inputLines, body: serveRecordHistory),
    Scenario(name: "capture-http-rings", unit: "line", units: inputLines, body: captureHTTPRings),
    Scenario(name: "logs-encode-lines", unit: "line", units: inputLines, body: logsEncode),
]

// limits.json: {"scenario": maximum allocations per run}. Parsed by hand: no Foundation here.
let limitsText = String(
    decoding: try FileBytes.read(Fixtures.root + "/Tests/AllocationChecks/limits.json"), as: UTF8.self)
func limit(for name: String) -> Int? {
    guard let range = limitsText.firstRange(of: "\"\(name)\"") else { return nil }
    let rest = limitsText[range.upperBound...].drop { $0 == ":" || $0 == " " }
    return Int(rest.prefix { $0.isNumber })
}

MallocInterposerSwift.initialize()

// Control: 1,000 deliberate allocations must be seen, or the interposer is not loaded (LD_PRELOAD
// missing) and every 0 below would be meaningless.
@inline(never) func allocateOnPurpose(_ n: Int) -> Int {
    var sum = 0
    for i in 0..<n {
        let a = [Int](repeating: i, count: 16)
        sum &+= a[i % 16]
    }
    return sum
}
MallocInterposerSwift.reset()
MallocInterposerSwift.hook()
let control = allocateOnPurpose(1_000)
MallocInterposerSwift.unhook()
let seen = MallocInterposerSwift.getStatistics().mallocCount
guard seen >= 1_000 else {
    print("control: saw \(seen) of 1000 deliberate allocations (checksum \(control)); is LD_PRELOAD set? FAILED")
    exit(2)
}
print("control: \(seen) allocations seen for 1000 deliberate ones: the interposer counts")

// Retains: Benchmarks/retain_count.c's counter, found by name in the preloaded library.
guard let retainCounter = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "retain_count_retains") else {
    print("control: retain_count_retains not found; is Benchmarks/retain_count.c's library preloaded? FAILED")
    exit(2)
}
let retainCount = retainCounter.assumingMemoryBound(to: Int.self)
/// Retains counted so far (read between runs, when the scenario's threads are idle).
@MainActor func retainsSoFar() -> Int { retainCount.pointee }

// Control: 1,000 deliberate retains must be seen, or the counter does not see the runtime's (a
// static runtime, or the library not loaded) and every 0 below would be meaningless.
final class Retained {}
nonisolated(unsafe) var retainedOnPurpose: [Retained] = []
@MainActor @inline(never) func retainOnPurpose(_ object: Retained, _ n: Int) {
    retainedOnPurpose.reserveCapacity(n)
    for _ in 0..<n { retainedOnPurpose.append(object) }
}
let retainsBefore = retainsSoFar()
retainOnPurpose(Retained(), 1_000)
let retainsSeen = retainsSoFar() - retainsBefore
retainedOnPurpose = []
guard retainsSeen >= 1_000 else {
    print("control: saw \(retainsSeen) of 1000 deliberate retains; is the runtime linked statically? FAILED")
    exit(2)
}
print("control: \(retainsSeen) retains seen for 1000 deliberate ones: the counter counts")

var failed = false
/// Prints one figure of a scenario against its limit; whether it is within it.
@MainActor func report(_ scenario: Scenario, _ what: String, _ fewest: Int, limitKey: String) -> Bool {
    let allowed = limit(for: limitKey)
    let verdict = allowed.map { fewest <= $0 ? "ok" : "OVER LIMIT" } ?? "NO LIMIT IN limits.json"
    let perUnit = Double(fewest) / Double(scenario.units)
    print(
        "\(scenario.name): \(fewest) \(what) for \(scenario.units) × \(scenario.unit) (\(perUnit) per \(scenario.unit)); limit \(allowed.map(String.init) ?? "-"): \(verdict)"
    )
    return verdict == "ok"
}
for scenario in scenarios {
    _ = scenario.body()  // warm-up: one-time tables and buffers
    var fewest = Int.max
    var fewestRetains = Int.max
    for _ in 0..<5 {
        MallocInterposerSwift.reset()
        let retains = retainsSoFar()
        MallocInterposerSwift.hook()
        let result = scenario.body()
        MallocInterposerSwift.unhook()
        fewestRetains = min(fewestRetains, retainsSoFar() - retains)
        fewest = min(fewest, MallocInterposerSwift.getStatistics().mallocCount)
        if result == 42 { print("") }  // keep the work observable
    }
    if !report(scenario, "allocations", fewest, limitKey: scenario.name) { failed = true }
    if !report(scenario, "retains", fewestRetains, limitKey: scenario.name + " retains") { failed = true }
}
try? captureWriter.close()
try? liveWriter.close()
liveListener.stop()
_ = system("rm -rf '\(captureDirectory)' '\(liveDirectory)'")
unlink(parseAheadPath)
renderStage.finish()
unlink(renderPath)
exit(failed ? 1 : 0)
