/// The tags Twitch documents (plus IRCv3 `time`), each with a slot in ``TwitchTags``.
///
/// `msg-param-*` tags are recognised as a family (see ``TwitchTags/msgParamCount``); anything else
/// is an unknown tag, kept in the line and counted, never dropped.
public enum TwitchTagKey: UInt8, CaseIterable, Sendable {
    case badgeInfo, badges, bits, clientNonce, color, displayName, emoteOnly, emotes, emoteSets
    case firstMsg, flags, id, login, mod, msgId, returningChatter, roomId, subscriber
    case targetMsgId, targetUserId, banDuration, tmiSentTs, turbo, userId, userType, vip
    case replyParentMsgId, replyParentUserId, replyParentUserLogin, replyParentDisplayName
    case replyParentMsgBody, replyThreadParentMsgId, replyThreadParentUserLogin
    case replyThreadParentUserId, replyThreadParentDisplayName
    case sourceId, sourceRoomId, sourceBadges, sourceBadgeInfo, sourceOnly, sourceMsgId
    case systemMsg, messageId, threadId, followersOnly, r9k, slow, subsOnly
    case customRewardId, time, animationId, historical, rmReceivedTs, pinnedChatPaidAmount
    case pinnedChatPaidCurrency, pinnedChatPaidExponent, pinnedChatPaidLevel, pinnedChatPaidIsSystemMessage
    case pinnedChatPaidCanonicalAmount

    /// The key as it appears on the wire.
    public var name: StaticString {
        switch self {
        case .badgeInfo: "badge-info"
        case .badges: "badges"
        case .bits: "bits"
        case .clientNonce: "client-nonce"
        case .color: "color"
        case .displayName: "display-name"
        case .emoteOnly: "emote-only"
        case .emotes: "emotes"
        case .emoteSets: "emote-sets"
        case .firstMsg: "first-msg"
        case .flags: "flags"
        case .id: "id"
        case .login: "login"
        case .mod: "mod"
        case .msgId: "msg-id"
        case .returningChatter: "returning-chatter"
        case .roomId: "room-id"
        case .subscriber: "subscriber"
        case .targetMsgId: "target-msg-id"
        case .targetUserId: "target-user-id"
        case .banDuration: "ban-duration"
        case .tmiSentTs: "tmi-sent-ts"
        case .turbo: "turbo"
        case .userId: "user-id"
        case .userType: "user-type"
        case .vip: "vip"
        case .replyParentMsgId: "reply-parent-msg-id"
        case .replyParentUserId: "reply-parent-user-id"
        case .replyParentUserLogin: "reply-parent-user-login"
        case .replyParentDisplayName: "reply-parent-display-name"
        case .replyParentMsgBody: "reply-parent-msg-body"
        case .replyThreadParentMsgId: "reply-thread-parent-msg-id"
        case .replyThreadParentUserLogin: "reply-thread-parent-user-login"
        case .replyThreadParentUserId: "reply-thread-parent-user-id"
        case .replyThreadParentDisplayName: "reply-thread-parent-display-name"
        case .sourceId: "source-id"
        case .sourceRoomId: "source-room-id"
        case .sourceBadges: "source-badges"
        case .sourceBadgeInfo: "source-badge-info"
        case .sourceOnly: "source-only"
        case .sourceMsgId: "source-msg-id"
        case .systemMsg: "system-msg"
        case .messageId: "message-id"
        case .threadId: "thread-id"
        case .followersOnly: "followers-only"
        case .r9k: "r9k"
        case .slow: "slow"
        case .subsOnly: "subs-only"
        case .customRewardId: "custom-reward-id"
        case .time: "time"
        case .animationId: "animation-id"
        case .historical: "historical"
        case .rmReceivedTs: "rm-received-ts"
        case .pinnedChatPaidAmount: "pinned-chat-paid-amount"
        case .pinnedChatPaidCurrency: "pinned-chat-paid-currency"
        case .pinnedChatPaidExponent: "pinned-chat-paid-exponent"
        case .pinnedChatPaidLevel: "pinned-chat-paid-level"
        case .pinnedChatPaidIsSystemMessage: "pinned-chat-paid-is-system-message"
        case .pinnedChatPaidCanonicalAmount: "pinned-chat-paid-canonical-amount"
        }
    }

    /// The key whose wire name is `line[range]`, or `nil`.
    ///
    /// - Complexity: O(key length): one hash and usually one comparison.
    /// - Allocations: none (the lookup table is built once per process).
    public init?(bytes line: Span<UInt8>, _ range: ByteRange) {
        let table = tagKeyTable
        var slot = Int(TagKeyTable.hash(line, range.range)) & TagKeyTable.mask
        while true {
            let entry = table.buckets[slot]
            if entry == TagKeyTable.empty { return nil }
            let key = TwitchTagKey(rawValue: entry)!
            if line.equals(key.name, at: range) {
                self = key
                return
            }
            slot = (slot + 1) & TagKeyTable.mask
        }
    }
}

/// Open-addressing table from a key's FNV-1a hash to its ``TwitchTagKey``.
struct TagKeyTable: Sendable {
    static let size = 256
    static let mask = size - 1
    static let empty: UInt8 = .max
    let buckets: [UInt8]

    init() {
        var buckets = [UInt8](repeating: Self.empty, count: Self.size)
        for key in TwitchTagKey.allCases {
            let name = key.name
            // SAFETY: `utf8Start` points at `utf8CodeUnitCount` initialised bytes of a static string.
            let bytes = unsafe UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            let h = unsafe Self.hash(Span(_unsafeElements: bytes), 0..<bytes.count)
            var slot = Int(h) & Self.mask
            while buckets[slot] != Self.empty { slot = (slot + 1) & Self.mask }
            buckets[slot] = key.rawValue
        }
        self.buckets = buckets
    }

    @inline(__always)
    static func hash(_ line: Span<UInt8>, _ range: Range<Int>) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for i in range {
            h = (h ^ UInt32(line[i])) &* 16_777_619
        }
        return h ^ (h >> 16)
    }
}

let tagKeyTable = TagKeyTable()
