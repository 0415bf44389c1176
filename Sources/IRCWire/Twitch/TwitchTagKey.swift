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
        guard range.count <= 40 else { return nil }  // longer than any key we know
        precondition(Int(range.upper) <= line.count, "key range outside the line")
        if Int(range.lower) + max(range.count, 8) <= line.count {
            // The table's word reads stay within the line: look the key up where it is.
            // SAFETY: `line[lower ..< lower + max(count, 8)]` is inside the span (checked above).
            let index = unsafe line.withUnsafeBufferPointer { buffer in
                unsafe tagKeyTable.lookup(buffer.baseAddress! + Int(range.lower), count: range.count)
            }
            guard let index else { return nil }
            self.init(rawValue: UInt8(index))
            return
        }
        // Near the end of the line: copy the key into a zero-padded local so that word reads never leave it.
        var padded: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        let index = unsafe withUnsafeMutableBytes(of: &padded) { raw -> Int? in
            for (k, i) in range.range.enumerated() { unsafe raw[k] = line[i] }
            // SAFETY: `padded` holds 48 bytes: the key (<= 40) plus at least 8 of zero padding.
            let p = unsafe raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return unsafe tagKeyTable.lookup(p, count: range.count)
        }
        guard let index else { return nil }
        self.init(rawValue: UInt8(index))
    }
}

/// Open-addressing table from a tag key to its ``TwitchTagKey``; built once per process.
///
/// Its memory is allocated once and never freed (the table lives as long as the process), so that
/// lookups on the per-line path touch plain memory: no reference counting, no bounds checks.
///
/// ```
///  buckets[256]   hash slot → key index, 0xFF = empty
///  lengths[k]     byte length of key k's name
///  starts[k]      offset of key k's name in `names`
///  names          every key name, back to back, plus 8 bytes of zero padding for word reads
/// ```
@safe
struct TagKeyTable: @unchecked Sendable {  // immutable after init; the pointers are never written again
    static let size = 256
    static let empty: UInt8 = .max

    private let buckets: UnsafeMutablePointer<UInt8>
    private let lengths: UnsafeMutablePointer<Int>
    private let starts: UnsafeMutablePointer<Int>
    private let names: UnsafeMutablePointer<UInt8>

    init() {
        let keys = TwitchTagKey.allCases
        let total = keys.reduce(0) { $0 + $1.name.utf8CodeUnitCount }
        unsafe buckets = .allocate(capacity: Self.size)
        unsafe lengths = .allocate(capacity: keys.count)
        unsafe starts = .allocate(capacity: keys.count)
        unsafe names = .allocate(capacity: total + 8)
        unsafe buckets.initialize(repeating: Self.empty, count: Self.size)
        unsafe names.initialize(repeating: 0, count: total + 8)
        var offset = 0
        for key in keys {
            let name = key.name
            let k = Int(key.rawValue)
            unsafe lengths[k] = name.utf8CodeUnitCount
            unsafe starts[k] = offset
            // SAFETY: `utf8Start` holds `utf8CodeUnitCount` bytes; `offset + count <= total`.
            unsafe (names + offset).update(from: name.utf8Start, count: name.utf8CodeUnitCount)
            let h = unsafe Self.hash(names + offset, count: name.utf8CodeUnitCount)
            var slot = h
            // SAFETY: slots are masked to `0 ..< size`.
            while unsafe buckets[slot] != Self.empty { slot = (slot + 1) & (Self.size - 1) }
            unsafe buckets[slot] = key.rawValue
            offset += name.utf8CodeUnitCount
        }
    }

    /// A bucket index for the `count` bytes at `key`, from its first and last eight bytes and length.
    ///
    /// - Precondition (caller): `key[0 ..< max(count, 8)]` is readable (keys shorter than 8 bytes are
    ///   read as a whole word and masked).
    @unsafe
    @inline(__always)
    static func hash(_ key: UnsafePointer<UInt8>, count: Int) -> Int {
        let first: UInt64
        let last: UInt64
        if count >= 8 {
            first = unsafe Words.load(key, 0)
            last = unsafe Words.load(key, count &- 8)
        } else {
            first = unsafe Words.load(key, 0) & ((1 << (UInt64(count) &* 8)) &- 1)
            last = 0
        }
        var h = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: count)
        h = (h ^ (h >> 31)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: h >> 56)
    }

    /// The index (``TwitchTagKey`` raw value) of the key spelled by the `count` bytes at `key`.
    ///
    /// - Precondition (caller): `key[0 ..< max(count, 8)]` is readable.
    /// - Complexity: O(count / 8) expected. - Allocations: none.
    @unsafe
    @inline(__always)
    func lookup(_ key: UnsafePointer<UInt8>, count: Int) -> Int? {
        var slot = unsafe Self.hash(key, count: count)
        while true {
            // SAFETY: `slot` is masked to `0 ..< size`; `entry` indexes `lengths`/`starts` (one element
            // per key); word reads of `name` stay within `names` (8 bytes of padding at the end) and
            // of `key` within `count` (the caller's bytes).
            let entry = unsafe buckets[slot]
            if entry == Self.empty { return nil }
            let index = Int(entry)
            if unsafe lengths[index] == count, unsafe Self.equal(key, names + starts[index], count: count) {
                return index
            }
            slot = (slot &+ 1) & (Self.size - 1)
        }
    }

    @unsafe
    @inline(__always)
    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
        if count < 8 {
            var k = 0
            while k < count {
                if unsafe a[k] != b[k] { return false }
                k &+= 1
            }
            return true
        }
        var k = 0
        while k &+ 8 < count {
            if unsafe Words.load(a, k) != Words.load(b, k) { return false }
            k &+= 8
        }
        return unsafe Words.load(a, count &- 8) == Words.load(b, count &- 8)
    }
}

/// The one table, built on first use.
let tagKeyTable = TagKeyTable()
