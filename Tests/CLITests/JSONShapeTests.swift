import ChatTestSupport
import Foundation
import Testing

/// The typed JSON made for jq (issue 13 item 8): emote names, snake_case typed usernotice params,
/// one meaning of `msg_id`, `color` null when empty, `about` on every line, `--user` on lines about
/// the user.
@Suite(.timeLimit(.minutes(20))) struct JSONShapeTests {
    /// `chatcap replay <inputs> --format json [extra] | jq -c <filter>`, its output lines.
    static func jq(_ inputs: [String], _ filter: String, _ extra: [String] = []) throws -> [String] {
        let quoted = (inputs + extra).map { "'\($0)'" }.joined(separator: " ")
        let run = try CLI.shell("\(CLI.shellBinary) replay \(quoted) --format json | jq -c '\(filter)'")
        #expect(run.status == 0, "\(run.stderr)")
        return run.text.split(separator: "\n").map(String.init)
    }

    static func write(_ lines: [String]) throws -> (InputTempDirectory, String) {
        let dir = try InputTempDirectory()
        let path = try dir.write("j.irc", Array(lines.map { $0 + "\r\n" }.joined().utf8))
        return (dir, path)
    }

    @Test("emotes carry the text they cover, cut by code points from multi-byte text")
    func emoteNames() throws {
        let wave = try Self.jq(
            ["Fixtures/lines/privmsg.irc"], #"select(.text == "👋🏽 Kappa héllo Kappa 𝕏") | .emotes"#)
        #expect(
            wave == [
                #"[{"id":"25","name":"Kappa","start":3,"end":8},{"id":"25","name":"Kappa","start":15,"end":20}]"#
            ])
        // Multi-byte names, and an end past the text clamped with its name.
        let (dir, path) = try Self.write([
            "@emotes=1:0-4/2:6-7/3:9-12;id=e1;tmi-sent-ts=1763700000000 :u!u@u.tmi.twitch.tv PRIVMSG #c :héllo 👋🏽 wavé",
            "@emotes=25:6-15;id=e2;tmi-sent-ts=1763700000001 :u!u@u.tmi.twitch.tv PRIVMSG #c :short Kappa",
        ])
        defer { _ = dir }
        let names = try Self.jq([path], #"[.emotes[] | .name] | join("|")"#)
        #expect(names == [#""héllo|👋🏽|wavé""#, #""Kappa""#])
    }

    @Test("usernotice params: snake_case keys, numbers and booleans typed, unknown keys strings; raw tags kept")
    func typedParams() throws {
        let resub = try Self.jq(
            ["Fixtures/lines/usernotice.irc"], #"select(.msg_id == "resub" and .user.login == "kettlecorn") | .params"#)
        #expect(
            resub == [
                #"{"cumulative_months":14,"months":0,"multimonth_duration":0,"multimonth_tenure":0,"should_share_streak":true,"streak_months":14,"sub_plan":"Prime","sub_plan_name":"Channel Subscription (pixelharbor)","was_gifted":false}"#
            ])
        let raid = try Self.jq(["Fixtures/lines/usernotice.irc"], #"select(.msg_id == "raid") | .params"#)
        #expect(raid.count == 1)
        #expect(raid.first?.contains(#""viewer_count":1234"#) == true, "\(raid)")
        #expect(raid.first?.contains(#""display_name":"LunaFrost""#) == true, "\(raid)")
        #expect(raid.first?.contains(#""profile_image_url":"#) == true, "\(raid)")
        let future = try Self.jq(["Fixtures/lines/usernotice.irc"], #"select(.msg_id == "futurething2027") | .params"#)
        #expect(future == [#"{"future_count":"3","future_kind":"hologram"}"#])
        let tags = try Self.jq(
            ["Fixtures/lines/usernotice.irc"],
            #"select(.msg_id == "resub" and .user.login == "kettlecorn") | [.tags["msg-param-cumulative-months"], .tags["msg-param-should-share-streak"]]"#,
            ["--with-tags"])
        #expect(tags == [#"["14","1"]"#])
        // A known numeric key whose value is not a number stays a string; a repeated key once.
        let (dir, path) = try Self.write([
            "@login=a;msg-id=resub;msg-param-cumulative-months=lots;msg-param-was-gifted=maybe;msg-param-viewerCount=1;msg-param-viewer-count=2 :tmi.twitch.tv USERNOTICE #c"
        ])
        defer { _ = dir }
        let odd = try Self.jq([path], ".params")
        #expect(odd == [#"{"cumulative_months":"lots","was_gifted":"maybe","viewer_count":2}"#])
    }

    @Test("msg_id means the msg-id tag only: reply.parent_id, reply.thread_parent_id and source.id")
    func renamedIds() throws {
        let reply = try Self.jq(
            ["Fixtures/lines/privmsg.irc"],
            #"select(.id == "36718ea2-1539-480a-805d-240d46c5c23a") | .reply | keys_unsorted"#)
        #expect(
            reply == [#"["parent_id","user_id","login","display_name","body","thread_parent_id","thread_login"]"#])
        let parent = try Self.jq(
            ["Fixtures/lines/privmsg.irc"],
            #"select(.id == "36718ea2-1539-480a-805d-240d46c5c23a") | [.reply.parent_id, .reply.thread_parent_id]"#)
        #expect(parent == [#"["0f95f0e1-61fd-44f6-b986-34cbeb143124","0f95f0e1-61fd-44f6-b986-34cbeb143124"]"#])
        let source = try Self.jq(
            ["Fixtures/lines/shared-chat.irc"],
            #"select(.type == "privmsg" and .source != null) | .source | keys_unsorted"#)
        #expect(!source.isEmpty)
        #expect(source.allSatisfy { $0 == #"["room_id","id","badges","only"]"# }, "\(source)")
        // Every line has msg_id at the top level (null without the tag), and no object below it has one.
        let nested = try Self.jq(
            ["Fixtures/lines/privmsg.irc", "Fixtures/lines/shared-chat.irc", "Fixtures/lines/edge-cases.irc"],
            #"[has("msg_id"), ([.[] | .. | objects | select(has("msg_id"))] | length)]"#)
        #expect(nested.count == 25 + 13 + 18)
        #expect(nested.allSatisfy { $0 == "[true,0]" }, "\(nested)")
        let deep = try Self.jq(
            ["Fixtures/lines/privmsg.irc", "Fixtures/lines/shared-chat.irc"],
            #"[(.reply // {}), (.source // {})] | map(has("msg_id")) | any"#)
        #expect(deep.allSatisfy { $0 == "false" }, "\(deep)")
    }

    @Test("color is null when the tag is empty, in user, userstate and globaluserstate")
    func emptyColor() throws {
        let colors = try Self.jq(
            ["Fixtures/lines/session.irc"], #"select(.type == "userstate" or .type == "globaluserstate") | .color"#)
        #expect(colors == ["null", "null"])
        let bot = try Self.jq(["Fixtures/lines/moderation.irc"], #"select(.user.login == "linkspammer") | .user.color"#)
        #expect(bot == ["null"])
    }

    @Test("about: the login of the user a line is about, on every line of every type")
    func about() throws {
        let all = try Self.jq(
            Self.everyFixture, #"has("about") and ((keys_unsorted | .[3]) == "about")"#)
        #expect(!all.isEmpty && all.allSatisfy { $0 == "true" }, "\(all.filter { $0 != "true" }.count) lines without")
        let moderation = try Self.jq(
            ["Fixtures/lines/moderation.irc"], #"select(.type != "privmsg") | [.type, .about]"#)
        #expect(
            moderation == [
                #"["clearmsg","trollface99"]"#, #"["clearmsg","linkspammer"]"#, #"["clearchat","trollface99"]"#,
                #"["clearchat","linkspammer"]"#, #"["clearchat",null]"#, #"["clearchat","lurk_lord"]"#,
            ])
        let gifts = try Self.jq(
            ["Fixtures/lines/usernotice.irc"], #"select(.msg_id == "subgift") | [.user.login, .about]"#)
        #expect(gifts.count == 2)
        for g in gifts { #expect(!g.contains(#"null"#), "\(g)") }
        let recipients = try Self.jq(
            ["Fixtures/lines/usernotice.irc"], #"select(.msg_id == "subgift") | .about == .params.recipient_user_name"#)
        #expect(recipients == ["true", "true"])
        let chat = try Self.jq(["Fixtures/lines/privmsg.irc"], #"select(.type == "privmsg") | .about == .user.login"#)
        #expect(chat.count == 25 && chat.allSatisfy { $0 == "true" })
        let session = try Self.jq(
            ["Fixtures/lines/session.irc"], #"select(.type == "join" or .type == "ping") | [.type, .about]"#)
        #expect(session.contains(#"["ping",null]"#))
        #expect(session.contains(#"["join","justinfan12345"]"#), "\(session)")
    }

    @Test("--user keeps the CLEARCHAT and CLEARMSG about the user, and gifts to them")
    func userMatchesAbout() throws {
        let run = try CLI.run([
            "replay", "Fixtures/lines/moderation.irc", "--format", "json", "--user", "TrollFace99",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let types = run.text.split(separator: "\n").map { line -> String in
            let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return "\(o?["type"] ?? "?")"
        }
        #expect(types == ["privmsg", "privmsg", "clearmsg", "clearchat"])
        let gift = try CLI.run([
            "replay", "Fixtures/lines/usernotice.irc", "--format", "raw", "--user", "freshface2025",
        ])
        #expect(gift.lineCount == 2, "\(gift.text)")  // the gift to them and their ritual
    }

    static let everyFixture = [
        "privmsg", "usernotice", "moderation", "roomstate", "session", "shared-chat", "edge-cases", "lf-only",
    ].map { "Fixtures/lines/\($0).irc" }
}
