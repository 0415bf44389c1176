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
        var out = collidedChannels
        for (name, n) in zip(channelBytes, channelCounts) {
            out[String(decoding: name, as: UTF8.self), default: 0] += n
        }
        return out
    }
    /// Lines per type name (`privmsg`, `gap`, …).
    public var perCommand: [String: Int] {
        var out: [String: Int] = [:]
        for (name, n) in commandCounts { out[name.description, default: 0] += n }
        return out
    }
    // Per-line counting without a String per line: channels by a hash of their bytes (the name is
    // made once, at first sight; a hash that names another channel goes to `collidedChannels`),
    // types by the identity of their static name (a handful).
    private var channelSlot: [UInt64: Int] = [:]
    private var channelBytes: [[UInt8]] = []
    private var channelCounts: [Int] = []
    private var collidedChannels: [String: Int] = [:]
    private var commandCounts: [(name: StaticString, count: Int)] = []
    public private(set) var perUserNotice: [String: Int] = [:]
    public private(set) var perNotice: [String: Int] = [:]
    public private(set) var messages = 0
    public private(set) var first: Timestamp? = nil
    public private(set) var last: Timestamp? = nil
    public private(set) var problems: [Problem] = []
    public private(set) var malformed = 0
    public private(set) var skipped = 0
    public private(set) var damagedInputs = 0
    /// Inputs whose lines hold CRs that no LF follows (see ``MergeEvent/bareCarriageReturns(_:count:)``).
    public private(set) var bareCarriageReturnInputs = 0
    public private(set) var capture = CaptureCounts()
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
    /// - Complexity: O(line length). - Allocations: only at a channel's, command's or msg-id's first sight.
    public func handleLine(_ line: borrowing LentLine, _ bytes: Span<UInt8>) {
        lines += 1
        countChannel(line.message.channel ?? ByteRange(0, 0), bytes)
        countType(line.message.typeName(in: bytes))
        if let record = CaptureRecordLine(line.message, in: bytes) { count(record, bytes) }
        if line.message.command == .privmsg { messages += 1 }
        if let n = line.message.userNotice(in: bytes) {
            let id = line.message.tags[.msgId]
            let kind = n.kind.name?.description ?? (id.map { "unknown:" + unescaped(bytes, $0) } ?? "unknown")
            perUserNotice[kind, default: 0] += 1
        }
        if line.message.command == .notice, let id = line.message.tags[.msgId] {
            perNotice[unescaped(bytes, id), default: 0] += 1
        }
        let source = line.timeSource
        if source == .timeTag || source == .tmiSentTs, let t = line.timestamp {
            if first == nil || t < first! { first = t }
            if last == nil || t > last! { last = t }
        }
    }

    /// - Complexity: O(name bytes). - Allocations: only at a channel's first sight.
    private func countChannel(_ range: ByteRange, _ bytes: Span<UInt8>) {
        var fnv = FNV1a64()
        fnv.add(bytes, range.range)
        let hash = fnv.value
        if let slot = channelSlot[hash] {
            if bytes.equals(channelBytes[slot], at: range.range) {
                channelCounts[slot] += 1
            } else {
                collidedChannels[String(decoding: bytes, in: range), default: 0] += 1
            }
            return
        }
        channelSlot[hash] = channelBytes.count
        var name: [UInt8] = []
        for i in range.range { name.append(bytes[i]) }
        channelBytes.append(name)
        channelCounts.append(1)
    }

    /// - Complexity: O(types seen), a handful. - Allocations: only at a type's first sight.
    private func countType(_ name: StaticString) {
        for i in commandCounts.indices where unsafe commandCounts[i].name.utf8Start == name.utf8Start {
            commandCounts[i].count += 1
            return
        }
        commandCounts.append((name, 1))
    }

    private func count(_ r: CaptureRecordLine, _ bytes: Span<UInt8>) {
        capture.records += 1
        if let from = r.gapFrom, let to = r.gapTo {
            capture.gaps += 1
            capture.gapMs += to.milliseconds - from.milliseconds
            capture.gapChannels[r.channel.map { String(decoding: bytes, in: $0) } ?? "", default: 0] += 1
            return
        }
        func event(_ name: StaticString) -> Bool { SnakeCase.equals(bytes, r.event, name) }
        if event("start") {
            capture.runs += 1
            connectedInRun = false
        } else if event("ended_without_stop") {
            capture.endedWithoutStop += 1
        } else if event("connected") {
            capture.connections += 1
            if connectedInRun { capture.reconnects += 1 }
            connectedInRun = true
        } else if event("disconnected") {
            capture.disconnects += 1
        } else if event("joined") {
            capture.joined += 1
        } else if event("join_failed") {
            capture.joinFailed += 1
        } else if event("back_pressure") {
            capture.backPressure += 1
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

    private func unescaped(_ bytes: Span<UInt8>, _ v: TagValue) -> String {
        var out: [UInt8] = []
        v.unescape(in: bytes) { out.append($0) }
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
        if capture.records > 0 {
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
        object("channels", perChannel)
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
