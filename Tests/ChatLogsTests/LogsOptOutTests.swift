import ChatHTTP
import ChatLogStore
import ChatLogs
import IRCWire
import Testing

/// The opt-out list: channels and users on it are refused with rustlog's 403, and no answer holds a
/// line about a user on it (`check_opted_out`, `Error::ChannelOptedOut`/`UserOptedOut` in rustlog).
@Suite struct LogsOptOutTests {
    typealias T = LogsServiceTests

    static func service(_ fixture: LogsFixture, _ list: String) throws -> LogsService {
        LogsService(
            archive: LogArchive(root: fixture.root), maxAnswerBytes: 1 << 20, optOut: try OptOutList(parsing: list),
            now: { T.later })
    }

    @Test("the list: logins and numeric ids, one a line, # comments, lowered; anything else names its line")
    func parse() throws {
        let list = try OptOutList(parsing: "# opted out\nBob\n\n  2003  # dave\r\nbeta\n")
        #expect(list.logins == ["bob", "beta"])
        #expect(list.ids == ["2003"])
        #expect(throws: OptOutList.ParseError(line: 2, text: "not/a login")) {
            try OptOutList(parsing: "bob\nnot/a login\n")
        }
        #expect(try OptOutList(parsing: "").isEmpty)
    }

    @Test("a channel on the list, by login or by id: 403 on every route, left out of /channels")
    func channel() throws {
        let fixture = try LogsFixture()
        for entry in ["beta", "1002"] {
            let service = try Self.service(fixture, entry)
            for path in [
                "/channel/beta/2025/11/21", "/channel/beta", "/channelid/1002/user/bob/2025/11", "/channel/beta/random",
            ] {
                let answer = T.get(service, path)
                #expect(answer.status == 403, "\(entry) \(path)")
                #expect(T.text(answer) == "The requested channel has opted out of being logged")
            }
            #expect(T.get(service, "/list", ["channel": "beta"]).status == 403)
            #expect(T.text(T.get(service, "/channels")) == #"{"channels":[{"name":"alpha","userID":"1001"}]}"#)
            #expect(T.get(service, "/channel/alpha/2025/11/20").status == 200)
        }
    }

    @Test("a user on the list: 403 for their routes, and their lines (and the bans about them) in no answer")
    func user() throws {
        let fixture = try LogsFixture()
        let service = try Self.service(fixture, "bob\n2003\n")
        for path in [
            "/channel/alpha/user/bob/2025/11", "/channel/alpha/user/dave_old/2025/10",
            "/channel/alpha/userid/2003/2025/11", "/channel/alpha/user/dave_new/random", "/namehistory/2003",
        ] {
            let answer = T.get(service, path)
            #expect(answer.status == 403, "\(path)")
            #expect(T.text(answer) == "The requested user has opted out of being logged", "\(path)")
        }
        // bob asked for by id (only his login is listed): none of his lines may be served.
        #expect(T.get(service, "/channel/alpha/userid/2001/2025/11").status == 404)
        #expect(
            T.text(T.get(service, "/channel/alpha/2025/11/20"))
                == "[2025-11-20 10:00:01] #alpha carol: waves\r\n"
                + "[2025-11-20 10:00:05] #alpha carol: message `waves` from `carol` has been deleted\r\n"
                + "[2025-11-20 10:00:06] #alpha carol: Carol subscribed for 3 months! still here\r\n")
        #expect(
            T.text(T.get(service, "/channel/alpha/2025/11/21", ["reverse": ""]))
                == "[2025-11-21 10:00:02] #alpha Chat has been cleared\r\n"
                + "[2025-11-21 10:00:01] #alpha carol: carol has been banned\r\n")
        #expect(T.get(service, "/channel/alpha/2025/10/31").status == 404)
        for _ in 0..<50 {
            #expect(!T.text(T.get(service, "/channel/beta/random")).contains("bob"))
        }
    }

    @Test("a new list takes effect at the next request")
    func reload() throws {
        let fixture = try LogsFixture()
        let service = try Self.service(fixture, "alpha")
        #expect(T.get(service, "/channel/alpha/2025/11/20").status == 403)
        service.setOptOut(try OptOutList(parsing: "carol"))
        #expect(T.get(service, "/channel/alpha/2025/11/20").status == 200)
        #expect(T.get(service, "/channel/alpha/user/carol/2025/11").status == 403)
        service.setOptOut(OptOutList())
        #expect(T.text(T.get(service, "/channel/alpha/2025/11/20")) == T.nov20Text)
    }

    @Test("a listed login the archive has no folder of (capture --opt-out withheld it all) is refused, not missing")
    func channelNeverStored() throws {
        let fixture = try LogsFixture()
        let service = try Self.service(fixture, "gamma")
        #expect(T.get(service, "/channel/gamma/2025/11/20").status == 403)
        #expect(T.get(service, "/channel/delta/2025/11/20").status == 404)
    }

    @Test("withholds: a line of a listed channel (its login or room-id) or about a listed user; nothing else")
    func withholds() throws {
        let line = { (text: String) -> Bool in
            let bytes = Array(text.utf8)
            let message = try! TwitchMessage.parse(bytes.span)
            return OptOutFilter(try! OptOutList(parsing: "beta\n1003\ncarol\n2001"))
                .withholds(StoredLine(message: message, received: nil), in: bytes.span)
        }
        let privmsg = { (login: String, id: Int, room: Int, channel: String) in
            LogsFixture.privmsg(login, id: id, room: room, channel: channel, sent: LogsFixture.nov21, text: "hi")
        }
        #expect(line(privmsg("dave", 2004, 1002, "beta")), "the channel by login")
        #expect(line(privmsg("dave", 2004, 1003, "gamma")), "the channel by room-id")
        #expect(line(privmsg("carol", 2002, 1001, "alpha")), "the user by login")
        #expect(line(privmsg("bobby", 2001, 1001, "alpha")), "the user by id")
        #expect(!line(privmsg("dave", 2004, 1001, "alpha")))
        #expect(!line(privmsg("betamax", 1002, 1001, "alpha")), "a login is compared whole")
        #expect(line("@room-id=1001;target-user-id=2002 :tmi.twitch.tv CLEARCHAT #alpha :carol"), "a ban of the user")
        #expect(!line("@room-id=1001 :tmi.twitch.tv CLEARCHAT #alpha"))
        #expect(line(":tmi.twitch.tv ROOMSTATE #BETA"), "a channel's other lines too, in any case")
        #expect(!line(":tmi.twitch.tv ROOMSTATE #alpha"))
    }
}
