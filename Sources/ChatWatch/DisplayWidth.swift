/// Terminal column widths of Unicode scalars, as terminals (tmux, wcwidth) count them: East Asian
/// wide and fullwidth characters and emoji with emoji presentation take two columns, combining
/// marks, format characters and variation selectors none, everything else one.
///
/// Sequences are the caller's business: ``UTF8Scalars`` and ``StyledText`` give the scalar after
/// a zero-width joiner, and the second regional indicator of a flag, zero columns (tmux does).
public enum DisplayWidth: Sendable {
    /// Columns `scalar` takes on its own: 0, 1 or 2.
    ///
    /// - Complexity: O(log ranges). - Allocations: none.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x300 { return 1 }  // ASCII and Latin-1 (controls are replaced before they get here)
        if isWide(v) { return 2 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v >= 0x1160 && v <= 0x11FF { return 0 }  // Hangul medial vowels and final consonants
        return scalar.properties.isEmojiPresentation ? 2 : 1
    }

    /// Whether `v` is a regional indicator (two of them form a flag).
    static func isRegionalIndicator(_ v: UInt32) -> Bool { v >= 0x1F1E6 && v <= 0x1F1FF }

    /// East Asian Wide (W) and Fullwidth (F) blocks, sorted.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x18CFF, 0x1B000...0x1B2FF,
        0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ v: UInt32) -> Bool {
        guard v >= 0x1100 else { return false }
        var lo = 0
        var hi = wide.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if wide[mid].upperBound < v { lo = mid + 1 } else { hi = mid }
        }
        return lo < wide.count && wide[lo].contains(v)
    }
}
