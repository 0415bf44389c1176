import ChatTestSupport
import IRCWire
import Testing

@testable import ChatStore

/// Feeds a fixture through framer → parser → store, as the ingest loop does.
func ingestFixture(_ file: String, into store: ChatStore) throws -> [Int: [UInt64]] {
    let input = try Fixtures.bytes("lines/" + file)
    var framer = LineFramer()
    var byLine: [Int: [UInt64]] = [:]
    var time: Int64 = 1_763_700_000_000
    framer.feed(input.span) { event, framer in
        guard case .line(let l) = event else { return }
        framer.withBytes(of: l) { bytes in
            time += 1
            if let p = try? store.ingest(bytes, receivedAt: Timestamp(milliseconds: time)) {
                byLine[l.number] = [UInt64(p.channel), p.seq]
            }
        }
    }
    return byLine
}

struct NotLive: Error { var seq: UInt64 }

@Suite struct ChatStoreTests {
    func tombstone(_ store: ChatStore, _ channel: Int, _ seq: UInt64) throws -> Tombstone {
        let reader = try #require(store.readers.makeReader())
        let found = store.log(at: channel)!.ring.withEntry(seq, reader: reader) { info, _ in info.tombstone }
        guard case .found(let t) = found else { throw NotLive(seq: seq) }
        return t
    }

    @Test("moderation.irc: CLEARMSG deletes, CLEARCHAT times out / bans / clears, in place, every fact kept")
    func moderation() throws {
        let store = ChatStore()
        let at = try ingestFixture("moderation.irc", into: store)
        let ch = Int(at[1]![0])
        func mark(_ line: Int) throws -> Tombstone { try tombstone(store, ch, at[line]![1]) }
        // Line 1: deleted (line 6), its sender timed out (line 8), then the whole chat cleared (line 12).
        #expect(try mark(1) == Tombstone(deleted: true, timedOutSeconds: 600, cleared: true))
        // Line 2: deleted (line 7), its sender banned (line 10), then the clear.
        #expect(try mark(2) == Tombstone(deleted: true, banned: true, cleared: true))
        #expect(try mark(4) == Tombstone(timedOutSeconds: 600, cleared: true))  // same sender as line 1
        #expect(try mark(3) == .cleared)  // the whole chat cleared at line 12
        #expect(try mark(9) == .cleared)
        #expect(try mark(11) == .cleared)
        #expect(try mark(5) == Tombstone(timedOutSeconds: 1, cleared: true))  // cleared, then timed out (line 14)
        #expect(try mark(13) == .none)  // after the clear, from a user nobody moderated
        #expect(store.log(at: ch)!.lastClear == at[12]![1])
        // The moderation lines themselves are kept, unmarked.
        #expect(try mark(6) == .none && mark(8) == .none && mark(12) == .none)
    }

    @Test("lines go to their channel's log; connection-level lines to the unnamed log")
    func routing() throws {
        let store = ChatStore()
        _ = try ingestFixture("session.irc", into: store)
        let names = (0..<store.channelCount).map { store.log(at: $0)!.name }.sorted()
        #expect(names == ["", "deletedchannel42", "pixelharbor"])
        #expect(store.log(named: "")?.ring.count == 16)
        #expect(store.log(named: "deletedchannel42")?.ring.count == 1)
        #expect(store.log(named: "pixelharbor")?.ring.count == 15)
        let total = (0..<store.channelCount).reduce(0) { $0 + store.log(at: $1)!.ring.count }
        #expect(total == 32)
    }

    @Test("shared chat: once the first copy is evicted, the next copy in another channel is a first copy again")
    func sharedChatEviction() throws {
        func copy(_ channel: String, _ id: String) -> [UInt8] {
            Array("@id=\(id);source-id=S1;source-room-id=9 :u!u@u PRIVMSG #\(channel) :shared words".utf8)
        }
        for capacity in [2, 10] {
            let store = ChatStore(capacity: capacity, dedupeSharedChat: true)
            #expect(try !store.ingest(copy("a", "1").span, receivedAt: .epoch).isMirror)
            for n in 0..<2 {
                _ = try store.ingest(Array("@id=x\(n) :u!u@u PRIVMSG #a :own words".utf8).span, receivedAt: .epoch)
            }
            // Capacity 2: the first copy has been evicted, and the index forgot it with it.
            let second = try store.ingest(copy("b", "2").span, receivedAt: .epoch)
            #expect(second.isMirror == (capacity == 10), "capacity \(capacity)")
        }
    }

