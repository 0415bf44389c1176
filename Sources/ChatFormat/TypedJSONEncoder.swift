import ChatStore
public import IRCWire

/// Encodes a line as typed NDJSON (documented in `docs/ndjson.md`, schema in
/// `docs/ndjson.schema.json`, schema version ``schemaVersion``): every object has `"type"`,
/// `"channel"`, `"ts"` and `"about"`, then the fields of its type. Capture's own records (`CAPTURE`
/// lines) come out as the `gap` and `session` records of ``RecordEncoder``.
public enum TypedJSONEncoder: Sendable {
    /// The version of `docs/ndjson.schema.json` this encoder writes (its top-level `version`).
    public static let schemaVersion = 3

    /// - Complexity: O(line). - Allocations: none once the writer's buffer has grown.
    public static func encode(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, _ context: LineContext, options: JSONOptions,
        into out: inout JSONWriter
    ) {
        // `{"type":…,"channel":` in one copy: the type is the command's but for a capture record's.
        let record: CaptureRecordLine?
        if let opening = opening(message.command) {
            record = nil
            out.beginObject(opening: opening)
        } else {
            record = CaptureRecordLine(message, in: bytes)
            out.beginObject()
            out.key("type")
            if let record { out.string(record.typeName) } else { out.string("unknown") }
            out.key("channel")
        }
        if let channel = message.channel ?? record?.channel { out.string(bytes, channel) } else { out.null() }
        out.key("ts")
        if let ts = context.timestamp { out.timestamp(ts) } else { out.null() }
        out.key("about")
        // A PRIVMSG's view is made once: `about` is its sender (``TwitchMessage/about(in:)``), and
        // its fields follow (the view scans the source for the nick). The sender's login, written
        // here, is copied as its user's `"login"` (``JSONWriter/value(repeating:)``).
        let isPrivmsg = if case .privmsg = message.command { true } else { false }
        let chat = isPrivmsg ? message.privmsg(in: bytes) : nil
        var loginWritten: Range<Int>? = nil
        if isPrivmsg {
            if let chat, !chat.login.isEmpty {
                let start = out.count
                out.string(bytes, chat.login)
                loginWritten = start..<out.count
            } else {
                out.null()
            }
        } else {
            switch message.about(in: bytes) {
            case .bytes(let r): out.string(bytes, r)
            case .tag(let v): out.string(bytes, tag: v)
            case nil: out.null()
            }
        }
        let tags = message.tags
        switch message.command {
        case .privmsg:
            if let p = chat {
                privmsg(bytes, message, p, loginWritten: loginWritten, into: &out)
            }
        case .usernotice:
            if let n = message.userNotice(in: bytes) { userNotice(bytes, message, n, into: &out) }
        case .clearchat:
            if let c = message.clearChat(in: bytes) {
                out.key("action")
                switch c.action {
                case .clearAll:
                    out.string("clear")
                    out.key("target")
                    out.null()
                    out.key("duration")
                    out.null()
                case .ban(let login):
                    out.string("ban")
                    target(bytes, login, c.targetUserId, into: &out)
                    out.key("duration")
                    out.null()
                case .timeout(let login, let seconds):
                    out.string("timeout")
                    target(bytes, login, c.targetUserId, into: &out)
                    out.key("duration")
                    out.number(seconds)
                }
            }
        case .clearmsg:
            if let m = message.clearMsg(in: bytes) {
                optionalTag("target_msg_id", m.targetMessageId, bytes, into: &out)
                optionalTag("login", m.login, bytes, into: &out)
                optionalText("text", m.text, bytes, into: &out)
            }
        case .roomstate:
            if let r = message.roomState(in: bytes) {
                out.key("full")
                out.bool(r.isFull)
                optionalBool("emote_only", r.emoteOnly, into: &out)
                optionalNumber("followers_only", r.followersOnly, into: &out)
                optionalBool("r9k", r.r9k, into: &out)
                optionalNumber("slow", r.slow, into: &out)
                optionalBool("subs_only", r.subsOnly, into: &out)
                optionalTag("room_id", tags[.roomId], bytes, into: &out)
            }
        case .userstate, .globaluserstate:
            if let u = message.userState(in: bytes) {
                optionalTag("display_name", u.displayName, bytes, into: &out)
                color(u.color, bytes, into: &out)
                badges(bytes, tags[.badges], key: "badges", empty: #""badges":[]"#, into: &out)
                out.key("emote_sets")
                out.beginArray()
                if let sets = u.emoteSets { commaList(bytes, sets.raw, into: &out) }
                out.endArray()
                if u.isGlobal { optionalTag("user_id", tags[.userId], bytes, into: &out) }
            }
        case .notice:
            if let n = message.notice(in: bytes) {
                optionalTag("msg_id", n.msgId, bytes, into: &out)
                optionalText("text", n.text, bytes, into: &out)
            }
        case .whisper:
            if let w = message.whisper(in: bytes) {
                out.key("from")
                out.string(bytes, w.from)
                out.key("to")
                out.string(bytes, w.to)
                user(bytes, message, login: w.from, into: &out)
                out.key("text")
                out.string(bytes, w.text)
                optionalTag("thread_id", w.threadId, bytes, into: &out)
                optionalTag("message_id", w.messageId, bytes, into: &out)
            }
        case .join, .part:
            out.key("login")
            if let m = message.membership(in: bytes) { out.string(bytes, m.login) } else { out.null() }
        case .hosttarget:
            if let h = message.hostTarget(in: bytes) {
                optionalText("target", h.target, bytes, into: &out)
                optionalNumber("viewers", h.viewers, into: &out)
            }
        case .ping, .pong:
            optionalText("token", message.pingToken(in: bytes), bytes, into: &out)
        case .cap:
            if let c = message.capReply(in: bytes) {
                out.key("subcommand")
                out.string(bytes, c.subcommand)
                out.key("capabilities")
                out.beginArray()
                if let caps = c.capabilities { spaceList(bytes, caps, into: &out) }
                out.endArray()
            }
        case .names, .endOfNames, .numeric:
            out.key("code")
            out.number(numericCode(message.command))
            params(bytes, message.line, into: &out)
        case .reconnect:
            break
        case .capture:
            if let record {
                captureRecord(bytes, record, into: &out)
            } else {
                out.key("verb")
                out.string(bytes, message.line.verbRange)
                params(bytes, message.line, into: &out)
            }
        case .unknown:
            out.key("verb")
            out.string(bytes, message.line.verbRange)
            params(bytes, message.line, into: &out)
        }
        if let tombstone = context.tombstone { moderation(tombstone, into: &out) }
        if context.isMirror {
            out.key("mirror")
            out.bool(true)
        }
        if let historical = message.tags[.historical], !bytes.equals("0", at: historical.raw) {
            out.key("historical")
            out.bool(true)
        }
        if options.withTags {
            out.key("tags")
            if message.line.hasTags {
                IRCAtomsEncoder.writeTags(bytes, message, into: &out)
            } else {
                out.beginObject()
                out.endObject()
            }
        }
        if options.withRaw {
            out.key("raw")
            out.string(bytes, ByteRange(0, message.line.length))
        }
        out.endObject()
    }

    /// `{"type":"<name>","channel":` for a command whose type is its ``TwitchCommand/name``: every
    /// command but a capture record, whose record names its type.
    ///
    /// - Complexity: O(1). - Allocations: none.
    package static func opening(_ command: TwitchCommand) -> StaticString? {
        switch command {
        case .privmsg: #"{"type":"privmsg","channel":"#
        case .usernotice: #"{"type":"usernotice","channel":"#
        case .clearchat: #"{"type":"clearchat","channel":"#
        case .clearmsg: #"{"type":"clearmsg","channel":"#
        case .roomstate: #"{"type":"roomstate","channel":"#
        case .userstate: #"{"type":"userstate","channel":"#
        case .globaluserstate: #"{"type":"globaluserstate","channel":"#
        case .notice: #"{"type":"notice","channel":"#
        case .whisper: #"{"type":"whisper","channel":"#
        case .join: #"{"type":"join","channel":"#
        case .part: #"{"type":"part","channel":"#
        case .cap: #"{"type":"cap","channel":"#
        case .ping: #"{"type":"ping","channel":"#
        case .pong: #"{"type":"pong","channel":"#
        case .reconnect: #"{"type":"reconnect","channel":"#
        case .hosttarget: #"{"type":"hosttarget","channel":"#
        case .names, .endOfNames, .numeric: #"{"type":"numeric","channel":"#
        case .unknown: #"{"type":"unknown","channel":"#
        case .capture: nil
        }
    }

    // MARK: Types

    /// - Parameter loginWritten: where `out` holds the sender's login already written as a JSON
    ///   string (the object's `"about"`), copied as the user's `"login"`; `nil` writes it from `p`.
    private static func privmsg(
        _ bytes: Span<UInt8>, _ m: TwitchMessage, _ p: Privmsg, loginWritten: Range<Int>?, into out: inout JSONWriter
    ) {
        let tags = m.tags
        optionalTag("id", tags[.id], bytes, into: &out)
        user(bytes, m, login: p.login, loginWritten: loginWritten, into: &out)
        out.key("text")
        out.string(bytes, p.text)
        out.member(p.isAction ? #""action":true"# : #""action":false"#)
        emotes(bytes, m, text: p.text, into: &out)
        let firstMsg = tags.flag(.firstMsg, in: bytes)
        let returning = tags.flag(.returningChatter, in: bytes)
        if !firstMsg && !returning && tags[.bits] == nil && tags[.replyParentMsgId] == nil && tags[.msgId] == nil
            && tags[.customRewardId] == nil
        {
            // What most chat carries, written whole: one copy where six members took a separator, a
            // key and a value each.
            out.member(
                #""bits":null,"reply":null,"first_msg":false,"returning_chatter":false,"msg_id":null,"custom_reward_id":null"#
            )
        } else {
            privmsgExtras(bytes, m, firstMsg: firstMsg, returning: returning, into: &out)
        }
        optionalTag("room_id", tags[.roomId], bytes, into: &out)
        source(bytes, m, into: &out)
    }

    /// A PRIVMSG's members from `"bits"` to `"custom_reward_id"`, one at a time: for a message that
    /// carries any of them (``privmsg(_:_:_:loginWritten:into:)`` writes the usual all-empty case
    /// from one literal).
    private static func privmsgExtras(
        _ bytes: Span<UInt8>, _ m: TwitchMessage, firstMsg: Bool, returning: Bool, into out: inout JSONWriter
    ) {
        let tags = m.tags
        if let bits = m.bits(in: bytes) {
            out.key("bits")
            out.number(bits)
        } else {
            out.member(#""bits":null"#)
        }
        if let r = m.replyParent {
            out.key("reply")
            out.beginObject()
            optionalTag("parent_id", r.messageId, bytes, into: &out)
            optionalTag("user_id", r.userId, bytes, into: &out)
            optionalTag("login", r.login, bytes, into: &out)
            optionalTag("display_name", r.displayName, bytes, into: &out)
            optionalTag("body", r.body, bytes, into: &out)
            optionalTag("thread_parent_id", r.threadMessageId, bytes, into: &out)
            optionalTag("thread_login", r.threadLogin, bytes, into: &out)
            out.endObject()
        } else {
            out.member(#""reply":null"#)
        }
        out.member(firstMsg ? #""first_msg":true"# : #""first_msg":false"#)
        out.member(returning ? #""returning_chatter":true"# : #""returning_chatter":false"#)
        optionalTag("msg_id", tags[.msgId], bytes, into: &out)
        optionalTag("custom_reward_id", tags[.customRewardId], bytes, into: &out)
    }

    private static func userNotice(
        _ bytes: Span<UInt8>, _ m: TwitchMessage, _ n: UserNotice, into out: inout JSONWriter
    ) {
        let tags = m.tags
        optionalTag("id", tags[.id], bytes, into: &out)
        out.key("msg_id")
        if let name = n.kind.name {
            out.string(name)
        } else if case .unknown(let raw?) = n.kind {
            out.string(bytes, tag: raw)
        } else {
            out.null()
        }
        out.key("known")
        out.bool(n.kind.name != nil)
        let login = n.login?.raw ?? m.senderLogin(in: bytes) ?? ByteRange(0, 0)
        user(bytes, m, login: login, into: &out)
        optionalText("text", n.text, bytes, into: &out)
        optionalTag("system_msg", n.systemMessage, bytes, into: &out)
        UserNoticeParams.write(bytes, tags, into: &out)
        if let text = n.text { emotes(bytes, m, text: text, into: &out) } else { out.member(#""emotes":[]"#) }
        optionalTag("room_id", tags[.roomId], bytes, into: &out)
        source(bytes, m, into: &out)
    }

    /// `"user": {"id","login","display_name","color","badges":[…]}`
    ///
    /// - Parameter loginWritten: `login` as `out` already holds it, written as a JSON string, to copy.
    private static func user(
        _ bytes: Span<UInt8>, _ m: TwitchMessage, login: ByteRange, loginWritten: Range<Int>? = nil,
        into out: inout JSONWriter
    ) {
        let tags = m.tags
        // `"user":{"id":` in one copy, where a key, an object and a key took three writes.
        out.beginObject(opening: #""user":{"id":"#)
        if let id = tags[.userId] { out.string(bytes, tag: id) } else { out.null() }
        out.key("login")
        if let loginWritten { out.value(repeating: loginWritten) } else { out.string(bytes, login) }
        optionalTag("display_name", tags[.displayName], bytes, into: &out)
        color(tags[.color], bytes, into: &out)
        badges(bytes, tags[.badges], key: "badges", empty: #""badges":[]"#, into: &out)
        badges(bytes, tags[.badgeInfo], key: "badge_info", empty: #""badge_info":[]"#, into: &out)
        out.endObject()
    }

    /// `"key":[{"name","version"}…]` of a `badges`-shaped tag value; `empty` (the member `"key":[]`,
    /// one copy) without one. A value of plain bytes, what Twitch sends, is written in one pass
    /// (``JSONWriter/badgeList(_:_:key:)``), any other a badge at a time.
    private static func badges(
        _ bytes: Span<UInt8>, _ value: TagValue?, key: StaticString, empty: StaticString, into out: inout JSONWriter
    ) {
        guard let value, !value.raw.isEmpty else { return out.member(empty) }
        if out.badgeList(bytes, value.raw, key: key) { return }
        var c = BadgeCursor(value)
        guard var b = c.next(in: bytes) else { return out.member(empty) }
        out.key(key)
        out.beginArray()
        while true {
            out.beginObject(opening: #"{"name":"#)
            out.string(bytes, b.name)
            out.key("version")
            out.string(bytes, tag: TagValue(raw: b.version))
            out.endObject()
            guard let next = c.next(in: bytes) else { break }
            b = next
        }
        out.endArray()
    }

    /// `"color"`: the tag's value, `null` when it is missing or empty (the user never chose one).
    private static func color(_ v: TagValue?, _ bytes: Span<UInt8>, into out: inout JSONWriter) {
        guard let v, !v.raw.isEmpty else { return out.member(#""color":null"#) }
        out.key("color")
        out.string(bytes, tag: v)
    }

    /// `"emotes"`: code point offsets into the text, start inclusive, end exclusive, clamped, each
    /// with its `name`: the text it covers. Without an `emotes` value, `"emotes":[]` in one copy.
    private static func emotes(_ bytes: Span<UInt8>, _ m: TwitchMessage, text: ByteRange, into out: inout JSONWriter) {
        guard m.tags[.emotes].map({ !$0.raw.isEmpty }) == true else { return out.member(#""emotes":[]"#) }
        out.key("emotes")
        out.beginArray()
        let count = CodePoints.count(in: bytes, text)
        // One byte per code point (ASCII text, the common case): offsets are positions.
        let ascii = count == Int(text.upper - text.lower)
        // Else where the last emote ended: code point `codePoint` of the text starts at `byte`.
        // Emotes mostly come in text order within an id, so the next one is found from there;
        // one before it is found from the text's start again.
        var cursor = (codePoint: 0, byte: Int(text.lower))
        var c = m.emotes
        while let e = c.next(in: bytes) {
            guard let r = e.clamped(toCodePointCount: count) else { continue }
            out.beginObject(opening: #"{"id":"#)
            out.string(bytes, e.id)
            out.key("name")
            let from: Int
            let to: Int
            if ascii {
                from = Int(text.lower) + r.lowerBound
                to = Int(text.lower) + r.upperBound
            } else {
                if r.lowerBound < cursor.codePoint { cursor = (0, Int(text.lower)) }
                from = CodePoints.byteOffset(
                    ofCodePoint: r.lowerBound - cursor.codePoint, in: bytes,
                    ByteRange(cursor.byte..<Int(text.upper)))
                to = CodePoints.byteOffset(
                    ofCodePoint: r.upperBound - r.lowerBound, in: bytes, ByteRange(from..<Int(text.upper)))
                cursor = (r.upperBound, to)
            }
            out.string(bytes, ByteRange(from..<to))
            out.key("start")
            out.number(r.lowerBound)
            out.key("end")
            out.number(r.upperBound)
            out.endObject()
        }
        out.endArray()
    }

    private static func source(_ bytes: Span<UInt8>, _ m: TwitchMessage, into out: inout JSONWriter) {
        guard let s = m.sharedChatSource(in: bytes) else { return out.member(#""source":null"#) }
        out.key("source")
        out.beginObject()
        out.key("room_id")
        out.string(bytes, tag: s.roomId)
        optionalTag("id", s.messageId, bytes, into: &out)
        badges(bytes, m.tags[.sourceBadges], key: "badges", empty: #""badges":[]"#, into: &out)
        out.key("only")
        out.bool(s.isSourceOnly)
        out.endObject()
    }

    /// A capture record: a gap's interval and reason, or a session record's event and text.
    private static func captureRecord(_ bytes: Span<UInt8>, _ r: CaptureRecordLine, into out: inout JSONWriter) {
        if let from = r.gapFrom, let to = r.gapTo {
            out.key("from")
            out.timestamp(from)
            out.key("to")
            out.timestamp(to)
            out.key("duration_ms")
            out.number(to.milliseconds - from.milliseconds)
            out.key("reason")
            r.writeReason(bytes, into: &out)
            if let state = r.backfill {
                out.key("backfill")
                out.string(bytes, state)
                out.key("recovered")
                out.number(r.recovered ?? 0)
                if let from = r.missingFrom, let to = r.missingTo {
                    out.key("missing_from")
                    out.timestamp(from)
                    out.key("missing_to")
                    out.timestamp(to)
                }
                if let error = r.backfillError {
                    out.key("backfill_error")
                    out.string(bytes, tag: error)
                }
            }
        } else {
            out.key("event")
            out.string(snakeCase: bytes, r.event)
            out.key("detail")
            if let text = r.text { out.string(bytes, text) } else { out.string("") }
        }
    }

    private static func target(_ bytes: Span<UInt8>, _ login: ByteRange, _ id: TagValue?, into out: inout JSONWriter) {
        out.key("target")
        out.beginObject()
        out.key("login")
        out.string(bytes, login)
        optionalTag("id", id, bytes, into: &out)
        out.endObject()
    }

    private static func moderation(_ t: Tombstone, into out: inout JSONWriter) {
        out.key("deleted")
        out.bool(t.deleted)
        out.key("timed_out")
        if let s = t.timedOutSeconds { out.number(Int64(s)) } else { out.null() }
        out.key("banned")
        out.bool(t.banned)
        out.key("cleared")
        out.bool(t.cleared)
    }

    private static func params(_ bytes: Span<UInt8>, _ line: ParsedLine, into out: inout JSONWriter) {
        out.key("params")
        out.beginArray()
        var c = ParamCursor(line)
        while let p = c.next(in: bytes) { out.string(bytes, p) }
        out.endArray()
    }

    private static func numericCode(_ c: TwitchCommand) -> Int {
        switch c {
        case .names: 353
        case .endOfNames: 366
        case .numeric(let n): Int(n)
        default: 0
        }
    }

    // MARK: Small helpers

    private static func optionalTag(
        _ key: StaticString, _ v: TagValue?, _ bytes: Span<UInt8>, into out: inout JSONWriter
    ) {
        out.key(key)
        if let v { out.string(bytes, tag: v) } else { out.null() }
    }

    private static func optionalText(
        _ key: StaticString, _ r: ByteRange?, _ bytes: Span<UInt8>, into out: inout JSONWriter
    ) {
        out.key(key)
        if let r { out.string(bytes, r) } else { out.null() }
    }

    private static func optionalBool(_ key: StaticString, _ v: Bool?, into out: inout JSONWriter) {
        out.key(key)
        if let v { out.bool(v) } else { out.null() }
    }

    private static func optionalNumber(_ key: StaticString, _ v: Int64?, into out: inout JSONWriter) {
        out.key(key)
        if let v { out.number(v) } else { out.null() }
    }

    /// Elements of a comma-separated raw value as strings.
    private static func commaList(_ bytes: Span<UInt8>, _ r: ByteRange, into out: inout JSONWriter) {
        split(bytes, r, UInt8(ascii: ","), into: &out)
    }

    private static func spaceList(_ bytes: Span<UInt8>, _ r: ByteRange, into out: inout JSONWriter) {
        split(bytes, r, UInt8(ascii: " "), into: &out)
    }

    private static func split(_ bytes: Span<UInt8>, _ r: ByteRange, _ separator: UInt8, into out: inout JSONWriter) {
        var start = Int(r.lower)
        let end = Int(r.upper)
        while start < end {
            let stop = ByteScan.firstIndex(of: separator, in: bytes, from: start, to: end) ?? end
            if stop > start { out.string(bytes, ByteRange(start..<stop)) }
            start = stop + 1
        }
    }
}
