import ChatFormat
import IRCWire
import Testing

@Suite struct HistoricalLineTests {
    static func exported(
        _ text: String, receivedAtMs: Int64 = 1_700_000_000_123, deleted: Bool = false, notice: Bool = false
    ) throws -> String {
        let bytes = Array(text.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        var out: [UInt8] = []
        HistoricalLine.write(
            bytes.span, message: message, receivedAtMs: receivedAtMs, deleted: deleted, clearchatToNotice: notice,
            into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("puts the service's tags before the line's own")
    func tagged() throws {
        #expect(
            try Self.exported("@badges=;id=a1;tmi-sent-ts=5 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi")
                == "@rm-received-ts=1700000000123;historical=1;badges=;id=a1;tmi-sent-ts=5 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi"
        )
    }
}
