import ChatIndex
import IRCWire
import Testing

@testable import ChatStore

/// Moderation's lookups: a CLEARMSG marks exactly the live entries carrying its `target-msg-id`, a
/// ban or timeout exactly the live PRIVMSG/USERNOTICE entries of its `target-user-id`, at every wrap
/// and growth position of the ring, after eviction, with an id stored twice and with hashes shared
/// by different ids; and a lookup visits about as many entries as it finds, not the whole ring.
@Suite(.timeLimit(.minutes(20))) struct ModerationLookupTests {
    /// A 64-bit id hash for the ring-level tests: distinct values of `k` give hashes distinct in every
    /// 32-bit half, so that the ring, which may also report entries sharing a shorter fingerprint,
    /// reports exactly the entries whose hash is asked for.
    static func hash(_ k: UInt64) -> UInt64 { (k &+ 1) &* 0x9E37_79B9_7F4A_7C15 }

    /// The live entries `forEachLive` reports for `hash`, sorted (the order is not part of its contract).
    static func found(_ ring: EntryRing, _ hash: UInt64, user: Bool) -> [UInt64] {
        var seqs: [UInt64] = []
        ring.forEachLive(withIdHash: hash, user: user) { seqs.append($0) }
        return seqs.sorted()
    }

    @Test(
        "the ring reports exactly the live entries of a hash, at every wrap and growth position, across eviction",
        arguments: [1, 2, 3, 5, 8, 13])
    func ringLookupEveryPosition(capacity: Int) {
        // Every slot a first entry can start in, for a ring that starts with 1, 2, 3 or all its slots;
        // and first sequence numbers on both sides of 2^32 and at 0.
        let firsts = (0..<UInt64(2 * capacity)).map { 1_000 + $0 } + [UInt64(UInt32.max) - 3, 0]
        var failures: [String] = []
        for initialSlots in Set([1, 2, 3, capacity]) {
            for first in firsts {
                let ring = EntryRing(capacity: capacity, initialBytes: 64, initialSlots: initialSlots, firstSeq: first)
                var model: [(seq: UInt64, ids: IdHashes)] = []
                for k in 0..<UInt64(4 * capacity + 3) {
                    // Five message ids taken in turn (so each is stored again while its older copy may be
                    // live), every fourth entry without one; three users, every third entry without one.
                    let ids = IdHashes(
                        message: k % 4 == 3 ? 0 : Self.hash(k % 5), user: k % 3 == 2 ? 0 : Self.hash(100 + k % 3))
                    if ring.isFull {
                        ring.evictOldest()
                        model.removeFirst()
                    }
                    let bytes = line(first + k)
                    let seq = ring.append(bytes.span, meta: meta(bytes), ids: ids)
                    model.append((seq, ids))
                    for q: UInt64 in [0, 1, 2, 3, 4, 50] {
                        let expected = model.filter { $0.ids.message == Self.hash(q) }.map(\.seq)
                        let got = Self.found(ring, Self.hash(q), user: false)
                        if got != expected {
                            failures.append("first \(first) slots \(initialSlots) k \(k): id \(q) \(got)")
                        }
                    }
                    for q: UInt64 in [100, 101, 102, 150] {
                        let expected = model.filter { $0.ids.user == Self.hash(q) }.map(\.seq)
                        let got = Self.found(ring, Self.hash(q), user: true)
                        if got != expected {
                            failures.append(
                                "first \(first) slots \(initialSlots) k \(k): user \(q) \(got) != \(expected)")
                        }
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test(
        "growth moves every column of the live entries, wrapped anywhere, with the bucket count changing or not",
        arguments: [0, 1_000, 1_001, 1_002, 1_003, UInt64(UInt32.max) - 40])
    func growthKeepsEveryColumn(first: UInt64) throws {
        // A ring of 300 grows 4, 8, 12, 16, 20, 25, 31, 38… (its bucket count 1, 1, 1, 2, 2, 4, 4, 8…):
        // both kinds of growth. Evicting every third step moves the oldest entry's slot, so the live
        // entries sit in one run or wrap, at every size; every fifth entry gets a mark.
        let registry = ReaderRegistry()
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 300, initialBytes: 64, initialSlots: 4, firstSeq: first)
        var model: [UInt64: (ids: IdHashes, sender: SenderTokens, mark: Tombstone)] = [:]
        var growths = 0
        var failures: [String] = []
        for k in 0..<UInt64(400) {
            if k % 3 == 2 && ring.count > 1 { model[ring.evictOldest()] = nil }
            let ids = IdHashes(
                message: k % 4 == 3 ? 0 : Self.hash(k % 7), user: k % 3 == 2 ? 0 : Self.hash(100 + k % 5))
            var sender = SenderTokens()
            sender.login = Token(rawValue: UInt32(k + 1))
            sender.badges = Token(rawValue: UInt32(2 * k + 1))
            let slots = ring.slotCapacity
            let bytes = line(first + k)
            if ring.isFull { model[ring.evictOldest()] = nil }
            let seq = ring.append(bytes.span, meta: meta(bytes), ids: ids, sender: sender)
            model[seq] = (ids, sender, .none)
            let live = ring.liveRange
            let victim = live.lowerBound + (k &* 7) % UInt64(live.count)
            if k % 5 == 0, model[victim]?.mark == Tombstone.none {
                let mark: Tombstone = k % 2 == 0 ? .banned : .timedOut(seconds: UInt32(k))
                #expect(ring.setTombstone(victim, mark))
                model[victim]?.mark = mark
            }
            guard ring.slotCapacity != slots else { continue }
            growths += 1
            for s in ring.liveRange {
                let want = try #require(model[s])
                let mark = ring.withEntry(s, reader: reader) { info, _ in info.tombstone }
                guard text(ring, s, reader) == "message \(s)", case .found(want.mark) = mark,
                    ring.sender(s) == want.sender
                else {
                    failures.append("k \(k) slots \(ring.slotCapacity): entry \(s) \(mark)")
                    continue
                }
            }
            for q: UInt64 in 0..<8 {
                let expected = model.filter { $0.value.ids.message == Self.hash(q) }.keys.sorted()
                let got = Self.found(ring, Self.hash(q), user: false)
                if got != expected { failures.append("k \(k) slots \(ring.slotCapacity): id \(q) \(got)") }
            }
            for q: UInt64 in 100..<106 {
                let expected = model.filter { $0.value.ids.user == Self.hash(q) }.keys.sorted()
                let got = Self.found(ring, Self.hash(q), user: true)
                if got != expected { failures.append("k \(k) slots \(ring.slotCapacity): user \(q) \(got)") }
            }
        }
        #expect(growths >= 10)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test("two entries given the same hash (a collision) are both reported; the caller tells them apart")
    func ringSharedHash() {
        let ring = EntryRing(capacity: 4, initialBytes: 64, initialSlots: 1, firstSeq: 10)
        let shared = Self.hash(7)
        for k in 0..<UInt64(7) {
            let bytes = line(10 + k)
            if ring.isFull { ring.evictOldest() }
            ring.append(
                bytes.span, meta: meta(bytes), ids: IdHashes(message: k % 2 == 0 ? shared : Self.hash(k), user: shared))
        }
        // Live 13 ..< 17; the even k (seqs 10, 12, 14, 16) share the message hash, all share the user hash.
        #expect(Self.found(ring, shared, user: false) == [14, 16])
        #expect(Self.found(ring, shared, user: true) == [13, 14, 15, 16])
        #expect(Self.found(ring, Self.hash(3), user: false) == [13])
        #expect(Self.found(ring, Self.hash(1), user: false) == [])  // seq 11: evicted
    }

    /// Lines of one channel for the store-level model test, with what the model needs to know of each.
    struct ModelLine {
        var bytes: [UInt8]
        var id: String?
        /// The user id, for PRIVMSG and USERNOTICE with a non-empty `user-id` (what a ban finds).
        var user: String?
        var isChat: Bool
    }

    /// A small deterministic generator (SplitMix64).
    struct Rng {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    @Test(
        "a store's marks land on exactly the live entries a model of the ring marks, line after line",
        arguments: [1, 2, 3, 7, 100, 2_500], [false, true])
    func storeMatchesModel(capacity: Int, interns: Bool) throws {
        let store = ChatStore(capacity: capacity, internsSenders: interns)
        let reader = try #require(store.readers.makeReader())
        var rng = Rng(state: UInt64(capacity))
        var ids: [String] = []
        // The model: every entry ever appended, with its marks; the live ones are the last `capacity`.
        var entries: [(line: ModelLine, mark: Tombstone)] = []
        let users = ["1", "11", "2", "12345678901", "7", "8", "9", "15468", "36131"]
        var failures: [String] = []
        for n in 0..<1_500 {
            let user = users[rng.next(users.count)]
            var id = "m-\(n)"
            if !ids.isEmpty && rng.next(10) == 0 { id = ids[ids.count - 1 - rng.next(min(ids.count, 2 * capacity))] }
            // An id of the recent past (live or evicted), now and then one never stored.
            let target =
                ids.isEmpty || rng.next(8) == 0 ? "x-\(n)" : ids[ids.count - 1 - rng.next(min(ids.count, 2 * capacity))]
            let kind = rng.next(20)
            let clearsAll = rng.next(4) == 0
            let line: ModelLine
            switch kind {
            case 0:
                line = ModelLine(
                    bytes: Array("@login=u;target-msg-id=\(target) :tmi.twitch.tv CLEARMSG #c :text".utf8),
                    isChat: false)
            case 1:
                line = ModelLine(
                    bytes: Array("@target-user-id=\(user) :tmi.twitch.tv CLEARCHAT #c :u\(user)".utf8), isChat: false)
            case 2:
                let seconds = [1, 600, 86_400][rng.next(3)]
                line = ModelLine(
                    bytes: Array(
                        "@ban-duration=\(seconds);target-user-id=\(user) :tmi.twitch.tv CLEARCHAT #c :u\(user)".utf8),
                    isChat: false)
            case 3 where clearsAll:
                line = ModelLine(bytes: Array(":tmi.twitch.tv CLEARCHAT #c".utf8), isChat: false)
            case 4:
                line = ModelLine(
                    bytes: Array("@id=\(id);msg-id=sub;user-id=\(user) :tmi.twitch.tv USERNOTICE #c :hi".utf8), id: id,
                    user: user, isChat: true)
            case 5:
                // An id and a user id on a line that is not chat: CLEARMSG finds it, a ban does not.
                line = ModelLine(
                    bytes: Array("@id=\(id);msg-id=x;user-id=\(user) :tmi.twitch.tv NOTICE #c :notice".utf8), id: id,
                    isChat: false)
            case 6:
                line = ModelLine(
                    bytes: Array("@id=\(id);user-id= :u!u@u PRIVMSG #c :no user".utf8), id: id, isChat: true)
            case 7:
                line = ModelLine(
                    bytes: Array("@user-id=\(user) :u!u@u PRIVMSG #c :no id".utf8), user: user, isChat: true)
            default:
                line = ModelLine(
                    bytes: Array("@id=\(id);user-id=\(user) :u\(user)!u@u PRIVMSG #c :message \(n)".utf8), id: id,
                    user: user, isChat: true)
            }
            if line.id != nil { ids.append(id) }
            let bytes = line.bytes
            let placement = try store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: Int64(n)))
            #expect(placement.seq == UInt64(entries.count))
            entries.append((line, .none))
            // What the moderation line does to the live entries before it, in the model.
            let live = max(0, entries.count - capacity)..<entries.count
            let message = try TwitchMessage.parse(bytes.span)
            let text = String(decoding: bytes, as: UTF8.self)
            for i in live.dropLast() {
                let e = entries[i].line
                var mark = Tombstone.none
                if message.command == .clearmsg, e.id == target {
                    mark = .deleted
                } else if message.command == .clearchat, e.isChat {
                    if !text.contains("target-user-id") {
                        mark = .cleared
                    } else if e.user == user {
                        let seconds = text.split(separator: ";").first { $0.hasPrefix("@ban-duration=") }
                        mark = seconds.map { .timedOut(seconds: UInt32($0.dropFirst(14))!) } ?? .banned
                    }
                }
                entries[i].mark = entries[i].mark.merging(mark)
            }
            let log = try #require(store.log(named: "c"))
            #expect(log.ring.liveRange == UInt64(live.lowerBound)..<UInt64(live.upperBound))
            log.ring.withEntries(in: log.ring.liveRange, reader: reader) { info, _ in
                let expected = entries[Int(info.seq)].mark
                if info.tombstone != expected {
                    failures.append("line \(n), entry \(info.seq): \(info.tombstone) != \(expected)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // The run did moderate: marks of every kind landed (a ring of 1 holds only the moderation line).
        let marks = entries.map(\.mark)
        if capacity == 1 {
            #expect(marks.allSatisfy { $0 == .none })
        } else {
            #expect(marks.contains { $0.deleted } && marks.contains { $0.banned } && marks.contains { $0.cleared })
            #expect(marks.contains { $0.timedOutSeconds != nil })
        }
    }

    @Test("ids and user ids that share the index's 32-bit fingerprint are told apart by their bytes")
    func sharedFingerprint() throws {
        // "m-13737"/"m-67241" and "15468"/"36131" collide in the fingerprint the index keeps of each hash.
        func fingerprint(_ s: String) -> UInt32 {
            let bytes = Array(s.utf8)
            return IdLinks.fingerprint(hashBytes(bytes.span, 0..<bytes.count))
        }
        try #require(fingerprint("m-13737") == fingerprint("m-67241") && fingerprint("15468") == fingerprint("36131"))
        try #require(fingerprint("m-13737") != fingerprint("15468"))
        let store = ChatStore(capacity: 100, internsSenders: false)
        let chat = [
            "@id=m-13737;user-id=15468 :a!a@a PRIVMSG #c :one", "@id=m-67241;user-id=36131 :b!b@b PRIVMSG #c :two",
            "@id=m-67241;user-id=15468 :a!a@a PRIVMSG #c :three",
        ]
        for line in chat { _ = try store.ingest(Array(line.utf8).span, receivedAt: .epoch) }
        let moderation = [
            "@login=a;target-msg-id=m-13737 :tmi.twitch.tv CLEARMSG #c :one",
            "@target-user-id=36131 :tmi.twitch.tv CLEARCHAT #c :b",
        ]
        for line in moderation { _ = try store.ingest(Array(line.utf8).span, receivedAt: .epoch) }
        let reader = try #require(store.readers.makeReader())
        let log = try #require(store.log(named: "c"))
        var marks: [Tombstone] = []
        log.ring.withEntries(in: 0..<3, reader: reader) { info, _ in marks.append(info.tombstone) }
        #expect(marks == [.deleted, .banned, .none])
    }

    @Test("the same id stored twice: both copies are deleted while live, the newer alone once the older is evicted")
    func sameIdTwice() throws {
        let store = ChatStore(capacity: 3, internsSenders: false)
        func ingest(_ line: String) throws { _ = try store.ingest(Array(line.utf8).span, receivedAt: .epoch) }
        try ingest("@id=dup;user-id=1 :u!u@u PRIVMSG #c :first")
        try ingest("@id=dup;user-id=1 :u!u@u PRIVMSG #c :again")
        try ingest("@login=u;target-msg-id=dup :tmi.twitch.tv CLEARMSG #c :x")  // live 0 ..< 3
        let reader = try #require(store.readers.makeReader())
        let log = try #require(store.log(named: "c"))
        func marks() -> [UInt64: Tombstone] {
            var marks: [UInt64: Tombstone] = [:]
            log.ring.withEntries(in: 0..<6, reader: reader) { info, _ in marks[info.seq] = info.tombstone }
            return marks
        }
        #expect(marks() == [0: .deleted, 1: .deleted, 2: .none])
        try ingest("@id=other;user-id=1 :u!u@u PRIVMSG #c :third")  // evicts 0
        try ingest("@id=dup;user-id=1 :u!u@u PRIVMSG #c :a third copy")  // evicts 1; live 2 ..< 5
        try ingest("@login=u;target-msg-id=dup :tmi.twitch.tv CLEARMSG #c :x")  // live 3 ..< 6
        #expect(marks() == [3: .none, 4: .deleted, 5: .none])
    }

    @Test(
        "a lookup visits about as many entries as it finds, whatever the ring holds",
        arguments: [2_500, 40_000])
    func lookupCost(capacity: Int) {
        let ring = EntryRing(capacity: capacity, initialBytes: 64, firstSeq: 0)
        let users = UInt64(capacity / 10)  // ten live entries each
        let total = UInt64(capacity + capacity / 4)  // wrapped: the first quarter evicted
        for k in 0..<total {
            let bytes = line(k)
            if ring.isFull { ring.evictOldest() }
            ring.append(
                bytes.span, meta: meta(bytes),
                ids: IdHashes(message: Self.hash(k), user: Self.hash((1 << 40) + k % users)))
        }
        var worstExtra = 0
        var extra = 0
        var queries = 0
        for q in stride(from: total - UInt64(capacity), to: total, by: max(1, capacity / 500)) {
            var found = 0
            let visited = ring.forEachLive(withIdHash: Self.hash(q)) { _ in found += 1 }
            #expect(found == 1)
            worstExtra = max(worstExtra, visited - found)
            extra += visited - found
            queries += 1
        }
        for u in 0..<min(users, 200) {
            var found = 0
            let visited = ring.forEachLive(withIdHash: Self.hash((1 << 40) + u), user: true) { _ in found += 1 }
            #expect(found == 10)
            worstExtra = max(worstExtra, visited - found)
            extra += visited - found
            queries += 1
        }
        // An id never stored, and an evicted one: nothing found, next to nothing visited.
        for q in [total + 5, 3] {
            let visited = ring.forEachLive(withIdHash: Self.hash(q)) { _ in Issue.record("found \(q)") }
            worstExtra = max(worstExtra, visited)
        }
        // Entries of other ids that share a bucket: a few per lookup on average (5.1 here at 2,500, 4.9
        // at 40,000, with a bucket for every eight slots), never hundreds (a pass over the ring visits
        // all `capacity`). The worst here: 30 at 2,500, 50 at 40,000 (a user's bucket shared with
        // other users of 10 entries each).
        #expect(worstExtra <= 64, "worst lookup visited \(worstExtra) entries besides its own")
        #expect(extra <= 6 * queries, "\(extra) entries visited besides their own in \(queries) lookups")
    }
}
