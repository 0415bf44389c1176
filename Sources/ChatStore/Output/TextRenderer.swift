public import IRCWire

/// Renders a line for people: `HH:MM:SS #channel display_name: message`, the name in the user's
/// colour (24-bit) when colour is on, `/me` in italics as `* name message`, and system lines
/// (`-- …`) for notices, moderation, room state and protocol traffic. Moderated messages are struck
/// through (colour) or marked (plain) with the reason.
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
    public func render(_ bytes: Span<UInt8>, _ message: TwitchMessage, _ context: LineContext, into out: inout JSONWriter) {
        time(context.timestamp, into: &out)
        if let channel = message.channel {
            out.raw(byte: UInt8(ascii: "#"))
            text(bytes, channel, into: &out)
            out.raw(byte: UInt8(ascii: " "))
        }
        let tombstone = context.tombstone ?? Tombstone.none
        switch message.command {
        case .privmsg:
            guard let p = message.privmsg(in: bytes) else {
                generic(bytes, message, into: &out)
                out.raw(byte: 0x0A)
                return
            }
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
        case .usernotice:
            beginSystem(into: &out)
            do {
                if let n = message.userNotice(in: bytes) {
                    if let s = n.systemMessage { unescaped(bytes, s, into: &out) } else { out.raw("user notice") }
                    if let t = n.text {
                        out.raw(" — ")
                        text(bytes, t, into: &out)
                    }
                }
            }
            endSystem(into: &out)
        case .clearchat:
            beginSystem(into: &out)
            do {
                if let c = message.clearChat(in: bytes) {
                switch c.action {
                case .clearAll: out.raw("chat cleared by a moderator")
                case .ban(let login):
                    text(bytes, login, into: &out)
                    out.raw(" was banned")
                case .timeout(let login, let seconds):
                    text(bytes, login, into: &out)
                    out.raw(" was timed out for ")
                    decimal(seconds, into: &out)
                    out.raw("s")
                }
                }
            }
            endSystem(into: &out)
        case .clearmsg:
            beginSystem(into: &out)
            do {
                out.raw("message deleted")
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
            }
            endSystem(into: &out)
        case .roomstate:
            beginSystem(into: &out)
            do {
                if let r = message.roomState(in: bytes) {
                    out.raw(r.isFull ? "room state:" : "room state changed:")
                    setting("emote-only", r.emoteOnly.map { $0 ? 1 : 0 }, into: &out)
                    setting("followers-only", r.followersOnly, into: &out)
                    setting("r9k", r.r9k.map { $0 ? 1 : 0 }, into: &out)
                    setting("slow", r.slow, into: &out)
                    setting("subs-only", r.subsOnly.map { $0 ? 1 : 0 }, into: &out)
                }
            }
            endSystem(into: &out)
        case .notice:
            beginSystem(into: &out)
            do {
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
            }
            endSystem(into: &out)
        case .whisper:
            guard let w = message.whisper(in: bytes) else {
                generic(bytes, message, into: &out)
                out.raw(byte: 0x0A)
                return
            }
            out.raw("(whisper) ")
            name(bytes, message, login: w.from, into: &out)
            out.raw(" → ")
            text(bytes, w.to, into: &out)
            out.raw(": ")
            text(bytes, w.text, into: &out)
        case .join, .part:
            beginSystem(into: &out)
            do {
                if let m = message.membership(in: bytes) {
                    text(bytes, m.login, into: &out)
                    out.raw(m.isJoin ? " joined" : " left")
                }
            }
            endSystem(into: &out)
        default:
            generic(bytes, message, into: &out)
        }
        out.raw(byte: 0x0A)
    }

    /// Starts a system line: `-- …`, dimmed when colour is on.
    private func beginSystem(into out: inout JSONWriter) {
        if color { out.raw(Self.dim) }
        out.raw("-- ")
    }

    private func endSystem(into out: inout JSONWriter) {
        if color { out.raw(Self.reset) }
    }

    /// Any other line: `-- VERB params…`.
    private func generic(_ bytes: Span<UInt8>, _ message: TwitchMessage, into out: inout JSONWriter) {
        if color { out.raw(Self.dim) }
        out.raw("-- ")
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
        if color { out.raw(Self.reset) }
    }

    private func time(_ t: Timestamp?, into out: inout JSONWriter) {
        if let t {
            let civil = t.civil
            two(civil.hour, into: &out)
            out.raw(byte: UInt8(ascii: ":"))
            two(civil.minute, into: &out)
            out.raw(byte: UInt8(ascii: ":"))
            two(civil.second, into: &out)
            out.raw(byte: UInt8(ascii: " "))
        } else {
            out.raw("--:--:-- ")
        }
    }

    private func two(_ n: Int, into out: inout JSONWriter) {
        out.raw(byte: UInt8(ascii: "0") + UInt8(n / 10 % 10))
        out.raw(byte: UInt8(ascii: "0") + UInt8(n % 10))
    }

    private func decimal(_ n: Int64, into out: inout JSONWriter) { out.decimal(n) }

    private func setting(_ label: StaticString, _ value: Int64?, into out: inout JSONWriter) {
        guard let value else { return }
        out.raw(byte: UInt8(ascii: " "))
        out.raw(label)
        out.raw(byte: UInt8(ascii: "="))
        decimal(value, into: &out)
    }

    /// The display name (or login) in the user's colour.
    private func name(_ bytes: Span<UInt8>, _ message: TwitchMessage, login: ByteRange, into out: inout JSONWriter) {
        if color {
            let (r, g, b) = rgb(bytes, message.tags[.color], login: login)
            out.raw("\u{1B}[1;38;2;")
            decimal(Int64(r), into: &out)
            out.raw(byte: UInt8(ascii: ";"))
            decimal(Int64(g), into: &out)
            out.raw(byte: UInt8(ascii: ";"))
            decimal(Int64(b), into: &out)
            out.raw(byte: UInt8(ascii: "m"))
        }
        if let d = message.tags[.displayName], !d.raw.isEmpty {
            unescaped(bytes, d, into: &out)
        } else {
            text(bytes, login, into: &out)
        }
        if color { out.raw(Self.reset) }
    }

    /// `#RRGGBB` from the tag, else a stable colour picked from the login (as Twitch does for users
    /// who never chose one).
    private func rgb(_ bytes: Span<UInt8>, _ tag: TagValue?, login: ByteRange) -> (UInt8, UInt8, UInt8) {
        if let tag, tag.raw.count == 7, bytes[Int(tag.raw.lower)] == UInt8(ascii: "#") {
            var v: UInt32 = 0
            var ok = true
            for i in (Int(tag.raw.lower) + 1)..<Int(tag.raw.upper) {
                let c = bytes[i] | 0x20
                let d: UInt8 = c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? c - UInt8(ascii: "0")
                    : (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f") ? c - UInt8(ascii: "a") + 10 : 0xFF)
                if d == 0xFF { ok = false }
                v = v << 4 | UInt32(d & 0xF)
            }
            if ok { return (UInt8(v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)) }
        }
        var h: UInt32 = 0
        for i in login.range { h = h &* 31 &+ UInt32(bytes[i]) }
        let c = Self.palette[Int(h % UInt32(Self.palette.count))]
        return (UInt8(c >> 16), UInt8(truncatingIfNeeded: c >> 8), UInt8(truncatingIfNeeded: c))
    }

    private func mark(_ t: Tombstone, into out: inout JSONWriter) {
        switch t {
        case .none: return
        case .deleted: out.raw(" [deleted]")
        case .banned: out.raw(" [banned]")
        case .cleared: out.raw(" [cleared]")
        case .timedOut(let s):
            out.raw(" [timed out ")
            decimal(Int64(s), into: &out)
            out.raw("s]")
        }
    }

    /// Message text as-is, invalid UTF-8 repaired; control characters (but tab) shown as `?` so
    /// that chat cannot drive the terminal.
    private func text(_ bytes: Span<UInt8>, _ r: ByteRange, into out: inout JSONWriter) {
        var repair = UTF8Repair()
        for i in r.range { repair.feed(bytes[i]) { safe($0, into: &out) } }
        repair.finish { safe($0, into: &out) }
    }

    private func unescaped(_ bytes: Span<UInt8>, _ v: TagValue, into out: inout JSONWriter) {
        var repair = UTF8Repair()
        v.unescape(in: bytes) { b in repair.feed(b) { safe($0, into: &out) } }
        repair.finish { safe($0, into: &out) }
    }

    @inline(__always)
    private func safe(_ b: UInt8, into out: inout JSONWriter) {
        out.raw(byte: (b < 0x20 && b != 0x09) || b == 0x7F ? UInt8(ascii: "?") : b)
    }
}
