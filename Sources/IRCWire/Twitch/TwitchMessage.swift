/// A parsed line seen as Twitch chat: its command, its tags sorted into slots, and its channel.
///
/// Still only offsets (about 300 bytes, on the stack): every field is read back through the same
/// line bytes. Typed views (``privmsg(in:)``, ``clearChat(in:)``, …) are cheap and computed on demand.
///
/// The fields are read-only outside (`private(set)`); they are variables so that a parse can sort
/// the tags in place (``init(parsing:tags:)``): every copy of the value is a 300-byte `memcpy`.
public struct TwitchMessage: Sendable {
    public private(set) var line: ParsedLine
    public private(set) var command: TwitchCommand
    public private(set) var tags: TwitchTags
    /// The channel's login without `#`, for commands addressed to a channel.
    public private(set) var channel: ByteRange?

    /// Classifies `line` and sorts its tags.
    ///
    /// - Complexity: O(tag bytes + middle parameter bytes). - Allocations: none.
    public init(_ line: ParsedLine, in bytes: Span<UInt8>) {
        self.init(line, tags: line.hasTags ? TwitchTags(line, in: bytes) : TwitchTags.none, in: bytes)
    }

    /// Classifies `line`, whose tags are already sorted.
    private init(_ line: ParsedLine, tags: TwitchTags, in bytes: Span<UInt8>) {
        self.line = line
        command = TwitchCommand(line, in: bytes)
        self.tags = tags
        channel = Self.channel(of: line, command, in: bytes)
    }

    /// The channel's login without `#`, for commands addressed to a channel.
    private static func channel(of line: ParsedLine, _ command: TwitchCommand, in bytes: Span<UInt8>) -> ByteRange? {
        let channelParam: Int? =
            switch command {
            case .names: 2
            case .endOfNames: 1
            case .privmsg, .usernotice, .clearchat, .clearmsg, .roomstate, .userstate, .notice, .join, .part,
                .hosttarget:
                0
            default: nil
            }
        if let index = channelParam, let param = line.param(index, in: bytes), param.count > 1,
            bytes[Int(param.lower)] == UInt8(ascii: "#")
        {
            return ByteRange(param.lower + 1, param.upper)
        }
        return nil
    }

    /// Parses `bytes` (one line without CR/LF) and classifies it.
    ///
    /// The tag section is read once: one pass finds its end (the parser's question) and sorts its
    /// tags into slots together (``TwitchTags``), then the parser goes on after it. The result, and
    /// every error, is the same as ``TwitchMessage/init(_:in:)`` of ``ParsedLine/parse(_:)``; with
    /// `scope` ``TagScope/times`` only the tags `time` and `tmi-sent-ts` are sorted into slots.
    ///
    /// - Complexity: O(n). - Allocations: none.
    @inline(__always)
    public static func parse(_ bytes: Span<UInt8>, tags scope: TagScope = .every) throws(LineError) -> TwitchMessage {
        try TwitchMessage(parsing: bytes, tags: scope)
    }

    /// ``parse(_:tags:)`` as an initialiser: the tags are sorted into the new value's own table, in place
    /// (a table sorted apart and then stored cost a copy of its 268 bytes, two with the result's).
    ///
    /// - Complexity: O(n). - Allocations: none.
    public init(parsing bytes: Span<UInt8>, tags scope: TagScope = .every) throws(LineError) {
        self.init()
        try parse(intoEmptyTags: bytes, scope)
    }

    /// ``parse(_:tags:)`` into this value, in place: whatever it held is replaced by the parse of `bytes`
    /// (after an error it holds parts of both lines: parse into it again before reading it). A
    /// caller that keeps parsed lines in memory of its own (a ``ParseAhead`` block) parses there:
    /// the initialiser's result is built apart and then copied (a throwing initialiser cannot build
    /// in the caller's memory), and each copy is a `memcpy` of its 300 bytes.
    ///
    /// - Complexity: O(n). - Allocations: none.
    public mutating func reparse(_ bytes: Span<UInt8>, tags scope: TagScope = .every) throws(LineError) {
        tags = TwitchTags()
        try parse(intoEmptyTags: bytes, scope)
    }

