/// A 24-bit colour.
public struct RGB: Sendable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `0xRRGGBB`.
    public init(hex: UInt32) {
        self.init(
            UInt8(truncatingIfNeeded: hex >> 16), UInt8(truncatingIfNeeded: hex >> 8), UInt8(truncatingIfNeeded: hex))
    }
}

/// How a run of text looks: 24-bit colours and SGR attributes.
public struct TextStyle: Sendable, Hashable {
    public var foreground: RGB? = nil
    public var background: RGB? = nil
    public var bold = false
    public var dim = false
    public var italic = false
    public var strike = false
    public var reverse = false

    public init(
        foreground: RGB? = nil, background: RGB? = nil, bold: Bool = false, dim: Bool = false, italic: Bool = false,
        strike: Bool = false, reverse: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.italic = italic
        self.strike = strike
        self.reverse = reverse
    }

    public static let plain = TextStyle()

    /// Appends the SGR sequence that switches from any state to this style (a reset first).
    ///
    /// - Allocations: none once `out` has grown.
    func appendSGR(to out: inout [UInt8]) {
        out.append(contentsOf: [0x1B, 0x5B, 0x30])  // ESC [ 0
        if bold { out.append(contentsOf: [0x3B, 0x31]) }
        if dim { out.append(contentsOf: [0x3B, 0x32]) }
        if italic { out.append(contentsOf: [0x3B, 0x33]) }
        if reverse { out.append(contentsOf: [0x3B, 0x37]) }
        if strike { out.append(contentsOf: [0x3B, 0x39]) }
        if let c = foreground { Self.colour(38, c, &out) }
        if let c = background { Self.colour(48, c, &out) }
        out.append(UInt8(ascii: "m"))
    }

    private static func colour(_ kind: Int, _ c: RGB, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: ";"))
        decimal(kind, &out)
        out.append(contentsOf: [0x3B, 0x32])  // ;2
        out.append(UInt8(ascii: ";"))
        decimal(Int(c.r), &out)
        out.append(UInt8(ascii: ";"))
        decimal(Int(c.g), &out)
        out.append(UInt8(ascii: ";"))
        decimal(Int(c.b), &out)
    }
}

/// Appends `n >= 0` in decimal.
func decimal(_ n: Int, _ out: inout [UInt8]) {
    if n >= 10 { decimal(n / 10, &out) }
    out.append(UInt8(ascii: "0") + UInt8(n % 10))
}

/// Terminal control sequences the screen uses.
enum Control {
    static let reset: [UInt8] = Array("\u{1B}[0m".utf8)
    static let eraseLine: [UInt8] = Array("\u{1B}[K".utf8)
    static let eraseScreen: [UInt8] = Array("\u{1B}[H\u{1B}[2J".utf8)
    static let resetScrollRegion: [UInt8] = Array("\u{1B}[r".utf8)
    /// Synchronized output (terminals that do not know it ignore it): the frame appears at once.
    static let beginFrame: [UInt8] = Array("\u{1B}[?2026h".utf8)
    static let endFrame: [UInt8] = Array("\u{1B}[?2026l".utf8)

    /// `CSI row;column H`, 1-based.
    static func moveTo(row: Int, column: Int = 1, _ out: inout [UInt8]) {
        out.append(contentsOf: [0x1B, 0x5B])
        decimal(row, &out)
        out.append(UInt8(ascii: ";"))
        decimal(column, &out)
        out.append(UInt8(ascii: "H"))
    }

    /// Scrolls rows `top ... bottom` (1-based, inclusive) up by `count`: DECSTBM, SU, DECSTBM reset.
    static func scrollUp(top: Int, bottom: Int, count: Int, _ out: inout [UInt8]) {
        out.append(contentsOf: [0x1B, 0x5B])
        decimal(top, &out)
        out.append(UInt8(ascii: ";"))
        decimal(bottom, &out)
        out.append(UInt8(ascii: "r"))
        out.append(contentsOf: [0x1B, 0x5B])
        decimal(count, &out)
        out.append(UInt8(ascii: "S"))
        out.append(contentsOf: resetScrollRegion)
    }
}
