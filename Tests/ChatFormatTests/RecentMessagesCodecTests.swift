import ChatFormat
import ChatStore
import IRCWire
import Testing

/// The recent-messages v2 JSON both ways, side by side in ChatFormat: what the renderer answers
/// (serve's, capture's and tail's `GET /api/v2/recent-messages`), the decoder reads back (the backfill).
@Suite struct RecentMessagesCodecTests {
    static func store(_ lines: [String]) throws -> ChatStore {
        let store = ChatStore(capacity: 100, internsSenders: false)
        for (i, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            _ = try store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: 1_000 + Int64(i)))
        }
        return store
    }

    @Test("every exported line decodes to the bytes the renderer wrote: quotes, backslashes, UTF-8 and emoji kept")
    func roundTrip() throws {
        let lines = [
            #"@id=a;user-id=1 :u!u@u.tmi.twitch.tv PRIVMSG #c :say "hi" \o/ back\slash"#,
            "@id=b;user-id=2 :v!v@v.tmi.twitch.tv PRIVMSG #c :grüße 日本 🎉 tab\there",
            "@id=c;user-id=1 :u!u@u.tmi.twitch.tv PRIVMSG #c :third",
        ]
        let renderer = try #require(RecentMessagesRenderer(store: try Self.store(lines)))
        let body = renderer.body(channel: "c", query: RecentMessagesQuery(), bound: 500, joined: true)
        let decoded = try RecentMessagesResponse.decode(body)
        #expect(decoded.error == nil && decoded.errorCode == nil)
        #expect(
            decoded.messages.map { String(decoding: $0, as: UTF8.self) } == [
                "@rm-received-ts=1000;historical=1;" + lines[0].dropFirst(),
                "@rm-received-ts=1001;historical=1;" + lines[1].dropFirst(),
                "@rm-received-ts=1002;historical=1;" + lines[2].dropFirst(),
            ])
    }

    @Test("a channel not joined: the error and its code come back as the renderer wrote them, beside the lines kept")
    func notJoined() throws {
        let renderer = try #require(RecentMessagesRenderer(store: try Self.store(["@id=a :u!u@u PRIVMSG #c :x"])))
        let decoded = try RecentMessagesResponse.decode(
            renderer.body(channel: "c", query: RecentMessagesQuery(), bound: 500, joined: false))
        #expect(decoded.errorCode == "\(RecentMessagesRenderer.notJoinedCode)")
        #expect(decoded.error == "\(RecentMessagesRenderer.notJoinedError)")
        // The lines kept before are still answered beside the error, as the service does.
        #expect(decoded.messages.count == 1)
    }
}
