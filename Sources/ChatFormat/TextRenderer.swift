import ChatStore
public import IRCWire

/// Renders a line for people: `HH:MM:SS #channel display_name: message`, the name in the user's
/// colour (24-bit) when colour is on, `/me` in italics as `* name message`, and system lines
/// (`-- …`) for notices, moderation, room state and protocol traffic. Moderated messages are struck
/// through (colour) or marked (plain) with the reason. Capture's own records read
/// `-- gap: not captured from <RFC 3339> to <RFC 3339> (<s.mmm> s): <reason>` and
/// `-- capture <event in words>: <text>`, under their channel if they name one. A line recovered
/// after a gap from a recent-messages service (`historical=1`) reads `(recovered)` before its text.
public struct TextRenderer: Sendable {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    /// Twitch's default name colours, for users who never chose one.
    private static let palette: InlineArray<15, UInt32> = [
        0xFF0000, 0x0000FF, 0x008000, 0xB22222, 0xFF7F50, 0x9ACD32, 0xFF4500, 0x2E8B57, 0xDAA520, 0xD2691E,
        0x5F9EA0, 0x1E90FF, 0xFF69B4, 0x8A2BE2, 0x00FF7F,
    ]
    private static let reset: StaticString = "\u{1B}[0m"
    private static let dim: StaticString = "\u{1B}[2m"
    private static let italic: StaticString = "\u{1B}[3m"
    private static let strike: StaticString = "\u{1B}[9m"

    /// Appends the rendered line and a newline to `out` (its bytes, not a JSON value).
    ///
    /// - Complexity: O(line). - Allocations: none once the buffer has grown.
    public func render(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, _ context: LineContext, into out: inout ByteBuffer
    ) {
        if let t = context.timestamp {
            out.raw(timeOfDay: t)
            out.raw(byte: UInt8(ascii: " "))
        } else {
            out.raw("--:--:-- ")
        }
        let record = message.command == .capture ? CaptureRecordLine(message, in: bytes) : nil
        if let channel = message.channel ?? record?.channel {
            out.raw(byte: UInt8(ascii: "#"))
            text(bytes, channel, into: &out)
            out.raw(byte: UInt8(ascii: " "))
        }
        // A line recovered after a gap (`historical=1`), not received live.
        if let historical = message.tags[.historical], !bytes.equals("0", at: historical.raw) {
            out.raw("(recovered) ")
        }
        switch message.command {
        case .privmsg:
            if let p = message.privmsg(in: bytes) {
                chat(bytes, message, p, context.tombstone ?? .none, into: &out)
            } else {
                system(bytes, message, into: &out)
            }
        case .whisper:
            if let w = message.whisper(in: bytes) {
                out.raw("(whisper) ")
                name(bytes, message, login: w.from, into: &out)
                out.raw(" → ")
                text(bytes, w.to, into: &out)
                out.raw(": ")
                text(bytes, w.text, into: &out)
            } else {
                system(bytes, message, into: &out)
            }
        case .capture:
            if let record { captureRecord(bytes, record, into: &out) } else { system(bytes, message, into: &out) }
        default:
            system(bytes, message, into: &out)
        }
        out.raw(byte: 0x0A)
    }

    /// A capture record, dimmed like the other system lines.
    private func captureRecord(_ bytes: Span<UInt8>, _ r: CaptureRecordLine, into out: inout ByteBuffer) {
        if color { out.raw(Self.dim) }
        if let from = r.gapFrom, let to = r.gapTo {
            out.raw("-- gap: not captured from ")
            out.raw(rfc3339: from)
            out.raw(" to ")
            out.raw(rfc3339: to)
            out.raw(" (")
            let ms = to.milliseconds - from.milliseconds
            out.decimal(ms / 1000)
            out.raw(byte: UInt8(ascii: "."))
            let fraction = ms % 1000
            if fraction < 100 { out.raw(byte: UInt8(ascii: "0")) }
            if fraction < 10 { out.raw(byte: UInt8(ascii: "0")) }
            out.decimal(fraction)
            out.raw(" s)")
            if let tag = r.reasonTag {
                out.raw(": ")
                unescaped(bytes, tag, into: &out)
            } else if let reason = r.reasonText {
                out.raw(": ")
                text(bytes, reason, into: &out)
            }
            if let state = r.backfill {
                // `; backfill closed (7 recovered)`, `; backfill partial (2 recovered, missing <t> to <t>)`,
                // `; backfill failed (0 recovered): <error>`.
                out.raw("; backfill ")
                text(bytes, state, into: &out)
                out.raw(" (")
                out.decimal(r.recovered ?? 0)
                out.raw(" recovered")
                if let from = r.missingFrom, let to = r.missingTo {
                    out.raw(", missing ")
                    out.raw(rfc3339: from)
                    out.raw(" to ")
                    out.raw(rfc3339: to)
                }
                out.raw(")")
                if let error = r.backfillError {
                    out.raw(": ")
                    unescaped(bytes, error, into: &out)
                }
            }
        } else {
            out.raw("-- capture ")
            for i in r.event.range {
                let b = bytes[i]
                safe(b == UInt8(ascii: "-") || b == UInt8(ascii: "_") ? UInt8(ascii: " ") : b, into: &out)
            }
            if let t = r.text {
                out.raw(": ")
                text(bytes, t, into: &out)
            }
        }
        if color { out.raw(Self.reset) }
    }

