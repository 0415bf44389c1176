public import ChatStore
public import IRCWire

/// Lays out one ring entry for `watch`: `HH:MM:SS`, badge marks (B broadcaster, M moderator,
/// V VIP, S subscriber or founder), the display name in its 24-bit colour, and the text with
/// emotes highlighted. Moderated messages are dimmed and struck through, with the reason after
/// them (`[deleted]`, `[timed out 600s]`, `[banned]`, `[cleared]`). Notices, moderation and room
/// state are dim `-- …` lines; subs, raids and other USERNOTICEs start with `*`.
///
/// Membership (JOIN/PART, NAMES), USERSTATE and protocol traffic (PING, CAP, numerics) are not
/// shown: ``isShown(_:)`` says so from the command alone.
public struct EntryFormatter: Sendable {
    /// Continuation rows start under the text, after the timestamp.
    public static let indent = 9
    public var filter: WatchFilter?

    public init(filter: WatchFilter? = nil) { self.filter = filter }

    // Colours.
    static let time = TextStyle(foreground: RGB(hex: 0x808080))
    static let system = TextStyle(foreground: RGB(hex: 0x9A9A9A), dim: true)
    static let moderation = TextStyle(foreground: RGB(hex: 0xE0A040))
    static let notice = TextStyle(foreground: RGB(hex: 0xC080FF), bold: true)
    static let reason = TextStyle(foreground: RGB(hex: 0xFF6060))
    static let emoteBackground = RGB(hex: 0x4B3A78)
    /// Labels before a message: reply, first message, highlighted, bits, shared chat.
    static let label = TextStyle(foreground: RGB(hex: 0x70B0FF))
    static let firstLabel = TextStyle(foreground: RGB(hex: 0x40E080), bold: true)
    static let highlightLabel = TextStyle(foreground: RGB(hex: 0x101010), background: RGB(hex: 0xFFD060), bold: true)
    static let bitsLabel = TextStyle(foreground: RGB(hex: 0xC080FF), bold: true)
    static let announcement = TextStyle(foreground: RGB(hex: 0x202020), background: RGB(hex: 0x60C0FF), bold: true)

    /// Whether lines of `command` appear in `watch` at all (before any filter).
    public static func isShown(_ command: TwitchCommand) -> Bool {
        switch command {
        case .join, .part, .userstate, .globaluserstate, .names, .endOfNames, .numeric, .ping, .pong, .cap:
            false
        default:
            true
        }
    }

