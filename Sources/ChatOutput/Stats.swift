import ChatFormat
public import ChatInput
public import ChatStore
import IRCWire

/// Counts what a set of logs holds: per channel and per command / msg-id, message rate, first and
/// last timestamps, the positions of malformed lines, and capture's own records (runs, reconnects,
/// join outcomes, gaps).
public final class StatsCollector {
    /// What capture's records (`CAPTURE` lines, read as ``CaptureRecordLine``) say about the runs.
    public struct CaptureCounts: Sendable, Equatable {
        /// Records read.
        public var records = 0
        /// `start` records: capture runs.
        public var runs = 0
        /// `ended-without-stop` records: runs a later run found without their `stop`.
        public var endedWithoutStop = 0
        /// `connected` records, and those after the first of their run (reconnections).
        public var connections = 0
        public var reconnects = 0
        public var disconnects = 0
        /// JOIN outcomes: `joined` and `join-failed` records.
        public var joined = 0
        public var joinFailed = 0
        /// `back-pressure` records: stops of socket reading for the disk.
        public var backPressure = 0
        /// Gap records, their total length, and their count per channel.
        public var gaps = 0
        public var gapMs: Int64 = 0
        public var gapChannels: [String: Int] = [:]

        public init() {}
    }

    public struct Problem: Sendable {
        public var input: String
        public var line: Int
        public var what: String
    }

    public private(set) var lines = 0
    /// Lines per channel (`""` for lines without one).
    public var perChannel: [String: Int] {
        var out: [String: Int] = [:]
        channels.forEachKey { name, n in out[String(decoding: name, in: ByteRange(0..<name.count)), default: 0] += n }
        return out
    }
    /// Lines per type name (`privmsg`, `gap`, …).
    public var perCommand: [String: Int] {
        var out: [String: Int] = [:]
        for slot in typeCounts.indices where typeCounts[slot] > 0 {
            out[Self.typeNames[slot].description, default: 0] += typeCounts[slot]
        }
        return out
    }
    /// USERNOTICEs per msg-id: a documented kind by its name, another as `unknown:<msg-id>`, one
    /// without a msg-id as `unknown`.
    public var perUserNotice: [String: Int] {
        var out: [String: Int] = [:]
        for (name, n) in userNoticeKinds { out[name.description, default: 0] += n }
        unknownUserNotices.forEachKey { id, n in out["unknown:" + Self.unescaped(id), default: 0] += n }
        if userNoticesWithoutId > 0 { out["unknown", default: 0] += userNoticesWithoutId }
        return out
    }
    /// NOTICEs with a msg-id, per msg-id.
    public var perNotice: [String: Int] {
        var out: [String: Int] = [:]
        notices.forEachKey { id, n in out[Self.unescaped(id), default: 0] += n }
        return out
    }
    // Per-line counting without a String, a hash of Swift's or a reference count per line: channels
    // and msg-ids by their bytes (kept at first sight, see ``StatsKeyCounts``; a msg-id is kept raw and
    // unescaped for output, where raw ids that unescape alike merge), types by a slot of their command,
    // documented USERNOTICE kinds by the identity of their static name (a handful).
    private var channels = StatsKeyCounts()
    private var typeCounts = InlineArray<20, Int>(repeating: 0)
    private var userNoticeKinds: [(name: StaticString, count: Int)] = []
    private var unknownUserNotices = StatsKeyCounts()
    private var userNoticesWithoutId = 0
    private var notices = StatsKeyCounts()
    public private(set) var messages = 0
    public private(set) var first: Timestamp? = nil
    public private(set) var last: Timestamp? = nil
    public private(set) var problems: [Problem] = []
    public private(set) var malformed = 0
    public private(set) var skipped = 0
    public private(set) var damagedInputs = 0
    /// Inputs whose lines hold CRs that no LF follows (see ``MergeEvent/bareCarriageReturns(_:count:)``).
    public private(set) var bareCarriageReturnInputs = 0
    /// What capture's records say, their gaps per channel included.
    public var capture: CaptureCounts {
        var c = records
        gapChannels.forEachKey { name, n in
            c.gapChannels[String(decoding: name, in: ByteRange(0..<name.count)), default: 0] += n
        }
        return c
    }
    /// ``capture`` but its gaps per channel, which are counted in `gapChannels` (by bytes, as channels).
    private var records = CaptureCounts()
    private var gapChannels = StatsKeyCounts()
    /// Whether the current capture run (since the last `start`) has connected already.
    private var connectedInRun = false
    /// Problems listed one by one (the rest are only counted); 0 lists all.
    public let listLimit: Int

