import ChatWatch
import Testing

@Suite struct TerminalScreenTests {
    static func rows(_ texts: [String]) -> [ScreenRow] {
        texts.map { s in
            var t = StyledText()
            t.append(s, .plain)
            return t.truncated(width: 40)
        }
    }

    static func update(_ screen: inout Screen, _ texts: [String], width: Int = 40) -> (Screen.Update, String) {
        var out: [UInt8] = []
        let u = screen.update(to: rows(texts), width: width, scrollable: 1..<(texts.count - 1), into: &out)
        return (u, String(decoding: out, as: UTF8.self))
    }

    static let frame = ["header", "a", "b", "c", "d", "e", "f", "footer"]

    @Test("the first frame repaints everything")
    func firstFrame() {
        var screen = Screen()
        let (u, out) = Self.update(&screen, Self.frame)
        #expect(u.repainted && u.rowsWritten == 8)
        #expect(out.hasPrefix("\u{1B}[0m\u{1B}[H\u{1B}[2J"))
    }

    @Test("an unchanged frame writes nothing")
    func unchanged() {
        var screen = Screen()
        _ = Self.update(&screen, Self.frame)
        let (u, out) = Self.update(&screen, Self.frame)
        #expect(u.isEmpty && out.isEmpty)
    }

    @Test("only changed rows are rewritten, each at its own position")
    func changedRows() {
        var screen = Screen()
        _ = Self.update(&screen, Self.frame)
        var next = Self.frame
        next[3] = "C [deleted]"
        next[7] = "footer 2"
        let (u, out) = Self.update(&screen, next)
        #expect(u.rowsWritten == 2 && u.scrolled == 0 && !u.repainted)
        #expect(out == "\u{1B}[4;1HC [deleted]\u{1B}[K\u{1B}[8;1Hfooter 2\u{1B}[K")
    }

    @Test("new rows at the bottom scroll the message region; only the new rows are written")
    func scrolls() {
        var screen = Screen()
        _ = Self.update(&screen, Self.frame)
        let (u, out) = Self.update(&screen, ["header", "c", "d", "e", "f", "g", "h", "footer"])
        #expect(u.scrolled == 2 && u.rowsWritten == 2)
        #expect(out == "\u{1B}[2;7r\u{1B}[2S\u{1B}[r\u{1B}[6;1Hg\u{1B}[K\u{1B}[7;1Hh\u{1B}[K")
    }

    @Test("a different size or an invalidated screen repaints")
    func repaint() {
        var screen = Screen()
        _ = Self.update(&screen, Self.frame)
        #expect(Self.update(&screen, Self.frame, width: 41).0.repainted)
        screen.invalidate()
        #expect(Self.update(&screen, Self.frame, width: 41).0.repainted)
        #expect(Self.update(&screen, Array(Self.frame.dropLast())).0.repainted)
    }

    @Test("a blanked row is erased, not left behind")
    func blanked() {
        var screen = Screen()
        _ = Self.update(&screen, Self.frame)
        var next = Self.frame
        next[6] = ""
        let (u, out) = Self.update(&screen, next)
        #expect(u.rowsWritten == 1)
        #expect(out == "\u{1B}[7;1H\u{1B}[K")
    }
}