    /// The entry as styled text, or `nil` when `watch` does not show it or the filter hides it.
    ///
    /// - Complexity: O(line). - Allocations: the text's buffers.
    public func format(_ info: EntryInfo, _ bytes: Span<UInt8>) -> StyledText? {
        guard Self.isShown(info.command) else { return nil }
        let message = TwitchMessage(info.parsed, in: bytes)
        if let filter, !filter.matches(message, in: bytes) { return nil }
        var out = StyledText()
        time(message, info, bytes, &out)
        switch message.command {
        case .privmsg:
            guard let p = message.privmsg(in: bytes) else { return generic(message, bytes, out) }
            chat(message, p, info.tombstone, bytes, &out)
        case .usernotice:
            if let n = message.userNotice(in: bytes), n.kind == .announcement {
                // Set apart from a /me (`* name text`): a label, then who announced what.
                out.append("[announcement]", Self.announcement, breakable: false)
                out.append(" ", .plain)
                if let login = n.login { name(message, login: login.raw, bytes, TextStyle(), &out) }
                if let t = n.text {
                    out.append(": ", .plain)
                    let moderated = !info.tombstone.isEmpty
                    out.append(bytes, t.range, TextStyle(dim: moderated, strike: moderated))
                    reason(info.tombstone, &out)
                }
                return out
            }
            out.append("* ", Self.notice)
            if let n = message.userNotice(in: bytes) {
                if let s = n.systemMessage, !s.raw.isEmpty {
                    unescaped(bytes, s, Self.notice, &out)
                } else {
                    // Announcements carry no system message: name who sent what.
                    if let login = n.login { name(message, login: login.raw, bytes, TextStyle(), &out) }
                    out.append(n.login == nil ? "" : " ", Self.notice)
                    out.append(n.kind.name.map { "\($0)" } ?? "user notice", Self.notice)
                }
                if let t = n.text {
                    out.append(" — ", Self.notice)
                    var style = TextStyle.plain
                    if info.tombstone != .none { style = TextStyle(dim: true, strike: true) }
                    out.append(bytes, t.range, style)
                    reason(info.tombstone, &out)
                }
            }
        case .clearchat:
            out.append("-- ", Self.moderation)
            if let c = message.clearChat(in: bytes) {
                switch c.action {
                case .clearAll: out.append(ModerationWords.chatCleared.description, Self.moderation)
                case .ban(let login):
                    out.append(bytes, login.range, Self.moderation)
                    out.append(ModerationWords.wasBanned.description, Self.moderation)
                case .timeout(let login, let seconds):
                    out.append(bytes, login.range, Self.moderation)
                    out.append(
                        "\(ModerationWords.wasTimedOutFor)\(seconds)\(ModerationWords.seconds)", Self.moderation)
                }
            }
        case .clearmsg:
            out.append("-- \(ModerationWords.messageDeleted)", Self.moderation)
            if let m = message.clearMsg(in: bytes) {
                if let login = m.login {
                    out.append(" from ", Self.moderation)
                    unescaped(bytes, login, Self.moderation, &out)
                }
                if let t = m.text {
                    out.append(": ", Self.moderation)
                    out.append(bytes, t.range, Self.system)
                }
            }
        case .roomstate:
            out.append("-- room:", Self.system)
            if let r = message.roomState(in: bytes) {
                var settings = RoomSettings()
                settings.merge(r)
                out.append(" " + settings.describe(all: true), Self.system)
            }
        case .notice:
            out.append("-- notice", Self.system)
            if let n = message.notice(in: bytes) {
                if let t = n.text {
                    out.append(": ", Self.system)
                    out.append(bytes, t.range, Self.system)
                }
            }
        case .whisper:
            guard let w = message.whisper(in: bytes) else { return generic(message, bytes, out) }
            out.append("(whisper) ", Self.system)
            name(message, login: w.from, bytes, TextStyle(), &out)
            out.append(" → ", Self.system)
            out.append(bytes, w.to.range, Self.system)
            out.append(": ", .plain)
            out.append(bytes, w.text.range, .plain)
        case .hosttarget:
            if let h = message.hostTarget(in: bytes), let target = h.target {
                out.append("-- hosting ", Self.system)
                out.append(bytes, target.range, Self.system)
            } else {
                out.append("-- stopped hosting", Self.system)
            }
        case .reconnect:
            out.append("-- the server asked to reconnect", Self.system)
        default:
            return generic(message, bytes, out)
        }
        return out
    }

