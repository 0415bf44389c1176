public import IRCWire

/// When a line happened, as far as its tags tell, and which tag said so.
public struct LineTime: Sendable, Equatable {
    /// Where ``timestamp`` came from.
    public enum Origin: UInt8, Sendable {
        /// The IRCv3 `time` tag (server time, RFC 3339).
        case timeTag
        /// Twitch's `tmi-sent-ts` tag (decimal milliseconds).
        case tmiSentTs
        /// Neither tag was usable; ``LineTime/timestamp`` is `nil`.
        case none
    }

    /// The instant, or `nil` when the line carries no usable time tag.
    public var timestamp: Timestamp?
    public var origin: Origin
    /// Whether a `time` or `tmi-sent-ts` tag was present but could not be read (so that it can be
    /// counted rather than silently ignored).
    public var hasUnreadableTag: Bool

    public init(timestamp: Timestamp?, origin: Origin, hasUnreadableTag: Bool) {
        self.timestamp = timestamp
        self.origin = origin
        self.hasUnreadableTag = hasUnreadableTag
    }

    /// The time a parsed line carries: its `time` tag, else its `tmi-sent-ts` tag.
    ///
    /// A tag value holding an escape (`\`) cannot be a valid time and counts as unreadable.
    ///
    /// - Precondition: `message` was parsed from `line`.
    /// - Complexity: O(length of the two tag values). - Allocations: none.
    public init(of message: TwitchMessage, in line: Span<UInt8>) {
        self.init(timeTag: message.tags[.time], sentTs: message.tags[.tmiSentTs], in: line)
    }

    /// ``init(of:in:)`` from the two tags it reads, `time` and `tmi-sent-ts`: for a caller that keeps
    /// the message where a call taking it whole would copy it (its 300 bytes).
    public init(timeTag: TagValue?, sentTs: TagValue?, in line: Span<UInt8>) {
        var unreadable = false
        if let tag = timeTag {
            if let t = Timestamp(rfc3339: line.extracting(tag.raw.range)) {
                self.init(timestamp: t, origin: .timeTag, hasUnreadableTag: false)
                return
            }
            unreadable = true
        }
        if let tag = sentTs {
            if let t = Timestamp(decimalMilliseconds: line.extracting(tag.raw.range)) {
                self.init(timestamp: t, origin: .tmiSentTs, hasUnreadableTag: unreadable)
                return
            }
            unreadable = true
        }
        self.init(timestamp: nil, origin: .none, hasUnreadableTag: unreadable)
    }
}
