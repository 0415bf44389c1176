import ChatFormat
import Testing

@Suite struct RecentMessagesResponseTests {
    static func decode(_ text: String) throws(RecentMessagesResponse.DecodeError) -> RecentMessagesResponse {
        try RecentMessagesResponse.decode(Array(text.utf8))
    }

    @Test("the API's answer: messages, error and error_code, other members skipped")
    func answer() throws {
        let r = try Self.decode(
            #"{"messages":["@historical=1 :a PRIVMSG #c :hi","b"],"error":null,"error_code":null,"#
                + #""extra":{"x":[1,2.5e3,true,false,null,{"y":"z"}]}}"#)
        #expect(r.messages.map { String(decoding: $0, as: UTF8.self) } == ["@historical=1 :a PRIVMSG #c :hi", "b"])
        #expect(r.error == nil)
        #expect(r.errorCode == nil)
        let e = try Self.decode(
            #" { "messages" : [ ] , "error" : "The bot is currently not joined to this channel" , "error_code" : "channel_not_joined" } "#
        )
        #expect(e.messages.isEmpty)
        #expect(e.error == "The bot is currently not joined to this channel")
        #expect(e.errorCode == "channel_not_joined")
    }

    @Test("escapes are unescaped to UTF-8, surrogate pairs joined")
    func escapes() throws {
        let r = try Self.decode(#"{"messages":["a\"b\\c\/d\te\u00e9\ud83d\ude00\ud800x"]}"#)
        #expect(String(decoding: r.messages[0], as: UTF8.self) == "a\"b\\c/d\te\u{e9}\u{1F600}\u{FFFD}x")
    }

    @Test(
        "what is not the API's answer is refused with its byte offset",
        arguments: [
            ("", 0), ("[]", 0), (#"{"messages":[1]}"#, 13), (#"{"messages":["a"]} x"#, 19), (#"{"messages":["a"#, 15),
            (#"{"a":tru}"#, 8),
        ])
    func refused(text: String, offset: Int) {
        #expect(throws: RecentMessagesResponse.DecodeError.self) { try Self.decode(text) }
        do {
            _ = try Self.decode(text)
        } catch {
            #expect(error.offset == offset, "\(text): \(error)")
        }
    }
}