    /// `HH:MM:SS ` (UTC, as `replay --format text`), from the line's own time, else its receive time.
    private func time(_ message: TwitchMessage, _ info: EntryInfo, _ bytes: Span<UInt8>, _ out: inout StyledText) {
        let t =
            LineTime(of: message, in: bytes).timestamp
            ?? (info.receivedAt != .epoch ? info.receivedAt : nil)
        guard let t else {
            out.append("--:--:-- ", Self.time)
            return
        }
        let c = t.civil
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n % 100)" }
        let digits = two(c.hour) + ":" + two(c.minute) + ":" + two(c.second) + " "
        out.append(digits, Self.time)
    }

    private func chat(
        _ message: TwitchMessage, _ p: Privmsg, _ tombstone: Tombstone, _ bytes: Span<UInt8>, _ out: inout StyledText
    ) {
        labels(message, p, bytes, &out)
        badges(message, bytes, &out)
        let moderated = tombstone != .none
        let body = TextStyle(dim: moderated, italic: p.isAction, strike: moderated)
        if p.isAction { out.append("* ", body) }
        name(message, login: p.login, bytes, TextStyle(dim: moderated, strike: moderated), &out)
        out.append(p.isAction ? " " : ": ", body)
        text(message, p.text, bytes, body, &out)
        reason(tombstone, &out)
    }

    /// The text with emote occurrences (code point ranges of the `emotes` tag) highlighted.
    private func text(
        _ message: TwitchMessage, _ t: ByteRange, _ bytes: Span<UInt8>, _ style: TextStyle, _ out: inout StyledText
    ) {
        var emotes: [Range<Int>] = []
        var cursor = message.emotes
        let count = CodePoints.count(in: bytes, t)
        while let e = cursor.next(in: bytes) {
            if let r = e.clamped(toCodePointCount: count) { emotes.append(r) }
        }
        guard !emotes.isEmpty else {
            out.append(bytes, t.range, style)
            return
        }
        var emote = style
        emote.background = Self.emoteBackground
        emote.bold = true
        var decoder = UTF8Scalars()
        var codePoint = -1
        for i in t.range {
            let b = bytes[i]
            if b & 0xC0 != 0x80 { codePoint += 1 }
            let inEmote = emotes.contains { $0.contains(codePoint) }
            decoder.feed(b) { out.append($0, inEmote ? emote : style) }
        }
        decoder.finish { out.append($0, style) }
    }

    /// What sets a message apart, before its badges: `↪ @login` (a reply, and to whom), `[first]` (a
    /// first message in the channel), `[highlighted]`, `[N bits]`, `[shared]` (a shared-chat copy from
    /// another channel's room).
    private func labels(_ message: TwitchMessage, _ p: Privmsg, _ bytes: Span<UInt8>, _ out: inout StyledText) {
        let tags = message.tags
        if let parent = message.replyParent {
            out.append("↪ @", Self.label)
            if let who = parent.displayName ?? parent.login, !who.raw.isEmpty {
                unescaped(bytes, who, Self.label, &out)
            } else {
                out.append("?", Self.label)
            }
            out.append(" ", .plain)
        }
        if tags.flag(.firstMsg, in: bytes) { label("[first]", Self.firstLabel, &out) }
        if let id = tags[.msgId], bytes.equals("highlighted-message", at: id.raw) {
            label("[highlighted]", Self.highlightLabel, &out)
        }
        if let bits = message.bits(in: bytes) { label("[\(bits) bits]", Self.bitsLabel, &out) }
        if let source = tags[.sourceRoomId], !source.raw.isEmpty {
            let room = tags[.roomId]
            if room == nil || !bytes.extracting(source.raw.range).equals(bytes.extracting(room!.raw.range)) {
                label("[shared]", Self.label, &out)
            }
        }
    }

    private func label(_ text: String, _ style: TextStyle, _ out: inout StyledText) {
        out.append(text, style, breakable: false)
        out.append(" ", .plain)
    }

    /// Short marks for the badges that matter in a chat view.
    private func badges(_ message: TwitchMessage, _ bytes: Span<UInt8>, _ out: inout StyledText) {
        var cursor = message.badges
        var marks: [(Unicode.Scalar, UInt32)] = []
        while let b = cursor.next(in: bytes) {
            let mark: (Unicode.Scalar, UInt32)? =
                if bytes.equals("broadcaster", at: b.name) {
                    ("B", 0xFF4040)
                } else if bytes.equals("moderator", at: b.name) {
                    ("M", 0x40C040)
                } else if bytes.equals("vip", at: b.name) {
                    ("V", 0xE060E0)
                } else if bytes.equals("subscriber", at: b.name) || bytes.equals("founder", at: b.name) {
                    ("S", 0xA070FF)
                } else { nil }
            if let mark, !marks.contains(where: { $0.0 == mark.0 }) { marks.append(mark) }
        }
        guard !marks.isEmpty else { return }
        for (letter, colour) in marks { out.append(letter, TextStyle(foreground: RGB(hex: colour), bold: true)) }
        out.append(" ", .plain)
    }

    private func name(
        _ message: TwitchMessage, login: ByteRange, _ bytes: Span<UInt8>, _ base: TextStyle, _ out: inout StyledText
    ) {
        var style = base
        style.bold = true
        style.foreground = NameColor.of(bytes, tag: message.tags[.color], login: login)
        if let d = message.tags[.displayName], !d.raw.isEmpty {
            unescaped(bytes, d, style, &out)
        } else {
            out.append(bytes, login.range, style)
        }
    }

    private func reason(_ t: Tombstone, _ out: inout StyledText) {
        guard !t.isEmpty else { return }
        out.append(" ", .plain)
        out.append(t.description, Self.reason, breakable: false)
    }

    /// Any other line: `-- VERB params…`.
    private func generic(_ message: TwitchMessage, _ bytes: Span<UInt8>, _ start: StyledText) -> StyledText {
        var out = start
        out.append("-- ", Self.system)
        out.append(bytes, message.line.verbRange.range, Self.system)
        var params = ParamCursor(message.line)
        while let p = params.next(in: bytes) {
            out.append(" ", Self.system)
            out.append(bytes, p.range, Self.system)
        }
        return out
    }

    private func unescaped(_ bytes: Span<UInt8>, _ v: TagValue, _ style: TextStyle, _ out: inout StyledText) {
        var decoder = UTF8Scalars()
        v.unescape(in: bytes) { b in decoder.feed(b) { out.append($0, style) } }
        decoder.finish { out.append($0, style) }
    }
}
