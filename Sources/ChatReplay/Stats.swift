public import ChatArchive
import ChatFormat
public import ChatStore
import IRCWire

/// Counts what a set of logs holds: per channel and per command / msg-id, message rate, first and
/// last timestamps, and the positions of malformed lines.
public final class StatsCollector {
    public struct Problem: Sendable {
        public var input: String
        public var line: Int
        public var what: String
    }

    public private(set) var lines = 0
    public private(set) var perChannel: [String: Int] = [:]
    public private(set) var perCommand: [String: Int] = [:]
    public private(set) var perUserNotice: [String: Int] = [:]
    public private(set) var perNotice: [String: Int] = [:]
    public private(set) var messages = 0
    public private(set) var first: Timestamp? = nil
    public private(set) var last: Timestamp? = nil
    public private(set) var problems: [Problem] = []
    public private(set) var malformed = 0
    public private(set) var skipped = 0
    public private(set) var damagedInputs = 0
    /// Problems listed one by one (the rest are only counted); 0 lists all.
    public let listLimit: Int

    /// - Parameter listLimit: problems listed one by one (the rest are only counted); 0 lists all.
    public init(listLimit: Int = 100) { self.listLimit = listLimit }

    /// Counts one event of a ``MergeReader``.
    public func handle(_ event: MergeEvent, _ bytes: Span<UInt8>) {
        switch event {
        case .line(let at, let message):
            lines += 1
            let channel = message.channel.map { String(decoding: bytes, in: $0) } ?? ""
            perChannel[channel, default: 0] += 1
            let name = message.command.name.description
            perCommand[name, default: 0] += 1
            if message.command == .privmsg { messages += 1 }
            if let n = message.userNotice(in: bytes) {
                let kind =
                    n.kind.name?.description
                    ?? (message.tags[.msgId].map { "unknown:" + unescaped(bytes, $0) } ?? "unknown")
                perUserNotice[kind, default: 0] += 1
            }
            if message.command == .notice, let id = message.tags[.msgId] {
                perNotice[unescaped(bytes, id), default: 0] += 1
            }
            if at.timeSource == .timeTag || at.timeSource == .tmiSentTs, let t = at.timestamp {
                if first == nil || t < first! { first = t }
                if last == nil || t > last! { last = t }
            }
        case .malformed(let at, let error):
            malformed += 1
            note(at, "malformed: \(error)")
        case .skipped(let at, let error):
            skipped += 1
            note(at, "\(error)")
        case .inputFailed(let at, let error, _):
            damagedInputs += 1
            note(at, "\(error)")
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
            let more = malformed + skipped + damagedInputs - problems.count
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
