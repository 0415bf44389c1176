import ChatStore
import ChatTestSupport
import IRCWire
import Testing

@testable import ChatFormat

/// A PRIVMSG's `"about"` comes from the PRIVMSG view the encoder makes once for the whole object,
/// not from ``TwitchMessage/about(in:)`` (which makes the view again): the two must write the same
/// bytes, for every PRIVMSG of the fixture logs and for sources with an empty, missing or non-ASCII
/// nick.
@Suite struct TypedJSONAboutTests {
    /// The typed object of `line`.
    static func typed(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        let context = LineContext(timestamp: nil, tombstone: nil, isMirror: false)
        TypedJSONEncoder.encode(line.span, message, context, options: JSONOptions(), into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// `"about":…` as the general path writes it, from ``TwitchMessage/about(in:)``.
    static func generalAbout(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        out.beginObject()
        out.key("about")
        switch message.about(in: line.span) {
        case .bytes(let r): out.string(line.span, r)
        case .tag(let v): out.string(line.span, tag: v)
        case nil: out.null()
        }
        return String(decoding: out.bytes.dropFirst(), as: UTF8.self)
    }

    /// Checks one PRIVMSG line; returns whether it was one.
    @discardableResult
    static func check(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
        guard let message = try? TwitchMessage.parse(line.span), message.command == .privmsg else { return false }
        let typed = try typed(line)
        let about = try generalAbout(line)
        #expect(typed.contains(",\(about),"), "\(typed) lacks \(about)", sourceLocation: sourceLocation)
        return true
    }

    @Test("sources with a nick, an empty nick, no nick, no source and a non-ASCII nick")
    func edgeCases() throws {
        let cases: [(String, String)] = [
            (":ann!ann@ann.tmi.twitch.tv PRIVMSG #c :hi", #""about":"ann""#),
            (":!u@h PRIVMSG #c :hi", #""about":null"#),
            (":tmi.twitch.tv PRIVMSG #c :hi", #""about":"tmi.twitch.tv""#),
            ("PRIVMSG #c :hi", #""about":null"#),
            (":\u{e9}t\u{e9}!x@y PRIVMSG #c :\u{1}ACTION waves\u{1}", #""about":"\#u{e9}t\#u{e9}""#),
            ("@id=1;emotes= :bob!bob@bob PRIVMSG #c :a \"quote\"", #""about":"bob""#),
        ]
        for (text, expected) in cases {
            let line = Array(text.utf8)
            #expect(try Self.typed(line).contains(expected), "\(text)")
            #expect(try Self.check(line), "\(text)")
        }
    }

    @Test("every PRIVMSG of the fixture logs: the same about as the general path")
    func everyFixtureLine() throws {
        var checked = 0
        for file in try Fixtures.lineFiles() {
            let bytes = try Fixtures.bytes("lines/" + file)
            for line in bytes.split(separator: 0x0A) {
                var line = Array(line)
                if line.last == 0x0D { line.removeLast() }
                if try Self.check(line) { checked += 1 }
            }
        }
        #expect(checked > 50)
    }
}