    /// - Parameter listLimit: problems listed one by one (the rest are only counted); 0 lists all.
    public init(listLimit: Int = 100) { self.listLimit = listLimit }

    /// Counts every event of `events`, then ends them (``EventSource/finish()``).
    ///
    /// - Complexity: O(events). - Allocations: see ``handle(_:_:)``.
    @_specialize(where Events == MergeReader)
    @_specialize(where Events == ParseAhead)
    public func collect<Events: EventSource>(_ events: Events) {
        while events.next(
            lines: { line, bytes in
                handleLine(line, bytes)
                return true
            },
            events: { event, bytes in
                handle(event, bytes)
                return true
            })
        {}
        events.finish()
    }

    /// Counts one event of a ``MergeReader``.
    public func handle(_ event: MergeEvent, _ bytes: Span<UInt8>) {
        switch event {
        case .line(let at, let message):
            handleLine(LentLine(at, message), bytes)
        case .malformed(let at, let error):
            malformed += 1
            note(at, "malformed: \(error)")
        case .skipped(let at, let error):
            skipped += 1
            note(at, "\(error)")
        case .inputFailed(let at, let error, _):
            damagedInputs += 1
            note(at, "\(error)")
        case .bareCarriageReturns(let at, let count):
            bareCarriageReturnInputs += 1
            note(at, MergeEvent.bareCarriageReturnsText(count: count))
        }
    }

    /// Counts one parsed line (``EventSource/next(lines:events:)``), borrowed where its source keeps it.
    ///
    /// - Complexity: O(channel name length), O(tags) for a CAPTURE or USERNOTICE line. - Allocations:
    ///   only at a channel's, type's or msg-id's first sight.
    public func handleLine(_ line: borrowing LentLine, _ bytes: Span<UInt8>) {
        lines += 1
        let command = line.message.command
        var slot = Self.typeSlot(command)
        switch command {
        case .privmsg: messages += 1
        case .capture, .usernotice, .notice: slot = countRare(line, slot, bytes)
        default: break
        }
        typeCounts[slot] += 1
        channels.add(bytes, (line.message.channel ?? ByteRange(0, 0)).range)
        let source = line.timeSource
        if source == .timeTag || source == .tmiSentTs, let t = line.timestamp {
            if first == nil || t < first! { first = t }
            if last == nil || t > last! { last = t }
        }
    }

    /// Counts what a CAPTURE, USERNOTICE or NOTICE line holds besides its type and channel, and
    /// returns its type's slot (`slot`, or a CAPTURE line's own). Out of line: the common path does
    /// not copy the message. The line is parsed again, every tag sorted: `stats` reads with
    /// ``TagScope/times`` (``MergeReader/tagScope``), which sorts only the times, and these lines
    /// are few.
    ///
    /// - Complexity: O(line bytes). - Allocations: only at a msg-id's first sight.
    @inline(never)
    private func countRare(_ line: borrowing LentLine, _ slot: Int, _ bytes: Span<UInt8>) -> Int {
        // The reader parsed these bytes already: this parse does not fail (were it to, the type is counted).
        guard let message = try? TwitchMessage.parse(bytes) else { return slot }
        switch message.command {
        case .capture:
            guard let record = CaptureRecordLine(message, in: bytes) else { return Self.unknownSlot }
            count(record, bytes)
            return record.isGap ? Self.gapSlot : slot
        case .usernotice:
            if message.channel != nil { countUserNotice(message.tags[.msgId], bytes) }
        case .notice:
            if let id = message.tags[.msgId] { notices.add(bytes, id.raw.range) }
        default:
            break
        }
        return slot
    }

