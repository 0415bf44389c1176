import ChatLogStore
import ChatLogs
import Testing

@Suite struct LogNameTests {
    @Test(
        "logins are 1…25 bytes of [a-z0-9_], not starting with _",
        arguments: [
            ("forsen", true), ("a", true), ("user_1", true), (String(repeating: "a", count: 25), true),
            ("", false), ("..", false), ("_session", false), ("_load", false), ("Forsen", false),
            (String(repeating: "a", count: 26), false), ("a/b", false), ("a%2Fb", false), ("a\u{0}b", false),
            ("a b", false), ("é", false),
        ])
    func logins(name: String, isLogin: Bool) {
        #expect(LogName.isLogin(name) == isLogin)
    }

    @Test("a name is lowered before it is checked")
    func lowered() {
        #expect(LogName.login("Forsen") == "forsen")
        #expect(LogName.login("..") == nil)
        #expect(LogName.login("_Session") == nil)
    }

    @Test(
        "capture's file names give their day; other names none",
        arguments: [
            ("2025-11-21.log.gz", LogDay(year: 2025, month: 11, day: 21)),
            ("2025-11-21T04.log.gz", LogDay(year: 2025, month: 11, day: 21)),
            ("2025-11-21.0003.log.gz", LogDay(year: 2025, month: 11, day: 21)),
            ("2025-11-21.1.log.gz", LogDay(year: 2025, month: 11, day: 21)),
            ("2025-11-21.log", LogDay(year: 2025, month: 11, day: 21)),
            ("2024-02-29.log.gz", LogDay(year: 2024, month: 2, day: 29)),
            ("2025-02-29.log.gz", nil), ("2025-13-01.log.gz", nil), ("notes.txt", nil), ("chat.irc.gz", nil),
            (".2025-11-21.log.gz", nil),
        ])
    func days(name: String, day: LogDay?) {
        #expect(LogName.day(ofFile: name) == day)
    }

    @Test("days and months print without leading zeros and sort by date")
    func dates() throws {
        let a = try #require(LogDay(year: 2025, month: 1, day: 7))
        let b = try #require(LogDay(year: 2025, month: 11, day: 1))
        #expect(a.description == "2025/1/7")
        #expect(a < b)
        #expect(a.logMonth.description == "2025/1")
        #expect(LogMonth(year: 2025, month: 0) == nil)
    }
}
