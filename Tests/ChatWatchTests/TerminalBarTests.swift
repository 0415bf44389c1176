import Foundation
import Testing

@testable import ChatWatch

/// The header and footer bars: whole segments or nothing, and the right part never runs into the left.
@Suite struct TerminalBarTests {
    static let segments = [" q quit", " · k/j PgUp/PgDn scroll", " · G live", " · / filter", " · Tab channel"]
    static let keys = segments.map { StyledText($0, .plain) }

    static func bar(_ right: String, _ columns: Int) -> String {
        WatchScreen.bar(keys, StyledText(right, .plain), columns).plainText
    }

    @Test(
        "at 80 columns with PAUSED and the end of a replay: no key help cut into the status",
        arguments: [80, 72, 60, 50])
    func footerAtWidth(columns: Int) {
        let right = "PAUSED · 12 new  replay ended — q quits"  // (plainText drops the trailing space)
        let text = Self.bar(right + " ", columns)
        #expect(text.count == columns - 1, "\(text)")
        #expect(text.hasSuffix(right))
        let left = String(text.dropLast(right.count))
        #expect(left.hasSuffix("  "), "\(text)")  // at least the gap
        // The left part is whole segments from the start.
        let shown = left.trimmingCharacters(in: .whitespaces)
        let joined = Self.segments
        let prefixes = (1...joined.count).map { joined.prefix($0).joined().trimmingCharacters(in: .whitespaces) }
        #expect(shown.isEmpty || prefixes.contains(shown), "'\(shown)'")
    }

    @Test("the old failure: at 80 columns 'G live' ran into 'PAUSED' (G livPAUSED)")
    func noOverprint() {
        let text = Self.bar("PAUSED · 3 new  replay ended — q quits ", 80)
        #expect(!text.contains("livPAUSED") && !text.contains("liPAUSED"))
        #expect(text.contains("  PAUSED"))
    }

    @Test("a first segment wider than the room is cut; a right part wider than the bar is cut at its end")
    func narrow() {
        #expect(Self.bar("LIVE  ", 12) == " q q  LIVE")
        #expect(Self.bar(String(repeating: "x", count: 30), 20) == String(repeating: "x", count: 20))
    }
}
