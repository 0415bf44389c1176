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
        guard range.count > 0, range.count <= 40 else { return nil }  // empty, or longer than any key we know
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

/// Collision-free table from a tag key to its ``TwitchTagKey``; built once per process.
///
/// A key is hashed from its length and its first and last eight bytes, folded into one word and
/// multiplied by a constant chosen when the table is built so that no two documented keys share a
/// bucket (one multiplication per key: the three of a general-purpose mix were a fifth of the
/// scan's work per tag, issue 39). A lookup is then one bucket: the
/// bucket holds those two words and the length, which spell any key of up to 16 bytes completely,
/// so one comparison decides (a longer key also compares its middle words with the name). An unknown
/// key lands in an empty bucket or fails that comparison. No probing, no byte loop: the probing
/// table this replaces spent its time in mispredicted branches of its length and byte comparisons.
///
/// Its memory is allocated once and never freed (the table lives as long as the process), so that
/// lookups on the per-line path touch plain memory: no reference counting, no bounds checks.
///
/// ```
///  buckets[256]   (first word, last word, length, key index); length 0 = empty
///  starts[k]      offset of key k's name in `names` (for the middle words of keys over 16 bytes)
///  names          every key name, back to back, plus 8 bytes of zero padding for word reads
/// ```
@safe
struct TagKeyTable: @unchecked Sendable {  // immutable after init; the pointers are never written again
    static let size = 256

    struct Bucket {
        var first: UInt64 = 0
        var last: UInt64 = 0
        /// The key's length; 0 marks an empty bucket (no key is empty, and lookups skip empty keys).
        var count: UInt32 = 0
        var index: UInt32 = 0
    }

    private let buckets: UnsafeMutablePointer<Bucket>
    private let starts: UnsafeMutablePointer<Int>
    private let names: UnsafeMutablePointer<UInt8>
    /// Where the seed search starts: the first seed from 0 that gives today's keys a bucket each.
    static let firstSeed: UInt64 = 5846
    /// The first seed (from ``firstSeed``) whose ``multiplier(seed:)`` gives every documented key a
    /// bucket of its own.
    let seed: UInt64
    /// The hash's multiplier, ``multiplier(seed:)`` of ``seed``.
    let multiplier: UInt64

    init() {
        let keys = TwitchTagKey.allCases
        let total = keys.reduce(0) { $0 + $1.name.utf8CodeUnitCount }
        unsafe buckets = .allocate(capacity: Self.size)
        unsafe starts = .allocate(capacity: keys.count)
        unsafe names = .allocate(capacity: total + 8)
        unsafe names.initialize(repeating: 0, count: total + 8)
        var offset = 0
        for key in keys {
            let name = key.name
            unsafe starts[Int(key.rawValue)] = offset
            // SAFETY: `utf8Start` holds `utf8CodeUnitCount` bytes; `offset + count <= total`.
            unsafe (names + offset).update(from: name.utf8Start, count: name.utf8CodeUnitCount)
            offset += name.utf8CodeUnitCount
        }
        // Find a seed that gives every key its own bucket: with 59 keys in 256 buckets about one
        // seed in a thousand does. The search starts at the first that does for the keys of today
        // (found from 0), so that it ends at once instead of after some 3 M instructions; keys added
        // or renamed make it search on from there.
        var seed = Self.firstSeed
        var used = [Bool](repeating: false, count: Self.size)
        search: while true {
            precondition(seed < Self.firstSeed + 1 << 24, "no collision-free seed for the tag keys")
            for k in used.indices { used[k] = false }
            let multiplier = Self.multiplier(seed: seed)
            for key in keys {
                let (first, last, count) = unsafe Self.words(
                    names + starts[Int(key.rawValue)], key.name.utf8CodeUnitCount)
                let slot = Self.bucket(first, last, count, multiplier: multiplier)
                if used[slot] {
                    seed &+= 1
                    continue search
                }
                used[slot] = true
            }
            break
        }
        self.seed = seed
        multiplier = Self.multiplier(seed: seed)
        unsafe buckets.initialize(repeating: Bucket(), count: Self.size)
        for key in keys {
            let (first, last, count) = unsafe Self.words(names + starts[Int(key.rawValue)], key.name.utf8CodeUnitCount)
            unsafe buckets[Self.bucket(first, last, count, multiplier: multiplier)] = Bucket(
                first: first, last: last, count: UInt32(count), index: UInt32(key.rawValue))
        }
    }

    /// The first and last eight bytes of the `count` bytes at `key` (a key under 8 bytes: its bytes
    /// in the top of the first word, shifted there by one left shift that also drops the bytes read
    /// past it, and a zero last word).
    ///
    /// - Precondition (caller): `count > 0` and `key[0 ..< max(count, 8)]` is readable.
    @unsafe
    @inline(__always)
    static func words(_ key: UnsafePointer<UInt8>, _ count: Int) -> (UInt64, UInt64, Int) {
        if count >= 8 { return unsafe (Words.load(key, 0), Words.load(key, count &- 8), count) }
        // Little-endian: byte k of the key is bits 8k ..< 8k + 8, so a shift by 64 - 8 * count keeps
        // exactly the key's bytes (`&<<` takes the amount modulo 64: one shift instruction).
        return unsafe (Words.load(key, 0) &<< UInt64(truncatingIfNeeded: 64 &- count &* 8), 0, count)
    }

    /// The bucket of a key's words under `multiplier`: the words and the length folded into one
    /// word (a rotation and two XORs), then one multiplication whose top byte is the bucket.
    @inline(__always)
    static func bucket(_ first: UInt64, _ last: UInt64, _ count: Int, multiplier: UInt64) -> Int {
        let folded = first ^ (last &<< 32 | last &>> 32) ^ UInt64(truncatingIfNeeded: count)
        return Int(truncatingIfNeeded: (folded &* multiplier) &>> 56)
    }

    /// The `seed`th candidate multiplier: odd, its bits spread by SplitMix64's finaliser.
    static func multiplier(seed: UInt64) -> UInt64 {
        var z = seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z &>> 31)) | 1
    }

    /// The index (``TwitchTagKey`` raw value) of the key spelled by the `count` bytes at `key`.
    ///
    /// - Precondition (caller): `count > 0` and `key[0 ..< max(count, 8)]` is readable.
    /// - Complexity: O(1) for keys up to 16 bytes, O(count / 8) above. - Allocations: none.
    @unsafe
    @inline(__always)
    func lookup(_ key: UnsafePointer<UInt8>, count: Int) -> Int? {
        let (first, last, _) = unsafe Self.words(key, count)
        // SAFETY: `bucket` is in `0 ..< size`.
        let b = unsafe buckets[Self.bucket(first, last, count, multiplier: multiplier)]
        guard (b.first ^ first) | (b.last ^ last) | UInt64(truncatingIfNeeded: Int(b.count) ^ count) == 0 else {
            return nil
        }
        if count > 16 {
            // SAFETY: words `8 ..< count - 8` of the key (the caller's bytes) and of its name (inside
            // `names`, `count` bytes from its start).
            let name = unsafe names + starts[Int(b.index)]
            var k = 8
            while k < count &- 8 {
                if unsafe Words.load(key, k) != Words.load(name, k) { return nil }
                k &+= 8
            }
        }
        return Int(b.index)
    }
}

/// The one table, built on first use.
let tagKeyTable = TagKeyTable()
