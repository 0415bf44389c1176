import ChatFormat
public import ChatLogStore
import ChatStore
import IRCWire

/// Encodes one served line in a ``LogFormat``, into a buffer it reuses: the shapes of rustlog's
/// responders (`src/web/responders/logs/text_stream.rs`, `json_stream.rs`, `ndjson_stream.rs`) and of
/// its message schema (`src/logs/schema/message/basic.rs`, `full.rs`; the text of
/// `src/db/schema.rs`, `user_friendly_text`).
///
/// A line's encoding is complete in itself (an element of `{"messages":[…]}` without its comma, or a
/// text, raw or NDJSON line with its CRLF), so an answer can reorder and cut them (``LogAnswer``).
///
/// One owner (`~Copyable`); steady state allocates nothing (``JSONWriter`` and ``ByteBuffer`` keep
/// their capacity).
public struct LogEncoder: ~Copyable {
    public let format: LogFormat
    /// The last line's encoding.
    private var out: JSONWriter
    /// The last line's text as people read it (``friendlyText(_:in:)``).
    private var text: ByteBuffer

    public init(format: LogFormat) {
        self.format = format
        out = JSONWriter(capacity: 2048)
        text = ByteBuffer(capacity: 1024)
    }

    /// Encodes `line` (whose bytes are `bytes`) and lends the encoding to `body`.
    ///
    /// - Complexity: O(line length). - Allocations: none once the buffers have grown.
    public mutating func encode<R, E: Error>(
        _ line: StoredLine, in bytes: Span<UInt8>, _ body: (Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        out.reset()
        switch format {
        case .raw:
            let (needsAt, range) = line.serverLine(in: bytes)
            if needsAt { out.raw(byte: UInt8(ascii: "@")) }
            out.buffer.raw(bytes, range)
            out.raw("\r\n")
        case .text:
            writeText(line, in: bytes)
        case .json, .jsonBasic, .ndjson:
            writeJSON(line, in: bytes, full: format == .json)
            if format == .ndjson { out.raw("\r\n") }
        }
        return try out.withBytes(body)
    }

    /// `[YYYY-MM-DD HH:MM:SS] #channel user: text` + CRLF, or without `user: ` when the line names no
    /// user (`text_stream.rs`; times in UTC).
    private mutating func writeText(_ line: StoredLine, in bytes: Span<UInt8>) {
        let t = line.timestamp(in: bytes).civil
        text.reset()
        text.raw(byte: UInt8(ascii: "["))
        putDate(t, separator: UInt8(ascii: " "))
        text.withBytes { span in out.buffer.raw(span, 0..<span.count) }
        out.raw("] #")
        if let channel = line.message.channel { out.buffer.raw(bytes, channel.range) }
        out.raw(byte: UInt8(ascii: " "))
        if let user = line.userLogin(in: bytes) {
            out.buffer.raw(bytes, user.range)
            out.raw(": ")
        }
        friendlyText(line, in: bytes)
        text.withBytes { span in out.buffer.raw(span, 0..<span.count) }
        out.raw("\r\n")
    }

    /// rustlog's message object: `text`, `displayName`, `timestamp`, `id`, `tags` (a basic message),
    /// then for a full one `username`, `channel`, `raw`, `type`. Tag values are as on the wire (still
    /// IRC-escaped, as rustlog's `all_tags` gives them); the `time` tag capture added is left out.
    private mutating func writeJSON(_ line: StoredLine, in bytes: Span<UInt8>, full: Bool) {
        out.beginObject()
        out.key("text")
        friendlyText(line, in: bytes)
        text.withBytes { span in out.string(span, ByteRange(0..<min(span.count, Int(UInt16.max)))) }
        out.key("displayName")
        if let name = line.message.tags[.displayName] { out.string(bytes, tag: name) } else { out.string("") }
        out.key("timestamp")
        writeTimestamp(line.timestamp(in: bytes))
        out.key("id")
        if let id = line.message.tags[.id] { out.string(bytes, id.raw) } else { out.string("") }
        out.key("tags")
        out.beginObject()
        var cursor = TagCursor(line.message.line)
        while let tag = cursor.next(in: bytes) {
            if bytes.equals(Self.timeKey, at: tag.key.range) { continue }
            out.key(bytes: bytes, tag.key)
            out.string(bytes, tag.value.raw)
        }
        out.endObject()
        if full {
            out.key("username")
            if let user = line.userLogin(in: bytes) { out.string(bytes, user) } else { out.string("") }
            out.key("channel")
            if let channel = line.message.channel { out.string(bytes, channel) } else { out.string("") }
            out.key("raw")
            let (needsAt, range) = line.serverLine(in: bytes)
            if needsAt {
                text.reset()
                text.raw(byte: UInt8(ascii: "@"))
                text.raw(bytes, range)
                text.withBytes { span in out.string(span, ByteRange(0..<min(span.count, Int(UInt16.max)))) }
            } else {
                out.string(bytes, ByteRange(range))
            }
            out.key("type")
            out.number(line.typeCode)
        }
        out.endObject()
    }

    /// A time as chrono writes a UTC `DateTime` in JSON: `2025-11-21T04:26:41.971Z`, or without the
    /// fraction when the milliseconds are 0 (`2025-11-21T04:26:41Z`).
    private mutating func writeTimestamp(_ time: Timestamp) {
        let t = time.civil
        text.reset()
        putDate(t, separator: UInt8(ascii: "T"))
        if t.millisecond != 0 {
            text.raw(byte: UInt8(ascii: "."))
            put(t.millisecond, digits: 3)
        }
        text.raw(byte: UInt8(ascii: "Z"))
        text.withBytes { span in out.string(span, ByteRange(0..<span.count)) }
    }

    /// `YYYY-MM-DD`, `separator`, `HH:MM:SS` into ``text``.
    private mutating func putDate(_ t: CivilTime, separator: UInt8) {
        put(t.year, digits: 4)
        text.raw(byte: UInt8(ascii: "-"))
        put(t.month, digits: 2)
        text.raw(byte: UInt8(ascii: "-"))
        put(t.day, digits: 2)
        text.raw(byte: separator)
        put(t.hour, digits: 2)
        text.raw(byte: UInt8(ascii: ":"))
        put(t.minute, digits: 2)
        text.raw(byte: UInt8(ascii: ":"))
        put(t.second, digits: 2)
    }

    /// `value` in decimal into ``text``, zero-padded to `digits` (`0 <= value`).
    private mutating func put(_ value: Int, digits: Int) {
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        var v = max(0, value)
        if v >= divisor * 10 {
            text.decimal(Int64(v))
            return
        }
        while divisor > 0 {
            text.raw(byte: UInt8(ascii: "0") &+ UInt8(v / divisor))
            v %= divisor
            divisor /= 10
        }
    }

    /// The line's text as rustlog shows it (`src/db/schema.rs`, `user_friendly_text`), into ``text``:
    /// - PRIVMSG: the message, without the `\u{1}ACTION ` … `\u{1}` of a /me;
    /// - CLEARCHAT: `<login> has been timed out for <ban-duration> seconds`, `<login> has been banned`,
    ///   or `Chat has been cleared`;
    /// - USERNOTICE: its `system-msg` (unescaped), then a space and the user's message when it has one;
    ///   nothing without a `system-msg`;
    /// - CLEARMSG: ``message `<text>` from `<login>` has been deleted``, as rustlog's file-backed
    ///   versions wrote it (`src/logs/schema.rs`, `Message::parse_from_raw_irc`), so a deleted message
    ///   reads as deleted in text too; its current ClickHouse-backed `user_friendly_text` writes no text
    ///   for it (the JSON `type`, 13, and `tags`, `target-msg-id`, say what it is in both);
    /// - anything else: nothing.
    private mutating func friendlyText(_ line: StoredLine, in bytes: Span<UInt8>) {
        text.reset()
        let message = line.message
        switch message.command {
        case .privmsg:
            guard let body = message.text(in: bytes) else { return }
            var range = body.range
            if range.count >= 9, bytes[range.lowerBound] == 1, bytes[range.upperBound - 1] == 1,
                bytes.equals(Self.actionPrefix, at: range.lowerBound..<range.lowerBound + 8)
            {
                range = (range.lowerBound + 8)..<(range.upperBound - 1)
            }
            text.raw(bytes, range)
        case .clearchat:
            guard let login = line.userLogin(in: bytes) else {
                text.raw("Chat has been cleared")
                return
            }
            text.raw(bytes, login.range)
            if let duration = message.tags[.banDuration] {
                text.raw(" has been timed out for ")
                text.raw(bytes, duration.raw.range)
                text.raw(" seconds")
            } else {
                text.raw(" has been banned")
            }
        case .usernotice:
            guard let system = message.tags[.systemMsg] else { return }
            system.unescape(in: bytes) { text.raw(byte: $0) }
            if let body = message.text(in: bytes), !body.isEmpty {
                text.raw(byte: UInt8(ascii: " "))
                text.raw(bytes, body.range)
            }
        case .clearmsg:
            text.raw("message `")
            if let body = message.text(in: bytes) { text.raw(bytes, body.range) }
            text.raw("` from `")
            if let login = line.userLogin(in: bytes) { text.raw(bytes, login.range) }
            text.raw("` has been deleted")
        default:
            return
        }
    }

    private static let timeKey: [UInt8] = Array("time".utf8)
    private static let actionPrefix: [UInt8] = [1] + Array("ACTION ".utf8)
}

@available(*, unavailable)
extension LogEncoder: Sendable {}