    @Test("shared chat: mirrors are recognised by source-id and marked only when de-duplication is asked for")
    func sharedChat() throws {
        for dedupe in [false, true] {
            let store = ChatStore(dedupeSharedChat: dedupe)
            _ = try ingestFixture("shared-chat.irc", into: store)
            let reader = try #require(store.readers.makeReader())
            var kept: [TwitchCommand: Int] = [:]
            var mirrors = 0
            for c in 0..<store.channelCount {
                let ring = store.log(at: c)!.ring
                ring.withEntries(in: ring.liveRange, reader: reader) { info, _ in
                    if info.isMirror { mirrors += 1 } else { kept[info.command, default: 0] += 1 }
                }
            }
            if dedupe {
                #expect(kept[.privmsg] == 5 && kept[.usernotice] == 2)
                #expect(mirrors == 6)
            } else {
                #expect(mirrors == 0 && kept[.privmsg] == 9 && kept[.usernotice] == 4)
            }
        }
    }

    @Test("interning: one table for all channels; equal names share a token; pruned with the last entry")
    func interning() throws {
        let store = ChatStore(capacity: 3)
        let reader = try #require(store.readers.makeReader())
        func add(_ channel: String, _ login: String, _ n: Int) throws -> UInt64 {
            let bytes = Array(
                "@display-name=\(login.uppercased());color=#FF0000;user-id=\(login.count) :\(login)!x@x PRIVMSG #\(channel) :m\(n)"
                    .utf8)
            return try store.ingest(bytes.span, receivedAt: .epoch).seq
        }
        let a = try add("one", "alice", 0)
        _ = try add("two", "alice", 1)
        let tokens = { (channel: String, seq: UInt64) -> SenderTokens? in
            let r = store.log(named: channel)!.ring.withEntry(seq, reader: reader) { info, _ in info.sender }
            if case .found(let t) = r { return t }
            return nil
        }
        let t1 = try #require(tokens("one", a))
        let t2 = try #require(tokens("two", 0))
        #expect(t1 == t2)
        #expect(store.interner.referenceCount(t1.login) == 2)
        #expect(store.interner.withBytes(t1.displayName) { String(decoding: $0, as: UTF8.self) } == "ALICE")
        // Push alice out of both rings: her strings are pruned; colour stays while others use it.
        for n in 0..<3 {
            _ = try add("one", "bob", n)
            _ = try add("two", "carol", n)
        }
        #expect(store.interner.referenceCount(t1.login) == 0)
        #expect(store.interner.withBytes(t1.login) { _ in true } == nil)
        #expect(store.interner.referenceCount(t1.color) == 6)
        #expect(store.interner.count == 5)  // bob, BOB, carol, CAROL, #FF0000 (no badges tag: nothing)
    }

    @Test("moderation finds its targets among the live entries only: a ban marks exactly the user's kept messages")
    func moderationTargets() throws {
        let store = ChatStore(capacity: 100, internsSenders: false)
        for n in 0..<250 {
            let bytes = Array("@id=m\(n % 200);user-id=\(n % 7) :u\(n % 7)!u@u PRIVMSG #c :hi \(n)".utf8)
            _ = try store.ingest(bytes.span, receivedAt: .epoch)
        }
        // Live before the three moderation lines: seqs 150 ..< 250 (ids m150…m199, then m0…m49); each
        // of them evicts one, so the ban sees 151 ..< 250 and the end holds 153 ..< 253.
        let ban = Array("@target-user-id=3 :tmi.twitch.tv CLEARCHAT #c :u3".utf8)
        let clear = Array("@target-msg-id=m160 :tmi.twitch.tv CLEARMSG #c :hi".utf8)
        let gone = Array("@target-msg-id=m100 :tmi.twitch.tv CLEARMSG #c :hi".utf8)
        for line in [ban, clear, gone] { _ = try store.ingest(line.span, receivedAt: .epoch) }
        let log = try #require(store.log(named: "c"))
        let reader = try #require(store.readers.makeReader())
        var marked: [UInt64: Tombstone] = [:]
        log.ring.withEntries(in: log.ring.liveRange, reader: reader) { info, _ in
            if info.tombstone != .none { marked[info.seq] = info.tombstone }
        }
        let banned = Set((153..<250).filter { $0 % 7 == 3 }.map(UInt64.init))
        #expect(Set(marked.filter { $0.value.banned }.keys) == banned)
        #expect(Set(marked.filter { $0.value.deleted }.keys) == [160])  // m100 was evicted
        #expect(marked.count == banned.count + (banned.contains(160) ? 0 : 1))
        // An id kept twice (a log read twice): both copies are deleted.
        let twice = ChatStore(internsSenders: false)
        for _ in 0..<2 { _ = try twice.ingest(Array("@id=dup :u!u@u PRIVMSG #c :x".utf8).span, receivedAt: .epoch) }
        _ = try twice.ingest(Array("@target-msg-id=dup :tmi.twitch.tv CLEARMSG #c :x".utf8).span, receivedAt: .epoch)
        #expect(try tombstone(twice, 0, 0) == .deleted && tombstone(twice, 0, 1) == .deleted)
    }

