public import IRCWire

/// An interned string's identity: equal tokens mean equal strings (while both are live).
///
/// Index in the low 20 bits, a reuse generation above, so a renderer may cache by token safely.
/// `0` means "absent or empty".
public struct Token: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public static let none = Token(rawValue: 0)
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue & 0xFFFFF)/\(rawValue >> 20)" }
}

/// The interned metadata of an entry's sender.
public struct SenderTokens: Sendable, Hashable {
    public var login = Token.none
    public var displayName = Token.none
    public var color = Token.none
    public var badges = Token.none
    public init() {}
}

/// What a reader learns about an entry besides its bytes. A value: copy it out freely.
public struct EntryInfo: Sendable {
    /// The entry's sequence number in its channel log.
    public var seq: UInt64
    /// Offsets of the parsed line, relative to the entry's bytes.
    public var parsed: ParsedLine
    public var command: TwitchCommand
    /// When the line was received.
    public var receivedAt: Timestamp
    public var tombstone: Tombstone
    public var sender: SenderTokens
    /// A shared-chat copy of a message already kept in another channel (see de-duplication).
    public var isMirror: Bool
}

/// What the owner stores per slot: 40 bytes (`parsed` 20, `command` 3, the flags 1, then two
/// 8-byte fields). Written before the entry is published; immutable afterwards (the tombstone lives
/// in its own atomic).
struct EntryMeta {
    var parsed: ParsedLine
    var command: TwitchCommand
    /// ``isMirror`` and ``hasSourceId`` in one byte: a second `Bool` would push the 8-byte fields
    /// to the next 8-byte boundary (after `command`'s 3 bytes) and cost 8 bytes a slot.
    private var flags: UInt8
    var byteStart: UInt64
    var receivedAt: Int64

    init(
        parsed: ParsedLine, command: TwitchCommand, isMirror: Bool, hasSourceId: Bool, byteStart: UInt64,
        receivedAt: Int64
    ) {
        self.parsed = parsed
        self.command = command
        flags = (isMirror ? 1 : 0) | (hasSourceId ? 2 : 0)
        self.byteStart = byteStart
        self.receivedAt = receivedAt
    }

    /// A shared-chat copy of a message already kept in another channel.
    var isMirror: Bool { flags & 1 != 0 }
    /// Whether the line has a `source-id` the store's shared-chat index may hold (a non-empty one,
    /// on a PRIVMSG or USERNOTICE). Its hash is taken again from the bytes when the entry is
    /// evicted: a bit here instead of 8 bytes in every slot, for the few shared-chat lines.
    var hasSourceId: Bool { flags & 2 != 0 }
}

/// Hashes of an entry's `id` and `user-id` (PRIVMSG and USERNOTICE only) tags, 0 when absent: what
/// moderation looks its targets up by. The ring keeps a 32-bit fingerprint of each and links the
/// entry into their bucket chains (``IdLinks``, in ``SlotTable/ids``).
struct IdHashes {
    var message: UInt64
    var user: UInt64
}
