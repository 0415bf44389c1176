/// A streaming UTF-8 validator that passes valid sequences through and replaces each maximal
/// invalid subpart with U+FFFD (the Unicode-recommended practice, as `String(decoding:as:)` does).
///
/// - Complexity: O(1) per byte. - Allocations: none.
public struct UTF8Repair: Sendable {
    private var pending = InlineArray<4, UInt8>(repeating: 0)
    private var count = 0
    private var needed = 0
    /// Bounds for the second byte of the pending sequence (they narrow for E0, ED, F0, F4).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    public init() {}

    static let replacement: (UInt8, UInt8, UInt8) = (0xEF, 0xBF, 0xBD)

    public mutating func feed(_ b: UInt8, _ emit: (UInt8) -> Void) {
        if needed > 0 {
            let lo: UInt8 = count == 1 ? low : 0x80
            let hi: UInt8 = count == 1 ? high : 0xBF
            if b >= lo && b <= hi {
                pending[count] = b
                count += 1
                if count == needed {
                    for i in 0..<count { emit(pending[i]) }
                    needed = 0
                    count = 0
                }
                return
            }
            // The pending sequence is a maximal invalid subpart: one replacement, then `b` anew.
            emitReplacement(emit)
            needed = 0
            count = 0
        }
        switch b {
        case 0x00...0x7F: emit(b)
        case 0xC2...0xDF: start(b, 2, 0x80, 0xBF)
        case 0xE0: start(b, 3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: start(b, 3, 0x80, 0xBF)
        case 0xED: start(b, 3, 0x80, 0x9F)
        case 0xF0: start(b, 4, 0x90, 0xBF)
        case 0xF1...0xF3: start(b, 4, 0x80, 0xBF)
        case 0xF4: start(b, 4, 0x80, 0x8F)
        default: emitReplacement(emit)  // stray continuation byte or a byte never valid in UTF-8
        }
    }

    /// At the end of the input: a sequence cut short becomes one replacement character.
    public mutating func finish(_ emit: (UInt8) -> Void) {
        if needed > 0 { emitReplacement(emit) }
        needed = 0
        count = 0
    }

    private mutating func start(_ b: UInt8, _ length: Int, _ lo: UInt8, _ hi: UInt8) {
        pending[0] = b
        count = 1
        needed = length
        low = lo
        high = hi
    }

    private func emitReplacement(_ emit: (UInt8) -> Void) {
        emit(Self.replacement.0)
        emit(Self.replacement.1)
        emit(Self.replacement.2)
    }
}
