import ChatPosix
import Glibc
import Testing

@Suite struct TerminalWidthTests {
    @Test("a terminal says its width (TIOCGWINSZ), whatever COLUMNS says")
    func terminal() throws {
        // A pseudo-terminal's master end answers TIOCGWINSZ with the size set on it.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(master >= 0)
        defer { close(master) }
        var size = winsize(ws_row: 24, ws_col: 40, ws_xpixel: 0, ws_ypixel: 0)
        try #require(ioctl(master, UInt(TIOCSWINSZ), &size) == 0)
        #expect(TerminalWidth.columns(of: master, environment: { $0 == "COLUMNS" ? "200" : nil }) == 40)
    }

    @Test(
        "not a terminal: COLUMNS when it is a positive number, else 80",
        arguments: [("132", 132), (nil, 80), ("0", 80), ("-3", 80), ("wide", 80)] as [(String?, Int)])
    func fallback(columns: String?, expected: Int) throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        #expect(TerminalWidth.columns(of: ends[1], environment: { $0 == "COLUMNS" ? columns : nil }) == expected)
    }
}
