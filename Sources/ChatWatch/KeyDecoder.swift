/// Decodes the bytes a terminal sends in raw mode into ``Key``s, across reads.
///
/// Escape sequences: CSI (`ESC [` parameters final byte: arrows `A`–`D`, `H`/`F` home and end,
/// `Z` back-tab, `n~` for home 1/7, insert 2, delete 3, end 4/8, page up 5, page down 6, with or
/// without modifier parameters such as `1;5A`) and SS3 (`ESC O` `A`–`D`, `H`, `F`). A lone ESC is
/// ambiguous until the next byte or a pause: it stays pending until ``flush(_:)`` (which the UI
/// calls when no byte followed within a few tens of milliseconds) turns it into ``Key/escape``.
///
/// A value confined to the thread reading the terminal.
public struct KeyDecoder: Sendable {
    /// An unfinished escape sequence (starts with ESC).
    private var sequence: [UInt8] = []
    private var text = UTF8Scalars()
    /// The longest CSI parameter run accepted before a sequence counts as garbage.
    private static let maximumSequence = 32

    public init() {}

    /// Whether an escape sequence is waiting for more bytes (call ``flush(_:)`` after a pause).
    public var isPending: Bool { !sequence.isEmpty }

    /// Decodes `bytes`, calling `emit` with each complete key.
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none once warmed up.
    public mutating func feed(_ bytes: some Sequence<UInt8>, _ emit: (Key) -> Void) {
        for b in bytes { feed(byte: b, emit) }
    }

    /// Ends a pause: a pending lone ESC is the Escape key; an unfinished sequence is dropped as
    /// ``Key/unknown``.
    public mutating func flush(_ emit: (Key) -> Void) {
        guard !sequence.isEmpty else { return }
        emit(sequence.count == 1 ? .escape : .unknown)
        sequence.removeAll(keepingCapacity: true)
    }

    private mutating func feed(byte b: UInt8, _ emit: (Key) -> Void) {
        if !sequence.isEmpty {
            continueSequence(b, emit)
            return
        }
        switch b {
        case 0x1B: sequence.append(b)
        case 0x0D, 0x0A: emit(.enter)
        case 0x09: emit(.tab)
        case 0x7F, 0x08: emit(.backspace)
        case 0x00: emit(.control("@"))
        case 0x01...0x1F: emit(.control(Unicode.Scalar(b + 0x60)))
        default: text.feed(b) { emit(.character($0)) }
        }
    }

    private mutating func continueSequence(_ b: UInt8, _ emit: (Key) -> Void) {
        if sequence.count == 1 {
            switch b {
            case UInt8(ascii: "["), UInt8(ascii: "O"):
                sequence.append(b)
            case 0x1B:
                emit(.escape)  // ESC ESC: the first one was a key; the second may start a sequence
            default:
                // ESC then a plain byte: Escape, then that byte as a key of its own.
                emit(.escape)
                sequence.removeAll(keepingCapacity: true)
                feed(byte: b, emit)
            }
            return
        }
        sequence.append(b)
        let ss3 = sequence[1] == UInt8(ascii: "O")
        if ss3 || (b >= 0x40 && b <= 0x7E) {
            emit(Self.key(sequence))
            sequence.removeAll(keepingCapacity: true)
        } else if sequence.count > Self.maximumSequence || !(b >= 0x20 && b <= 0x3F) {
            emit(.unknown)
            sequence.removeAll(keepingCapacity: true)
        }
    }

    /// Names a complete `ESC [ … final` or `ESC O x` sequence.
    static func key(_ s: [UInt8]) -> Key {
        let final = s[s.count - 1]
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "Z") where s[1] == UInt8(ascii: "["): return .backTab
        case UInt8(ascii: "~") where s[1] == UInt8(ascii: "["):
            var n = 0
            var i = 2
            while i < s.count - 1, s[i] >= UInt8(ascii: "0"), s[i] <= UInt8(ascii: "9"), n < 1000 {
                n = n * 10 + Int(s[i] - UInt8(ascii: "0"))
                i += 1
            }
            switch n {
            case 1, 7: return .home
            case 2: return .insert
            case 3: return .delete
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            default: return .unknown
            }
        default: return .unknown
        }
    }
}
