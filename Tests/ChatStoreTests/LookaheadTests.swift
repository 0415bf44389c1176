import ChatIndex
import IRCWire
import Testing

@testable import ChatStore

/// ``ChatStore/lookahead(_:in:_:)`` names what the next appends will read, line by line, and hands
/// what it found to the append of the line it was shown.
@Suite struct LookaheadTests {
    static func line(_ channel: String, _ n: Int = 1) -> [UInt8] {
        Array("@id=\(n) :u!u@u PRIVMSG #\(channel) :hi".utf8)
    }

    /// The addresses one call lends.
    @discardableResult
    static func show(_ store: ChatStore, _ channel: String) throws -> [UnsafeRawPointer] {
        let bytes = line(channel)
        let message = try TwitchMessage.parse(bytes.span)
        var addresses: [UnsafeRawPointer] = []
        var calls = 0
        store.lookahead(message.channel, in: bytes.span) { lines in
            calls += 1
            for i in lines.indices { addresses.append(UnsafeRawPointer(bitPattern: lines[i])!) }
        }
        #expect(calls == 1)  // every address in one call
        return addresses
    }

    static func address(_ object: AnyObject) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test("each call lends its line's index slot, the ring of the line before it, then that ring's next slot")
    func lendsStepByStep() throws {
        let store = ChatStore(capacity: 10)
        for name in ["a", "b"] { _ = try store.ingest(Self.line(name).span, receivedAt: .epoch) }
        let a = try #require(store.log(named: "a"))
        let first = try Self.show(store, "a")
        #expect(first.count == 1)  // nothing shown before: the slot of "a" only
        #expect(first[0] == store.byName.homeSlot(of: ChannelIndex.key(for: Array("a".utf8).span)))
        let second = try Self.show(store, "b")
        let ring = Self.address(a.ring)
        #expect(second.count == 4)  // not the log: an append reads it only for moderation
        #expect(Array(second.dropFirst()) == [ring, ring + 64, ring + 128])
        #expect(second[0] != first[0])  // the slots of "a" and "b" (home slots of a table of 16)
        // "c" is not in the store yet: its slot, then the targets of "a"'s ring (found by the call
        // before), then "b"'s ring.
        let third = try Self.show(store, "c")
        #expect(third.count == 1 + 6 + 3)
        let table = a.ring.table
        #expect(third[1] == UnsafeRawPointer(table.metas + table.slot(a.ring.tail)))
        #expect(third[7] == Self.address(try #require(store.log(named: "b")).ring))
        #expect(try Self.show(store, "a").count == 1 + 6)  // "c"'s objects: none yet
        #expect(store.channelCount == 2)  // a hint creates nothing
    }

    @Test("an append takes what the look-ahead found for its line; a line not shown is looked up as always")
    func appendsTakeWhatWasFound() throws {
        let store = ChatStore(capacity: 10)
        _ = try store.ingest(Self.line("a").span, receivedAt: .epoch)
        let order = ["a", "b", "a", "c", "a", "b", "b", "d"]
        // Shown three lines ahead, as a block lends them: "b", "c" and "d" are new when shown.
        for (i, name) in order.enumerated() {
            if i + 3 < order.count { try Self.show(store, order[i + 3]) }
            let placement = try store.ingest(Self.line(name, i).span, receivedAt: .epoch)
            #expect(store.log(at: placement.channel)?.name == name)
        }
        // Out of turn: shown lines whose appends never come, then a line not shown.
        for name in ["x", "y", "z", "a"] { try Self.show(store, name) }
        let placement = try store.ingest(Self.line("b", 99).span, receivedAt: .epoch)
        #expect(store.log(at: placement.channel)?.name == "b")
        #expect(store.log(named: "b")?.ring.count == 4)
        #expect(store.log(named: "a")?.ring.count == 4 && store.log(named: "x") == nil)
        #expect(store.channelCount == 4)
    }
}
