import ChatPosix
import Testing

/// The pace and shape of capture's and load's status on stderr, with a made-up clock and width.
@Suite struct StatusDriverTests {
    final class Written {
        var text: [String] = []
        func driver(_ mode: StatusDriver.Mode, columns: Int = 80) -> StatusDriver {
            StatusDriver(
                mode: mode, intervalMs: 1_000, startedMs: 10_000, columns: { columns }, write: { self.text.append($0) })
        }
    }

    @Test("a terminal's line: every 250 ms, one column short of the width, cleared first and at the end")
    func line() {
        let written = Written()
        let driver = written.driver(.line)
        var widths: [Int] = []
        let line = { (width: Int) -> String in
            widths.append(width)
            return "status"
        }
        driver.tick(nowMs: 10_100, line: line, json: { "{}" })
        #expect(written.text.isEmpty)
        driver.tick(nowMs: 10_250, line: line, json: { "{}" })
        driver.tick(nowMs: 10_400, line: line, json: { "{}" })
        driver.tick(nowMs: 10_500, line: line, json: { "{}" })
        #expect(written.text == ["\r\u{1B}[Kstatus", "\r\u{1B}[Kstatus"])
        #expect(widths == [79, 79])
        driver.say("note")
        driver.finish()
        #expect(written.text.suffix(2) == ["\r\u{1B}[Kchatcap: note\n", "\r\u{1B}[K"])
    }

    @Test("JSON: one object a line every interval, nothing to clear; none: nothing at all")
    func jsonAndNone() {
        let written = Written()
        let json = written.driver(.json)
        json.tick(nowMs: 10_999, line: { _ in "line" }, json: { "{}" })
        json.tick(nowMs: 11_000, line: { _ in "line" }, json: { "{}" })
        json.tick(nowMs: 11_500, line: { _ in "line" }, json: { "{}" })
        json.say("note")
        json.finish()
        #expect(written.text == ["{}\n", "chatcap: note\n"])
        let quiet = Written()
        let none = quiet.driver(.none)
        none.tick(nowMs: 100_000, line: { _ in "line" }, json: { "{}" })
        none.finish()
        #expect(quiet.text.isEmpty)
    }

    @Test("a terminal one column wide still gets a column")
    func narrow() {
        let written = Written()
        var widths: [Int] = []
        let line = { (width: Int) -> String in
            widths.append(width)
            return ""
        }
        written.driver(.line, columns: 1).tick(nowMs: 20_000, line: line, json: { "" })
        #expect(widths == [1])
    }
}