    /// The names of the types counted, by slot: each command's ``TwitchCommand/name`` at its
    /// ``typeSlot(_:)`` (a CAPTURE line's is `session`, as ``TwitchMessage/typeName(in:)`` reads it),
    /// and `gap` at ``gapSlot``.
    static let typeNames: [StaticString] = {
        let commands: [TwitchCommand] = [
            .privmsg, .usernotice, .clearchat, .clearmsg, .roomstate, .userstate, .globaluserstate, .notice,
            .whisper, .join, .part, .cap, .ping, .pong, .reconnect, .hosttarget, .names, .endOfNames, .numeric(0),
            .capture, .unknown,
        ]
        var names = [StaticString](repeating: "gap", count: unknownSlot + 1)
        for command in commands { names[typeSlot(command)] = command.name }
        return names
    }()
    /// The slots of a capture record's `gap` and of a CAPTURE line that is no record (`unknown`).
    static let gapSlot = 18
    static let unknownSlot = 19

    /// The slot counting `command`'s lines (a CAPTURE line's is `session`'s; see ``handleLine(_:_:)``).
    ///
    /// Case by case, without a `default` (the first sixteen as `TwitchCommand`'s case index numbers
    /// them): a new command gets a slot before this compiles, where a `default` taking the case
    /// index would put it past the end of ``typeNames``.
    ///
    /// - Complexity: O(1). - Allocations: none.
    static func typeSlot(_ command: TwitchCommand) -> Int {
        switch command {
        case .privmsg: 0
        case .usernotice: 1
        case .clearchat: 2
        case .clearmsg: 3
        case .roomstate: 4
        case .userstate: 5
        case .globaluserstate: 6
        case .notice: 7
        case .whisper: 8
        case .join: 9
        case .part: 10
        case .cap: 11
        case .ping: 12
        case .pong: 13
        case .reconnect: 14
        case .hosttarget: 15
        case .names, .endOfNames, .numeric: 16
        case .capture: 17
        case .unknown: unknownSlot
        }
    }

    /// Counts a USERNOTICE by its msg-id.
    ///
    /// - Complexity: O(kinds × msg-id length). - Allocations: only at a kind's or msg-id's first sight.
    private func countUserNotice(_ id: TagValue?, _ bytes: Span<UInt8>) {
        guard let id else {
            userNoticesWithoutId += 1
            return
        }
        guard let name = UserNoticeKind(msgId: id, in: bytes).name else {
            unknownUserNotices.add(bytes, id.raw.range)
            return
        }
        for i in userNoticeKinds.indices where unsafe userNoticeKinds[i].name.utf8Start == name.utf8Start {
            userNoticeKinds[i].count += 1
            return
        }
        userNoticeKinds.append((name, 1))
    }

    private func count(_ r: CaptureRecordLine, _ bytes: Span<UInt8>) {
        records.records += 1
        if let from = r.gapFrom, let to = r.gapTo {
            records.gaps += 1
            records.gapMs += to.milliseconds - from.milliseconds
            gapChannels.add(bytes, (r.channel ?? ByteRange(0, 0)).range)
            return
        }
        func event(_ name: StaticString) -> Bool { SnakeCase.equals(bytes, r.event, name) }
        if event("start") {
            records.runs += 1
            connectedInRun = false
        } else if event("ended_without_stop") {
            records.endedWithoutStop += 1
        } else if event("connected") {
            records.connections += 1
            if connectedInRun { records.reconnects += 1 }
            connectedInRun = true
        } else if event("disconnected") {
            records.disconnects += 1
        } else if event("joined") {
            records.joined += 1
        } else if event("join_failed") {
            records.joinFailed += 1
        } else if event("back_pressure") {
            records.backPressure += 1
        }
    }

    /// Chat messages per second between the first and last timestamp.
    public var messagesPerSecond: Double? {
        guard let first, let last, last > first else { return nil }
        return Double(messages) / (Double(last.milliseconds - first.milliseconds) / 1000)
    }

    private func note(_ at: MergedLine, _ what: String) {
        if listLimit <= 0 || problems.count < listLimit {
            problems.append(Problem(input: at.inputName, line: at.lineNumber, what: what))
        }
    }

