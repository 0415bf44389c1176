import ChatHTTP
import ChatLogStore
import ChatLogs
import Foundation
import Testing

/// Search, random lines and name history over ``LogsFixture`` (`search_user_logs`, `random_*_line`,
/// `get_user_name_history` in rustlog's `src/web/handlers.rs`).
@Suite struct LogsServiceSearchTests {
    typealias T = LogsServiceTests

    @Test("routes: random, search, namehistory")
    func routes() throws {
        #expect(try LogsRouteTests.route("/channel/alpha/random") == .channelRandom(.name("alpha")))
        #expect(try LogsRouteTests.route("/channelid/1/user/Bob/random") == .userRandom(.id("1"), .name("bob")))
        #expect(try LogsRouteTests.route("/channel/alpha/userid/2/search") == .userSearch(.name("alpha"), .id("2")))
        #expect(try LogsRouteTests.route("/namehistory/2003") == .nameHistory("2003"))
        #expect(throws: LogsError.notFound) { try LogsRouteTests.route("/namehistory/bob") }
        #expect(throws: LogsError.notFound) { try LogsRouteTests.route("/channel/alpha/randomly") }
    }

    @Test("search: the user's lines in all the channel's files whose text holds q, any case")
    func search() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture)
        #expect(
            T.text(T.get(service, "/channel/alpha/user/bob/search", ["q": "HELLO"]))
                == "[2025-11-20 10:00:00] #alpha bob: hello\r\n")
        // Across months and the rename: dave's id, asked for by the new login.
        #expect(
            T.text(T.get(service, "/channel/alpha/user/dave_new/search", ["q": "name", "reverse": ""]))
                == "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n[2025-10-31 10:00:00] #alpha dave_old: old name\r\n"
        )
        #expect(
            T.text(T.get(service, "/channel/alpha/userid/2003/search", ["q": "name", "limit": "1", "offset": "1"]))
                == "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n")
        let none = T.get(service, "/channel/alpha/user/bob/search", ["q": "nothing like it"])
        #expect(none.status == 404)
        let missing = T.get(service, "/channel/alpha/user/bob/search")
        #expect(missing.status == 400)
        #expect(T.text(missing) == "Failed to deserialize query string: missing field `q`")
        #expect(T.header(T.get(service, "/channel/alpha/user/bob/search", ["q": "h"]), "Cache-Control") == "no-cache")
    }

    @Test("random: one served line of the channel or the user, in the query's format, not cached")
    func random() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture)
        let day20 = Set(LogsServiceTests.nov20Text.components(separatedBy: "\r\n").dropLast().map { $0 + "\r\n" })
        let channel = Set(
            (day20.map { $0 }) + [
                "[2025-10-31 10:00:00] #alpha dave_old: old name\r\n",
                "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n",
                "[2025-11-21 10:00:01] #alpha carol: carol has been banned\r\n",
                "[2025-11-21 10:00:02] #alpha Chat has been cleared\r\n",
            ])
        var drawn = Set<String>()
        for _ in 0..<200 {
            let answer = T.get(service, "/channel/alpha/random")
            #expect(answer.status == 200)
            #expect(T.header(answer, "Cache-Control") == "no-cache")
            let line = T.text(answer)
            #expect(channel.contains(line), "\(line)")
            drawn.insert(line)
        }
        // 200 draws of 9 lines: missing one has a chance of about 9 × (8/9)^200 ≈ 5e-10.
        #expect(drawn == channel)
        #expect(
            T.text(T.get(service, "/channel/beta/user/carol/random"))
                == "[2025-11-21 05:00:00] #beta carol: second\r\n")
        let json = T.get(service, "/channel/beta/userid/2001/random", ["json": ""])
        #expect(T.text(json).hasPrefix(#"{"messages":[{"text":"first","#))
        #expect(T.get(service, "/channel/beta/user/dave_new/random").status == 404)
    }

    @Test("namehistory: every login of the id, first and last seen, oldest first; [] for an unknown id")
    func nameHistory() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture)
        let dave = T.get(service, "/namehistory/2003")
        #expect(dave.status == 200)
        #expect(dave.contentType == "application/json")
        #expect(
            T.text(dave)
                == #"[{"user_login":"dave_old","last_timestamp":"2025-10-31T10:00:00Z","first_timestamp":"2025-10-31T10:00:00Z"},"#
                + #"{"user_login":"dave_new","last_timestamp":"2025-11-21T10:00:00Z","first_timestamp":"2025-11-21T10:00:00Z"}]"#
        )
        // bob: his messages in both channels and the CLEARCHAT that names him (target-user-id).
        #expect(
            T.text(T.get(service, "/namehistory/2001"))
                == #"[{"user_login":"bob","last_timestamp":"2025-11-21T04:59:59Z","first_timestamp":"2025-11-20T10:00:00Z"}]"#
        )
        #expect(T.text(T.get(service, "/namehistory/999")) == "[]")
    }

    @Test("stats: the channel's lines and top chatters by user id; a user's count, in a range too")
    func stats() throws {
        let fixture = try LogsFixture()
        let service = T.service(fixture)
        #expect(try LogsRouteTests.route("/channel/alpha/stats") == .channelStats(.name("alpha")))
        #expect(try LogsRouteTests.route("/channelid/1/userid/2/stats") == .userStats(.id("1"), .id("2")))
        let channel = T.get(service, "/channel/alpha/stats")
        #expect(channel.status == 200)
        #expect(
            T.text(channel)
                == #"{"messageCount":9,"topChatters":[{"userId":"2002","userLogin":"carol","messageCount":3},"#
                + #"{"userId":"2001","userLogin":"bob","messageCount":2},{"userId":"2003","userLogin":"dave_new","messageCount":2}]}"#
        )
        #expect(
            T.text(
                T.get(service, "/channel/alpha/stats", ["from": "2025-11-21T00:00:00Z", "to": "2025-11-22T00:00:00Z"]))
                == #"{"messageCount":3,"topChatters":[{"userId":"2002","userLogin":"carol","messageCount":1},{"userId":"2003","userLogin":"dave_new","messageCount":1}]}"#
        )
        #expect(
            T.text(T.get(service, "/channel/alpha/user/dave_old/stats"))
                == #"{"userId":"2003","userLogin":"dave_new","messageCount":2}"#)
        #expect(
            T.text(
                T.get(
                    service, "/channel/alpha/userid/2003/stats",
                    ["from": "2025-10-01T00:00:00Z", "to": "2025-11-01T00:00:00Z"]))
                == #"{"userId":"2003","userLogin":"dave_old","messageCount":1}"#)
        #expect(T.get(service, "/channel/alpha/user/nobody/stats").status == 404)
    }
}