    /// `name: text`, or `* name text` for `/me`; struck through and marked when moderated.
    private func chat(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, _ p: Privmsg, _ tombstone: Tombstone, into out: inout ByteBuffer
    ) {
        if tombstone != .none && color { out.raw(Self.strike) }
        if p.isAction {
            out.raw("* ")
            name(bytes, message, login: p.login, into: &out)
            out.raw(byte: UInt8(ascii: " "))
            if color { out.raw(Self.italic) }
            text(bytes, p.text, into: &out)
        } else {
            name(bytes, message, login: p.login, into: &out)
            out.raw(": ")
            text(bytes, p.text, into: &out)
        }
        if color && (p.isAction || tombstone != .none) { out.raw(Self.reset) }
        mark(tombstone, into: &out)
    }

    /// A system line, `-- …`, dimmed when colour is on: notices, moderation, room state, membership,
    /// and any other line as `-- VERB params…`.
    private func system(_ bytes: Span<UInt8>, _ message: TwitchMessage, into out: inout ByteBuffer) {
        if color { out.raw(Self.dim) }
        out.raw("-- ")
        switch message.command {
        case .usernotice:
            if let n = message.userNotice(in: bytes) {
                if let s = n.systemMessage { unescaped(bytes, s, into: &out) } else { out.raw("user notice") }
                if let t = n.text {
                    out.raw(" — ")
                    text(bytes, t, into: &out)
                }
            }
        case .clearchat:
            if let c = message.clearChat(in: bytes) {
                switch c.action {
                case .clearAll: out.raw(ModerationWords.chatCleared)
                case .ban(let login):
                    text(bytes, login, into: &out)
                    out.raw(ModerationWords.wasBanned)
                case .timeout(let login, let seconds):
                    text(bytes, login, into: &out)
                    out.raw(ModerationWords.wasTimedOutFor)
                    out.decimal(seconds)
                    out.raw(ModerationWords.seconds)
                }
            }
        case .clearmsg:
            out.raw(ModerationWords.messageDeleted)
            if let m = message.clearMsg(in: bytes) {
                if let login = m.login {
                    out.raw(" from ")
                    unescaped(bytes, login, into: &out)
                }
                if let t = m.text {
                    out.raw(": ")
                    text(bytes, t, into: &out)
                }
            }
        case .roomstate:
            if let r = message.roomState(in: bytes) {
                out.raw(r.isFull ? "room state:" : "room state changed:")
                setting("emote-only", r.emoteOnly.map { $0 ? 1 : 0 }, into: &out)
                setting("followers-only", r.followersOnly, into: &out)
                setting("r9k", r.r9k.map { $0 ? 1 : 0 }, into: &out)
                setting("slow", r.slow, into: &out)
                setting("subs-only", r.subsOnly.map { $0 ? 1 : 0 }, into: &out)
            }
        case .notice:
            out.raw("notice")
            if let n = message.notice(in: bytes) {
                if let id = n.msgId {
                    out.raw(" (")
                    unescaped(bytes, id, into: &out)
                    out.raw(")")
                }
                if let t = n.text {
                    out.raw(": ")
                    text(bytes, t, into: &out)
                }
            }
        case .join, .part:
            if let m = message.membership(in: bytes) {
                text(bytes, m.login, into: &out)
                out.raw(m.isJoin ? " joined" : " left")
            }
        default:
            text(bytes, message.line.verbRange, into: &out)
            var params = ParamCursor(message.line)
            var first = true
            while let p = params.next(in: bytes) {
                // The channel is already shown.
                if first && message.channel != nil && p.lower + 1 == message.channel!.lower {
                    first = false
                    continue
                }
                first = false
                out.raw(byte: UInt8(ascii: " "))
                text(bytes, p, into: &out)
            }
        }
        if color { out.raw(Self.reset) }
    }

