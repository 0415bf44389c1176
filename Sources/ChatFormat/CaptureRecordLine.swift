public import ChatStore
public import IRCWire

/// A record of chatcap's own as `capture` stores it among the lines, read back:
///
/// ```
/// @time=<RFC 3339>[;gap-from=<t>;gap-to=<t>[;reason=<text>]] :chatcap CAPTURE <event> <target> :<text>
/// ```
///
/// (see `CaptureWriter+Records.swift`). A `gap` whose `gap-from` and `gap-to` can be read (RFC 3339,
/// or decimal milliseconds since 1970 as older captures may hold) and whose target is a channel is a
/// **gap** record; every other record is a **session** record with its event and text — the same
/// two kinds `tail` writes (``RecordEncoder``). The gap's reason is its `reason` tag, or for captures
/// written before that tag existed, the text after the first `): ` of `gap in #c from … (n ms): reason`.
///
/// - Complexity: O(tags + parameters) to read. - Allocations: none.
public struct CaptureRecordLine: Sendable {
    /// The event as stored, e.g. `join-failed` (written out in snake_case: `join_failed`).
    public var event: ByteRange
    /// The target's channel without `#`; `nil` for `*`.
    public var channel: ByteRange?
    /// The human-readable text; `nil` when the line has none.
    public var text: ByteRange?
    /// A gap's interval: set only for a readable gap record.
    public var gapFrom: Timestamp?
    public var gapTo: Timestamp?
    /// A gap's reason from its `reason` tag.
    public var reasonTag: TagValue?
    /// A gap's reason cut from the text (older captures, without the `reason` tag).
    public var reasonText: ByteRange?
    /// A backfilled gap's state (`closed`, `partial`, `failed`) and the lines it recovered; `nil`
    /// when no recent-messages service was asked.
    public var backfill: ByteRange?
    public var recovered: Int64?
    /// A partial backfill's interval still missing.
    public var missingFrom: Timestamp?
    public var missingTo: Timestamp?
    /// A failed backfill's error.
    public var backfillError: TagValue?

    /// The record of a `CAPTURE` line, or `nil` for other lines and for a CAPTURE line without an
    /// event and a target.
    public init?(_ message: TwitchMessage, in bytes: Span<UInt8>) {
        guard message.command == .capture, message.line.paramCount >= 2,
            let event = message.line.param(0, in: bytes), !event.isEmpty,
            let target = message.line.param(1, in: bytes)
        else { return nil }
        self.event = event
        channel =
            target.count > 1 && bytes[Int(target.lower)] == UInt8(ascii: "#")
            ? ByteRange(target.lower + 1, target.upper) : nil
        text = message.line.paramCount >= 3 ? message.line.lastParam(in: bytes) : nil
        guard channel != nil, bytes.extracting(event.range).equals("gap"),
            let from = Self.time(message.line.tag("gap-from", in: bytes), bytes),
            let to = Self.time(message.line.tag("gap-to", in: bytes), bytes), from <= to
        else { return }
        gapFrom = from
        gapTo = to
        if let state = message.line.tag("backfill", in: bytes), !state.raw.isEmpty {
            backfill = state.raw
            recovered = message.line.tag("recovered", in: bytes)?.integer(in: bytes) ?? 0
            missingFrom = Self.time(message.line.tag("missing-from", in: bytes), bytes)
            missingTo = Self.time(message.line.tag("missing-to", in: bytes), bytes)
            backfillError = message.line.tag("backfill-error", in: bytes)
        }
        if let reason = message.line.tag("reason", in: bytes) {
            reasonTag = reason
        } else if let text {
            reasonText = Self.reason(in: text, bytes)
        }
    }

    /// Whether this is a gap record (else a session record).
    public var isGap: Bool { gapFrom != nil }

    /// The `type` in the typed JSON: `gap` or `session`.
    public var typeName: StaticString { isGap ? "gap" : "session" }

    /// A time tag's value: RFC 3339, or decimal milliseconds since 1970.
    private static func time(_ value: TagValue?, _ bytes: Span<UInt8>) -> Timestamp? {
        guard let value else { return nil }
        let v = bytes.extracting(value.raw.range)
        return Timestamp(rfc3339: v) ?? Timestamp(decimalMilliseconds: v)
    }

    /// The part of an older gap text after its first `): `, or all of it.
    private static func reason(in text: ByteRange, _ bytes: Span<UInt8>) -> ByteRange {
        var i = Int(text.lower)
        let end = Int(text.upper)
        while i + 2 < end {
            if bytes[i] == UInt8(ascii: ")") && bytes[i + 1] == UInt8(ascii: ":") && bytes[i + 2] == UInt8(ascii: " ") {
                return ByteRange(i + 3..<end)
            }
            i += 1
        }
        return text
    }
}

extension TwitchMessage {
    /// The line's `type` in the typed JSON and for `--type`: the command's name, `gap` for a gap
    /// record of capture, `session` for its other records, `unknown` for a `CAPTURE` line that is not
    /// a record.
    ///
    /// - Complexity: O(1), O(tags) for a CAPTURE line. - Allocations: none.
    public func typeName(in bytes: Span<UInt8>) -> StaticString {
        guard command == .capture else { return command.name }
        return CaptureRecordLine(self, in: bytes)?.typeName ?? "unknown"
    }

    /// The channel a line belongs to: ``channel``, or the target channel of a capture record.
    public func recordChannel(in bytes: Span<UInt8>) -> ByteRange? {
        if let channel { return channel }
        guard command == .capture else { return nil }
        return CaptureRecordLine(self, in: bytes)?.channel
    }
}

extension CaptureRecordLine {
    /// Writes the record's reason as a JSON string value: its `reason` tag (unescaped), else the
    /// reason in its text, else `""`. Shared by the NDJSON and ClickHouse encoders.
    ///
    /// - Complexity: O(reason length). - Allocations: none beyond the writer's growth.
    func writeReason(_ bytes: Span<UInt8>, into out: inout JSONWriter) {
        if let reasonTag {
            out.string(bytes, tag: reasonTag)
        } else if let reasonText {
            out.string(bytes, reasonText)
        } else {
            out.string("")
        }
    }
}
