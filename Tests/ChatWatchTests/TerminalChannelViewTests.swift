import ChatStore
import ChatTestSupport
import ChatWatch
import IRCWire
import Testing

/// Composition and scrolling of one channel's view, on a store filled from fixtures (no terminal).
@Suite struct TerminalChannelViewTests {
    static func view(_ store: ChatStore, _ board: WatchBoard, _ name: String) throws -> (ChannelView, LayoutContext) {
        let channel = try #require(board.channels.first { $0.name == name })
        let view = ChannelView(name: name)
        let change = try #require(channel.mailbox?.take())
        view.attach(index: channel.index!, mailbox: channel.mailbox!)
        view.apply(change)
        return (view, LayoutContext(store: store, reader: store.readers.makeReader()!))
    }

    @Test("the live view shows the newest rows at the bottom; a short channel fills from the top")
    func live() throws {
        let (store, board) = try watchStore(["privmsg.irc"])
        let (view, context) = try Self.view(store, board, "pixelharbor")
        let rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        #expect(rows.first == "04:40:24 TurboTom: Kappa Kappa PogChamp")
        #expect(rows.last == "04:40:30 Lurk_Lord: :) hi chat")
        #expect(view.isLive && view.newBelow == 0)
        let (luna, lunaContext) = try Self.view(store, board, "lunafrost")
        let short = luna.compose(height: 4, width: 100, with: lunaContext).map(\.plainText)
        #expect(short == ["04:40:32 S MoonMoth: lunafrHeart lunafrHeart good morning luna", "", "", ""])
    }

    @Test("a store of capacity Int.max composes like any other (the row cache's bound does not overflow)")
    func hugeCapacity() throws {
        let (store, board) = try watchStore(["privmsg.irc"], capacity: .max)
        let (view, context) = try Self.view(store, board, "pixelharbor")
        let rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        #expect(rows.last == "04:40:30 Lurk_Lord: :) hi chat")
    }

    @Test("k and PgUp scroll back with a count of new rows below; G returns to live; the top stops at the oldest")
    func scrolling() throws {
        let (store, board) = try watchStore(["privmsg.irc"])
        let (view, context) = try Self.view(store, board, "pixelharbor")
        _ = view.compose(height: 5, width: 100, with: context)
        view.lineUp()
        var rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        #expect(rows.last == "04:40:29 trollface99: darn this game is rigged")
        #expect(!view.isLive && view.newBelow == 1)
        view.pageUp()
        rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        #expect(rows.last == "04:40:23 BS PixelHarbor: pixelhHype lets gooo")  // the top row became the bottom one
        #expect(view.newBelow == 5)
        for _ in 0..<10 {
            view.pageUp()
            rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        }
        #expect(rows.first == "04:40:01 S NightOwlGG: good evening chat, what did I miss?")
        #expect(rows.allSatisfy { !$0.isEmpty })  // the oldest page is a full page
        view.lineDown(with: context)
        rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        #expect(rows.first == "04:40:02 Lurk_Lord: Kappa Keepo Kappa")
        view.follow()
        rows = view.compose(height: 5, width: 100, with: context).map(\.plainText)
        #expect(rows.last == "04:40:30 Lurk_Lord: :) hi chat" && view.isLive)
    }

    @Test("PgDn at the end of the history returns to live")
    func pageDownToLive() throws {
        let (store, board) = try watchStore(["privmsg.irc"])
        let (view, context) = try Self.view(store, board, "pixelharbor")
        _ = view.compose(height: 5, width: 100, with: context)
        view.pageUp()
        _ = view.compose(height: 5, width: 100, with: context)
        #expect(!view.isLive)
        view.pageDown(height: 5, with: context)
        _ = view.compose(height: 5, width: 100, with: context)
        view.pageDown(height: 5, with: context)
        #expect(view.isLive)
    }

    @Test("a tombstone set after a row was laid out re-lays out that row only")
    func modified() throws {
        let store = ChatStore(capacity: 50, windowSize: 20, interval: 0)
        let board = WatchBoard()
        let ingest = WatchIngest(store: store, board: board)
        func add(_ line: String) {
            let bytes = Array(line.utf8)
            ingest.append(
                bytes.span, try! TwitchMessage.parse(bytes.span), receivedAt: Timestamp(milliseconds: 1_763_700_000_000)
            )
        }
        add("@id=a;user-id=1;tmi-sent-ts=1763700000000 :u1!u1@u1 PRIVMSG #c :first")
        add("@id=b;user-id=2;tmi-sent-ts=1763700001000 :u2!u2@u2 PRIVMSG #c :second")
        ingest.finish()
        let (view, context) = try Self.view(store, board, "c")
        #expect(
            view.compose(height: 2, width: 80, with: context).map(\.plainText) == [
                "04:40:00 u1: first", "04:40:01 u2: second",
            ])
        add("@login=u1;target-msg-id=a;tmi-sent-ts=1763700002000 :tmi.twitch.tv CLEARMSG #c :first")
        ingest.finish()
        let change = try #require(board.channels[0].mailbox?.take())
        #expect(change.modified.contains(0) && change.inserted == 2..<3)
        #expect(view.apply(change) == .rows)
        let rows = view.compose(height: 3, width: 80, with: context).map(\.plainText)
        #expect(
            rows == [
                "04:40:00 u1: first [deleted]", "04:40:01 u2: second", "04:40:02 -- message deleted from u1: first",
            ])
    }
}
