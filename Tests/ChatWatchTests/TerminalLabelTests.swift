import ChatInput
import ChatStore
import ChatTestSupport
import ChatWatch
import Foundation
import Testing

/// What sets a message apart in `watch`: replies name who is answered; first messages, highlighted
/// messages, bits and shared-chat copies carry a label; an announcement is not drawn like a /me.
@Suite struct TerminalLabelTests {
    static let lines = [
        "@display-name=Ann;reply-parent-msg-id=p1;reply-parent-user-login=bob;reply-parent-display-name=Bob;tmi-sent-ts=1763700000000 :ann!ann@a PRIVMSG #c :@Bob agreed",
        "@display-name=Cid;first-msg=1;tmi-sent-ts=1763700001000 :cid!cid@c PRIVMSG #c :hello everyone",
        "@display-name=Dee;msg-id=highlighted-message;tmi-sent-ts=1763700002000 :dee!dee@d PRIVMSG #c :look at me",
        "@display-name=Eve;bits=100;tmi-sent-ts=1763700003000 :eve!eve@e PRIVMSG #c :cheer100 nice",
        "@display-name=Fay;room-id=1;source-room-id=2;source-id=s1;tmi-sent-ts=1763700004000 :fay!fay@f PRIVMSG #c :from the other side",
        "@display-name=Gus;tmi-sent-ts=1763700005000 :gus!gus@g PRIVMSG #c :\u{1}ACTION waves\u{1}",
        "@display-name=Hal;login=hal;msg-id=announcement;msg-param-color=PRIMARY;system-msg=;tmi-sent-ts=1763700006000 :tmi.twitch.tv USERNOTICE #c :stream starts soon",
    ]

    @Test("labels: ↪ @who for a reply, [first], [highlighted], [N bits], [shared]; [announcement] unlike a /me")
    func labels() throws {
        let dir = try InputTempDirectory()
        let path = try dir.write("c.irc", Array(Self.lines.map { $0 + "\r\n" }.joined().utf8))
        let store = ChatStore()
        let board = WatchBoard(channels: [])
        let ingest = WatchIngest(store: store, board: board, channels: [])
        RecordingFeed(reader: try MergeReader(arguments: [path]), speed: nil).run(into: ingest)
        let rows = layout(store, channel: "c", width: 200).map { $0.joined() }
        #expect(
            rows == [
                "04:40:00 ↪ @Bob Ann: @Bob agreed",
                "04:40:01 [first] Cid: hello everyone",
                "04:40:02 [highlighted] Dee: look at me",
                "04:40:03 [100 bits] Eve: cheer100 nice",
                "04:40:04 [shared] Fay: from the other side",
                "04:40:05 * Gus waves",
                "04:40:06 [announcement] Hal: stream starts soon",
            ], "\(rows)")
    }
}