    @Test("interned senders stay bounded by the live entries")
    func boundedInterner() throws {
        let store = ChatStore(capacity: 100)
        for n in 0..<5_000 {
            let bytes = Array(
                "@id=id\(n);user-id=\(n % 1_000);display-name=U\(n % 1_000) :u\(n % 1_000)!u@u PRIVMSG #c :hi".utf8)
            _ = try store.ingest(bytes.span, receivedAt: .epoch)
        }
        #expect(store.interner.count == 2 * 100)  // the login and display name of each of the last 100 senders
        #expect(store.log(named: "c")!.ring.count == 100)
    }

    @Test("a store with a channel limit of 3 refuses the 4th channel and keeps the other 3")
    func storeLimit() throws {
        let store = ChatStore(capacity: 4, channelLimit: 3)
        for c in 0..<3 {
            let bytes = Array(":u!u@u PRIVMSG #c\(c) :hi".utf8)
            #expect(try store.ingest(bytes.span, receivedAt: .epoch).channel == c)
        }
        let bytes = Array(":u!u@u PRIVMSG #c3 :hi".utf8)
        #expect(throws: StoreError.tooManyChannels(3)) { try store.ingest(bytes.span, receivedAt: .epoch) }
        #expect(store.channelCount == 3)
        #expect(ChatStore().channelLimit == ChatStore.maximumChannels)
        #expect("\(StoreError.tooManyChannels(3))" == "more channels than the limit of 3")
    }

    @Test("10,000 channels: every line is kept, every log is found by index and by name")
    func tenThousandChannels() throws {
        let store = ChatStore()
        let channels = 10_000
        for round in 0..<2 {
            for c in 0..<channels {
                let bytes = Array("@id=m\(round)-\(c) :u!u@u PRIVMSG #ch\(c) :message \(round)".utf8)
                let p = try store.ingest(bytes.span, receivedAt: .epoch)
                #expect(p.channel == c && p.seq == UInt64(round))
            }
        }
        #expect(store.channelCount == channels)
        for c in 0..<channels {
            let log = try #require(store.log(at: c))
            #expect(log.name == "ch\(c)" && log.ring.liveRange == 0..<2)
        }
        #expect(store.log(named: "ch9999")?.index == 9_999)
        #expect(store.log(at: channels) == nil)
    }

    @Test("memory follows the chat: a quiet channel reserves at most 16 KiB; a busy one grows to its capacity")
    func memoryFollowsChat() throws {
        let store = ChatStore()
        let join = Array(":someone!someone@someone.tmi.twitch.tv JOIN #quiet".utf8)
        let roomstate = Array("@emote-only=0;room-id=1;slow=0 :tmi.twitch.tv ROOMSTATE #quiet".utf8)
        _ = try store.ingest(join.span, receivedAt: .epoch)
        _ = try store.ingest(roomstate.span, receivedAt: .epoch)
        let quiet = try #require(store.log(named: "quiet"))
        #expect(quiet.reservedBytes <= 16 * 1024)
        for n in 0..<3_000 {
            _ = try store.ingest(line(UInt64(n)).span, receivedAt: Timestamp(milliseconds: Int64(n)))
        }
        let busy = try #require(store.log(named: "c"))
        #expect(busy.ring.slotCapacity == 2_500 && busy.ring.isFull)
        #expect(busy.reservedBytes > 2_500 * EntryRing.metadataBytesPerEntry)
        #expect(quiet.reservedBytes <= 16 * 1024)  // unchanged by the other channel
        let reader = try #require(store.readers.makeReader())
        var seen: [UInt64] = []
        busy.ring.withEntries(in: busy.ring.liveRange, reader: reader) { info, bytes in
            if string(bytes, info.parsed.lastParam(in: bytes)!) == "message \(info.seq)" { seen.append(info.seq) }
        }
        #expect(seen == Array(500..<3_000))
    }