    private func setting(_ label: StaticString, _ value: Int64?, into out: inout ByteBuffer) {
        guard let value else { return }
        out.raw(byte: UInt8(ascii: " "))
        out.raw(label)
        out.raw(byte: UInt8(ascii: "="))
        out.decimal(value)
    }

    /// The display name (or login) in the user's colour.
    private func name(_ bytes: Span<UInt8>, _ message: TwitchMessage, login: ByteRange, into out: inout ByteBuffer) {
        if color {
            let rgb = Self.nameColor(bytes, tag: message.tags[.color], login: login)
            out.raw("\u{1B}[1;38;2;")
            out.decimal(Int64(rgb >> 16))
            out.raw(byte: UInt8(ascii: ";"))
            out.decimal(Int64(rgb >> 8 & 0xFF))
            out.raw(byte: UInt8(ascii: ";"))
            out.decimal(Int64(rgb & 0xFF))
            out.raw(byte: UInt8(ascii: "m"))
        }
        if let d = message.tags[.displayName], !d.raw.isEmpty {
            unescaped(bytes, d, into: &out)
        } else {
            text(bytes, login, into: &out)
        }
        if color { out.raw(Self.reset) }
    }

    /// A sender's name colour as `0xRRGGBB`: `#RRGGBB` from the `color` tag `tag`, else a stable pick
    /// from Twitch's default palette by `login` (as Twitch does for users who never chose one). The one
    /// rule for every renderer, so that all outputs colour a user alike.
    ///
    /// - Complexity: O(login). - Allocations: none.
    public static func nameColor(_ bytes: Span<UInt8>, tag: TagValue?, login: ByteRange) -> UInt32 {
        if let tag, tag.raw.count == 7, bytes[Int(tag.raw.lower)] == UInt8(ascii: "#") {
            var v: UInt32 = 0
            var ok = true
            for i in (Int(tag.raw.lower) + 1)..<Int(tag.raw.upper) {
                let c = bytes[i] | 0x20
                let d: UInt8 =
                    c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
                    ? c - UInt8(ascii: "0")
                    : (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f") ? c - UInt8(ascii: "a") + 10 : 0xFF)
                if d == 0xFF { ok = false }
                v = v << 4 | UInt32(d & 0xF)
            }
            if ok { return v }
        }
        var h: UInt32 = 0
        for i in login.range { h = h &* 31 &+ UInt32(bytes[i]) }
        return palette[Int(h % UInt32(palette.count))]
    }

    private func mark(_ t: Tombstone, into out: inout ByteBuffer) {
        if t.deleted {
            out.raw(byte: 0x20)
            out.raw(ModerationWords.deleted)
        }
        if let s = t.timedOutSeconds {
            out.raw(byte: 0x20)
            out.raw(ModerationWords.timedOutOpen)
            out.decimal(Int64(s))
            out.raw(ModerationWords.timedOutClose)
        }
        if t.banned {
            out.raw(byte: 0x20)
            out.raw(ModerationWords.banned)
        }
        if t.cleared {
            out.raw(byte: 0x20)
            out.raw(ModerationWords.cleared)
        }
    }

    /// Message text as-is, invalid UTF-8 repaired; control characters (but tab) shown as `?` so
    /// that chat cannot drive the terminal.
    private func text(_ bytes: Span<UInt8>, _ r: ByteRange, into out: inout ByteBuffer) {
        var repair = UTF8Repair()
        for i in r.range { repair.feed(bytes[i]) { safe($0, into: &out) } }
        repair.finish { safe($0, into: &out) }
    }

    private func unescaped(_ bytes: Span<UInt8>, _ v: TagValue, into out: inout ByteBuffer) {
        var repair = UTF8Repair()
        v.unescape(in: bytes) { b in repair.feed(b) { safe($0, into: &out) } }
        repair.finish { safe($0, into: &out) }
    }

    @inline(__always)
    private func safe(_ b: UInt8, into out: inout ByteBuffer) {
        out.raw(byte: (b < 0x20 && b != 0x09) || b == 0x7F ? UInt8(ascii: "?") : b)
    }
}
