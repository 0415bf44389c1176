import ChatFormat
import ChatStore
public import IRCWire

/// A chatter's name colour: the `color` tag (`#RRGGBB`), else a stable pick from Twitch's default
/// palette by login — `TextRenderer`'s rule, so `watch` and `replay --format text` colour a user alike.
public enum NameColor: Sendable {
    /// The colour of the sender with `login`, whose `color` tag is `tag` (``TextRenderer/nameColor(_:tag:login:)``).
    ///
    /// - Complexity: O(login). - Allocations: none.
    public static func of(_ bytes: Span<UInt8>, tag: TagValue?, login: ByteRange) -> RGB {
        RGB(hex: TextRenderer.nameColor(bytes, tag: tag, login: login))
    }
}