    /// The parse of ``init(parsing:tags:)`` and ``reparse(_:tags:)``, into this value's table, which holds no
    /// tags yet: each of them empties it once (the initialiser as it makes it).
    private mutating func parse(intoEmptyTags bytes: Span<UInt8>, _ scope: TagScope) throws(LineError) {
        let n = bytes.count
        if n > 0 && n <= Int(UInt16.max) && bytes[0] == UInt8(ascii: "@") {
            tags.scan(bytes, from: 1, limit: n, scope)
            let end = tags.sectionEnd
            guard end < n else { throw .missingCommand(offset: n) }  // no space: tags and nothing else
            line = try ParsedLine.parse(bytes, tagsEndingAt: end)
        } else {
            line = try ParsedLine.parse(bytes)
            if line.hasTags {
                tags.scan(bytes, from: Int(line.tagsRange.lower), limit: Int(line.tagsRange.upper), scope)
            }
        }
        command = TwitchCommand(line, in: bytes)
        channel = Self.channel(of: line, command, in: bytes)
    }

    /// No line yet: a value to parse into in place (``reparse(_:tags:)``), where a message parsed
    /// apart would be copied into its place (300 bytes).
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    public init() {
        self.init(ParsedLine.empty, tags: TwitchTags(), command: .unknown)
    }

    /// A value to parse into (``reparse(_:tags:)``): the fields as they are, nothing derived from them.
    private init(_ line: ParsedLine, tags: TwitchTags, command: TwitchCommand) {
        self.line = line
        self.command = command
        self.tags = tags
        channel = nil
    }

    /// The sender's login: the nick of the source (`nick!user@host`), when there is a source.
    public func senderLogin(in bytes: Span<UInt8>) -> ByteRange? {
        line.sourceNick(in: bytes)
    }

    /// The message text: the last parameter of PRIVMSG/WHISPER/USERNOTICE/NOTICE/CLEARMSG, or `nil`.
    public func text(in bytes: Span<UInt8>) -> ByteRange? {
        switch command {
        case .privmsg, .whisper, .notice, .clearmsg:
            return line.paramCount >= 2 ? line.lastParam(in: bytes) : nil
        case .usernotice:
            return line.paramCount >= 2 ? line.lastParam(in: bytes) : nil
        default:
            return nil
        }
    }

    /// The badges of the sender (`badges` tag).
    public var badges: BadgeCursor { BadgeCursor(tags[.badges]) }
    /// The badge details (`badge-info` tag), e.g. `subscriber/14`.
    public var badgeInfo: BadgeCursor { BadgeCursor(tags[.badgeInfo]) }
    /// The emotes of the text (`emotes` tag), in code points of ``Privmsg/text``.
    public var emotes: EmoteCursor { EmoteCursor(tags[.emotes]) }

    /// The message as typed by the server (`tmi-sent-ts`, milliseconds since 1970), or `nil`.
    public func sentTimestamp(in bytes: Span<UInt8>) -> Int64? {
        tags[.tmiSentTs]?.integer(in: bytes)
    }

    /// Shared chat: where a message mirrored from another channel came from, or `nil`.
    public func sharedChatSource(in bytes: Span<UInt8>) -> SharedChatSource? {
        guard let room = tags[.sourceRoomId] else { return nil }
        return SharedChatSource(
            roomId: room, messageId: tags[.sourceId], badges: BadgeCursor(tags[.sourceBadges]),
            badgeInfo: BadgeCursor(tags[.sourceBadgeInfo]), isSourceOnly: tags.flag(.sourceOnly, in: bytes))
    }
}

extension TwitchTags {
    /// The tag table of a line without tags.
    static let none: TwitchTags = {
        let empty: [UInt8] = [UInt8(ascii: "X")]
        return TwitchTags(try! ParsedLine.parse(empty.span), in: empty.span)
    }()
}

/// Shared chat metadata (`source-*` tags) of a mirrored message.
public struct SharedChatSource: Sendable {
    /// `source-room-id`: the channel the message was sent in.
    public var roomId: TagValue
    /// `source-id`: the message id in that channel; the same for every mirrored copy.
    public var messageId: TagValue?
    /// `source-badges` (may be empty).
    public var badges: BadgeCursor
    /// `source-badge-info` (may be empty).
    public var badgeInfo: BadgeCursor
    /// `source-only`: shown only in the source channel.
    public var isSourceOnly: Bool
}
