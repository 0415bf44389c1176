public import ChatStore
import IRCWire

/// The output formats of `replay`, `tail` and `dump`.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// `HH:MM:SS #channel name: message`, for people.
    case text
    /// Typed NDJSON (`docs/ndjson.md`).
    case json
    /// NDJSON with the ircdocs atoms: tags, source, verb, params. Lossless and generic.
    case irc
    /// The lines as read.
    case raw
}

/// What an encoder knows about a line besides its bytes.
public struct LineContext: Sendable {
    /// The message time: IRCv3 `time`, else `tmi-sent-ts`, else nil.
    public var timestamp: Timestamp?
    /// The moderation mark, when moderation is applied (`nil`: not applied, fields omitted).
    public var tombstone: Tombstone?
    /// A shared-chat copy of a message kept in another channel.
    public var isMirror: Bool

    public init(timestamp: Timestamp?, tombstone: Tombstone? = nil, isMirror: Bool = false) {
        self.timestamp = timestamp
        self.tombstone = tombstone
        self.isMirror = isMirror
    }
}

/// Options of the JSON encoders.
public struct JSONOptions: Sendable {
    /// Add `"tags"` with every tag (unescaped).
    public var withTags = false
    /// Add `"raw"` with the line as read.
    public var withRaw = false
    public init(withTags: Bool = false, withRaw: Bool = false) {
        self.withTags = withTags
        self.withRaw = withRaw
    }
}