    @Test("the memory report adds up: lines held exactly, slot tables grown by a quarter (not doubled)")
    func memoryReport() throws {
        func chat(_ n: Int) -> [UInt8] {
            Array("@id=m\(n);user-id=\(n % 7) :u!u@u PRIVMSG #ch\(n % 3) :message number \(n)".utf8)
        }
        let store = ChatStore()
        var held = 0
        for n in 0..<390 {
            held += chat(n).count
            _ = try store.ingest(chat(n).span, receivedAt: .epoch)
        }
        let m = store.memory
        #expect(m.channels == 3 && m.entries == 390 && m.heldBytes == held)
        #expect(m.byteCapacity >= m.heldBytes && m.byteCapacity <= m.heldBytes * 3 / 2 + 3 * 1_024)
        // 130 entries per channel: 4, 8, 12, 16, 20, 25, 31, 38, 47, 58, 72, 90, 112, 140 slots (a quarter,
        // at least 4; doubling would give 256), each with the sender's tokens (the store interns senders),
        // moderation's bucket heads: 32 of each chain (the power of two at or above 140 / 8), 4 bytes
        // each, and the table's descriptor.
        let perSlot = EntryRing.metadataBytesPerEntry + EntryRing.senderBytesPerEntry
        let header = EntryRing.slotTableHeaderBytes
        #expect(EntryRing.bucketHeadBytes(slots: 140) == 2 * 32 * 4 && header == 48)
        #expect(m.slotBytes == 3 * (header + 140 * perSlot + 2 * 32 * 4))
        #expect(m.reservedBytes == m.byteCapacity + m.slotBytes + m.otherBytes && m.otherBytes > 0)
        #expect(m.description.hasPrefix("3 channels, 390 entries, "))
        let small = ChatStore(capacity: 100)
        for n in 0..<700 { _ = try small.ingest(chat(n).span, receivedAt: .epoch) }
        let s = small.memory
        #expect(s.entries == 300 && s.slotBytes == 3 * (header + 100 * perSlot + 2 * 16 * 4))
        // A store that does not intern senders (replay, dump) keeps no tokens: 16 bytes less a slot.
        let lean = ChatStore(internsSenders: false)
        for n in 0..<390 { _ = try lean.ingest(chat(n).span, receivedAt: .epoch) }
        #expect(lean.memory.slotBytes == 3 * (header + 140 * EntryRing.metadataBytesPerEntry + 2 * 32 * 4))
        #expect(EntryRing.senderBytesPerEntry == 16)
        let reader = try #require(lean.readers.makeReader())
        let log = try #require(lean.log(named: "ch0"))
        var senders: [SenderTokens] = []
        log.ring.withEntries(in: log.ring.liveRange, reader: reader) { info, _ in senders.append(info.sender) }
        #expect(senders.count == 130 && senders.allSatisfy { $0 == SenderTokens() })
    }

    @Test("channel names longer than the inline 32 bytes, or equal up to them, each get their own log")
    func longChannelNames() throws {
        let store = ChatStore()
        let prefix = String(repeating: "n", count: 32)
        let names = [prefix, prefix + "a", prefix + "b", prefix + "aa", String(prefix.dropLast()), "x"]
        for round in 0..<2 {
            for (i, name) in names.enumerated() {
                let bytes = Array(":u!u@u PRIVMSG #\(name) :round \(round)".utf8)
                let p = try store.ingest(bytes.span, receivedAt: .epoch)
                #expect(p.channel == i && p.seq == UInt64(round), "\(name)")
            }
        }
        #expect(store.channelCount == names.count)
        for (i, name) in names.enumerated() { #expect(store.log(named: name)?.index == i) }
    }
}
