import ChatInput
import ChatPosix
import ChatStore
import ChatTestSupport
import ChatWatch
import Foundation
import IRCWire
import Synchronization
import Testing

/// The owner side of `watch`: channels shown as they appear, room settings, rates, problems, pacing.
@Suite struct TerminalIngestTests {
    @Test("channels are listed in order of first appearance, each with a mailbox holding its whole window")
    func channels() throws {
        let (store, board) = try watchStore(["privmsg.irc"])
        #expect(board.channels.map(\.name) == ["pixelharbor", "lunafrost"])
        #expect(board.status == .replayEnded)
        for channel in board.channels {
            let change = try #require(channel.mailbox?.take())
            let log = try #require(store.log(at: channel.index!))
            #expect(change.window.range == log.ring.liveRange && change.inserted == change.window.range)
        }
    }

    @Test("with a channel list, other channels are not stored and listed channels come first, even before their chat")
    func channelList() throws {
        let (store, board) = try watchStore(["privmsg.irc"], channels: ["lunafrost", "nobody"])
        #expect(board.channels.map(\.name) == ["lunafrost", "nobody"])
        #expect(board.channels[0].index != nil && board.channels[1].index == nil)
        #expect(store.log(named: "pixelharbor") == nil)
        #expect(store.log(named: "lunafrost")?.ring.count == 1)
    }

    @Test("room settings follow the latest ROOMSTATE, deltas merged into the full state")
    func rooms() throws {
        let (_, board) = try watchStore(["roomstate.irc"])
        let rooms = Dictionary(uniqueKeysWithValues: board.channels.map { ($0.name, $0.room) })
        #expect(rooms["pixelharbor"]?.describe() == "no restrictions")
        #expect(rooms["lunafrost"]?.describe() == "followers-only · sub-only · r9k")
        var partial = RoomSettings()
        #expect(partial.describe().isEmpty)
        let bytes = Array("@room-id=1;slow=30 :tmi.twitch.tv ROOMSTATE #c".utf8)
        partial.merge(try TwitchMessage.parse(bytes.span).roomState(in: bytes.span)!)
        #expect(partial.describe() == "slow 30s")
    }

    @Test("malformed input is reported to the board, not dropped silently")
    func problems() throws {
        let (_, board) = try watchStore(["malformed.irc"])
        let problems = board.problems
        #expect(problems.count == 7)
        #expect(problems.descriptions.allSatisfy { $0.contains("malformed.irc:") })
    }

    @Test("messages per second count the last ten seconds of chat time")
    func rate() throws {
        let store = ChatStore()
        let board = WatchBoard()
        let ingest = WatchIngest(store: store, board: board)
        for k in 0..<40 {  // four messages a second for ten seconds
            let ms = 1_763_700_000_000 + Int64(k) * 250
            let bytes = Array("@tmi-sent-ts=\(ms) :u!u@u PRIVMSG #c :hi".utf8)
            ingest.append(bytes.span, try TwitchMessage.parse(bytes.span), receivedAt: Timestamp(milliseconds: ms))
        }
        let bytes = Array(":u!u@u PRIVMSG #c :later".utf8)
        ingest.append(
            bytes.span, try TwitchMessage.parse(bytes.span), receivedAt: Timestamp(milliseconds: 1_763_700_010_000))
        #expect(board.channels[0].rate == 3.7)  // the new second: 36 of the last ten seconds plus this one
    }

    @Test("a paced replay stops promptly when asked, even inside a long pause of the recording")
    func stopsDuringPause() throws {
        let store = ChatStore()
        let board = WatchBoard()
        let stop = StopFlag()
        let ingest = WatchIngest(store: store, board: board, stop: stop)
        let input = Array(
            "@tmi-sent-ts=1763700000000 :u!u@u PRIVMSG #c :one\r\n@tmi-sent-ts=1763703600000 :u!u@u PRIVMSG #c :an hour later\r\n"
                .utf8)
        let dir = try InputTempDirectory()
        let path = try dir.write("paced.irc", input)
        let feed = RecordingFeed(reader: try MergeReader(arguments: [path]), speed: 1)
        // Promptness counts from the moment the flag is raised: under a loaded parallel run the
        // dispatch timer itself may fire late, which says nothing about the feed.
        let raisedAt = Mutex<Date?>(nil)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
            raisedAt.withLock { $0 = Date() }
            stop.raise()
        }
        feed.run(into: ingest)
        let stopped = Date()
        let raised = try #require(raisedAt.withLock { $0 })
        #expect(stopped.timeIntervalSince(raised) < 1)
        #expect(store.log(named: "c")?.ring.count == 1)
        #expect(board.status == .replaying)  // stopped, not ended
    }
}
