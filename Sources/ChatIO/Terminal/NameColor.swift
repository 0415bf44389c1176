public import IRCWire

/// A chatter's name colour: the `color` tag (`#RRGGBB`), else a stable pick from Twitch's default
/// palette by login — the same rule as `TextRenderer` in ChatStore, so `watch` and
/// `replay --format text` colour a user alike (a test holds the two together).
public enum NameColor: Sendable {
    /// Twitch's default name colours, for users who never chose one.
    private static let palette: InlineArray<15, UInt32> = [
        0xFF0000, 0x0000FF, 0x008000, 0xB22222, 0xFF7F50, 0x9ACD32, 0xFF4500, 0x2E8B57, 0xDAA520, 0xD2691E,
        0x5F9EA0, 0x1E90FF, 0xFF69B4, 0x8A2BE2, 0x00FF7F,
    ]

    /// The colour of the sender with `login`, whose `color` tag is `tag`.
    ///
    /// - Complexity: O(login). - Allocations: none.
    public static func of(_ bytes: Span<UInt8>, tag: TagValue?, login: ByteRange) -> RGB {
        if let tag, tag.raw.count == 7, bytes[Int(tag.raw.lower)] == UInt8(ascii: "#") {
            var v: UInt32 = 0
            var ok = true
            for i in (Int(tag.raw.lower) + 1)..<Int(tag.raw.upper) {
                let c = bytes[i] | 0x20
                let d: UInt8 =
                    c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
                    ? c - UInt8(ascii: "0")
                    : (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f") ? c - UInt8(ascii: "a") + 10 : 0xFF)
                if d == 0xFF { ok = false }
                v = v << 4 | UInt32(d & 0xF)
            }
            if ok { return RGB(hex: v) }
        }
        var h: UInt32 = 0
        for i in login.range { h = h &* 31 &+ UInt32(bytes[i]) }
        return RGB(hex: palette[Int(h % UInt32(palette.count))])
    }
}