    /// A tag value kept raw (a msg-id), unescaped.
    private static func unescaped(_ raw: Span<UInt8>) -> String {
        var out: [UInt8] = []
        TagValue(raw: ByteRange(0..<raw.count)).unescape(in: raw) { out.append($0) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The statistics as text, one fact per line.
    public func text() -> String {
        var out = "lines: \(lines)\n"
        out += "messages: \(messages)\n"
        if let first, let last { out += "first: \(first.rfc3339)\nlast: \(last.rfc3339)\n" }
        if let rate = messagesPerSecond { out += "messages/s: \((rate * 100).rounded() / 100)\n" }
        out += "malformed: \(malformed)\nskipped (over-long): \(skipped)\ndamaged inputs: \(damagedInputs)\n"
        out += "inputs with bare CR line endings: \(bareCarriageReturnInputs)\n"
        if records.records > 0 {
            let c = capture
            out += "capture runs: \(c.runs) (\(c.endedWithoutStop) ended without stop)\n"
            out += "reconnects: \(c.reconnects)\n"
            out += "joins: \(c.joined) joined, \(c.joinFailed) failed\n"
            let seconds = "\(c.gapMs / 1000).\(String(c.gapMs % 1000 + 1000).dropFirst())"
            out += "gaps: \(c.gaps)" + (c.gaps > 0 ? " (\(seconds) s)" : "") + "\n"
            for (channel, n) in c.gapChannels.sorted(by: {
                $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
            }) {
                out += "  \(channel.isEmpty ? "(no channel)" : channel): \(n)\n"
            }
        }
        func table(_ title: String, _ counts: [String: Int]) {
            guard !counts.isEmpty else { return }
            out += "\(title):\n"
            for (key, n) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                out += "  \(key.isEmpty ? "(no channel)" : key): \(n)\n"
            }
        }
        table("channels", perChannel)
        table("commands", perCommand)
        table("usernotice msg-ids", perUserNotice)
        table("notice msg-ids", perNotice)
        if !problems.isEmpty {
            out += "problems:\n"
            for p in problems { out += "  \(p.input):\(p.line): \(p.what)\n" }
            let more = malformed + skipped + damagedInputs + bareCarriageReturnInputs - problems.count
            if more > 0 { out += "  … and \(more) more\n" }
        }
        return out
    }

    /// The statistics as one JSON object (with a trailing newline).
    public func json() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("lines")
        w.number(lines)
        w.key("messages")
        w.number(messages)
        w.key("first")
        if let first { w.timestamp(first) } else { w.null() }
        w.key("last")
        if let last { w.timestamp(last) } else { w.null() }
        w.key("messages_per_second")
        if let rate = messagesPerSecond { w.number(rate) } else { w.null() }
        w.key("malformed")
        w.number(malformed)
        w.key("skipped")
        w.number(skipped)
        w.key("damaged_inputs")
        w.number(damagedInputs)
        w.key("bare_cr_inputs")
        w.number(bareCarriageReturnInputs)
        func object(_ key: StaticString, _ counts: [String: Int]) {
            w.key(key)
            w.beginObject()
            for (k, n) in counts.sorted(by: { $0.key < $1.key }) {
                let bytes = Array(k.utf8)
                w.key(bytes: bytes.span, ByteRange(0..<bytes.count))
                w.number(n)
            }
            w.endObject()
        }
        // Lines without a channel (server numerics, capture's records, PING) under a key of their own:
        // not a channel named "".
        object("channels", perChannel.filter { !$0.key.isEmpty })
        w.key("no_channel")
        w.number(perChannel[""] ?? 0)
        object("commands", perCommand)
        object("usernotices", perUserNotice)
        object("notices", perNotice)
        let c = capture
        w.key("capture")
        w.beginObject()
        for (key, value) in [
            ("records", c.records), ("runs", c.runs), ("ended_without_stop", c.endedWithoutStop),
            ("connections", c.connections), ("reconnects", c.reconnects), ("disconnects", c.disconnects),
            ("joined", c.joined), ("join_failed", c.joinFailed), ("back_pressure", c.backPressure), ("gaps", c.gaps),
        ] {
            let bytes = Array(key.utf8)
            w.key(bytes: bytes.span, ByteRange(0..<bytes.count))
            w.number(value)
        }
        w.key("gap_ms")
        w.number(c.gapMs)
        object("gap_channels", c.gapChannels)
        w.endObject()
        w.key("problems")
        w.beginArray()
        for p in problems {
            w.beginObject()
            w.key("input")
            w.string(p.input)
            w.key("line")
            w.number(p.line)
            w.key("what")
            w.string(p.what)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        w.raw(byte: 0x0A)
        return w.bytes
    }
}

@available(*, unavailable)
extension StatsCollector: Sendable {}
