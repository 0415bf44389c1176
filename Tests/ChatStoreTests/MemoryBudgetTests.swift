import ChatMemory
import IRCWire
import Synchronization
import Testing

@testable import ChatStore

/// What the fake ``ResidentMemory`` of ``MemoryBudgetTests/restOfProcessCounts()`` reads (one test uses it).
private let fakeResident = Atomic<Int>(-1)

/// The memory budget: which channels and entries a pass releases, what it keeps, what it counts.
@Suite struct MemoryBudgetTests {
    /// A PRIVMSG of 200 bytes to `#channel` (`n` < 1,000).
    static func chat(_ channel: String, _ n: Int) -> [UInt8] {
        let head = "@id=\(channel)-\(n);user-id=7 :u!u@u PRIVMSG #\(channel) :"
        return Array((head + String(repeating: "x", count: 200 - head.utf8.count)).utf8)
    }

    static func store(limit: Int, floor: Int = 3) -> ChatStore {
        ChatStore(
            capacity: 100, windowSize: floor, internsSenders: false, channelLimit: 64,
            budget: MemoryBudget(limit: limit), budgetFloor: floor)
    }

    @discardableResult
    static func feed(_ store: ChatStore, _ channel: String, _ count: Int, from: Int = 0) throws -> [UInt64] {
        try (from..<from + count).map { n in try store.ingest(chat(channel, n).span, receivedAt: .epoch).seq }
    }

    /// What every ring reserves: the budget's sum must be exactly this.
    static func reserved(_ store: ChatStore) -> Int {
        (0..<store.channelCount).reduce(0) { $0 + store.log(at: $1)!.ring.reservedBytes }
    }

    static func live(_ store: ChatStore, _ channel: String) -> Range<UInt64> {
        store.log(named: channel)!.ring.liveRange
    }

    /// 20 lines of a, 21 of b, c and d, then the 21st of a (which grows a's storage, from 4,032 bytes
    /// to 5,056; growing by a quarter, the 20th line grows nothing): a pass can start only at that
    /// last line.
    static func fourChannels(limit: Int) throws -> ChatStore {
        let store = store(limit: limit)
        try feed(store, "a", 20)
        for name in ["b", "c", "d"] { try feed(store, name, 21) }
        try feed(store, "a", 1, from: 20)
        return store
    }

    @Test("a pass takes the least recently active channel first (b, not a: a spoke last), oldest entries first")
    func leastRecentFirst() throws {
        // Probe: what four such channels reserve without trimming.
        let probe = try Self.fourChannels(limit: Int.max)
        #expect(probe.budget!.passes == 0)
        #expect(probe.budgetOrder == [1, 2, 3, 0])  // b, c, d, a
        let full = probe.budget!.heldBytes
        #expect(full == Self.reserved(probe))
        // One byte less: the last line of a starts a pass, which must free a sixteenth of the limit.
        let store = try Self.fourChannels(limit: full - 1)
        let budget = store.budget!
        #expect(budget.passes == 1)
        #expect(Self.live(store, "a") == 0..<21)
        #expect(Self.live(store, "b") == 18..<21)  // the floor of 3: seqs 0…17 released
        #expect(Self.live(store, "c") == 0..<21)
        #expect(Self.live(store, "d") == 0..<21)
        #expect(budget.trimmedEntries == 18)
        #expect(budget.trimmedBytes == 18 * 200)
        #expect(budget.heldBytes == Self.reserved(store))
        #expect(budget.releasedBytes == full - budget.heldBytes)
        #expect(budget.heldBytes <= budget.lowWater)
        // b left the list; it comes back (last) at its next line.
        #expect(store.budgetOrder == [2, 3, 0])
        try Self.feed(store, "b", 1, from: 21)
        #expect(store.budgetOrder == [2, 3, 0, 1])
        // What is left of b (compacted into a smaller storage) reads back whole.
        let reader = try #require(store.readers.makeReader())
        var texts: [String] = []
        let kept = store.log(named: "b")!.ring.withEntries(in: 0..<22, reader: reader) { _, bytes in
            texts.append(String(decoding: Array(bytes.bytes.withUnsafeBytes { Array($0) }[4..<8]), as: UTF8.self))
        }
        #expect(kept == RangeRead(visited: 18..<22, missed: 18))
        #expect(texts == ["b-18", "b-19", "b-20", "b-21"])
    }

    @Test("a budget below the floors trims every channel to its floor, no further, and does not retry per line")
    func floorKept() throws {
        let store = Self.store(limit: 1_000, floor: 5)
        try Self.feed(store, "q", 1)  // under the floor: left alone
        for name in ["a", "b", "c"] { try Self.feed(store, name, 12) }
        let budget = store.budget!
        #expect(Self.live(store, "a") == 7..<12)
        #expect(Self.live(store, "b") == 7..<12)
        #expect(Self.live(store, "c") == 7..<12)
        #expect(Self.live(store, "q") == 0..<1)
        #expect(budget.trimmedEntries == budget.trimmedBytes / 200)
        #expect(budget.heldBytes == Self.reserved(store))
        let passes = budget.passes
        // Lines that do not grow any ring start no pass: the next waits for a sixteenth more.
        try Self.feed(store, "q", 1, from: 1)
        #expect(budget.passes == passes)
        #expect(Self.live(store, "q") == 0..<2)
    }

    @Test("entries at or above a reader's pin, or from what the reader still needs, are not released")
    func pinsAndKeeps() throws {
        let probe = try Self.fourChannels(limit: Int.max)
        let store = Self.store(limit: probe.budget!.heldBytes - 1)
        try Self.feed(store, "a", 20)
        for name in ["b", "c", "d"] { try Self.feed(store, name, 21) }
        let reader = try #require(store.readers.makeReader())
        // A reader pinned b at 5 (as `withEntries` does while it walks from 5), and the look-ahead
        // still holds c's lines from 9 on.
        store.log(named: "b")!.ring.pins.pin(reader.slot, 5)
        store.budgetKeeps = { $0 == 2 ? 9 : .max }
        let pinnedReserve = store.log(named: "b")!.ring.reservedBytes
        try Self.feed(store, "a", 1, from: 20)
        store.log(named: "b")!.ring.pins.unpin(reader.slot)
        let budget = store.budget!
        #expect(budget.passes == 1)
        // b: only below the pin, and not compacted (that would wait for the reader).
        #expect(Self.live(store, "b") == 5..<21)
        #expect(store.log(named: "b")!.ring.reservedBytes == pinnedReserve)
        // c: only below what the look-ahead needs; compacted, which was enough: d and a untouched.
        #expect(Self.live(store, "c") == 9..<21)
        #expect(Self.live(store, "d") == 0..<21)
        #expect(Self.live(store, "a") == 0..<21)
        #expect(budget.trimmedEntries == 5 + 9)
        #expect(budget.trimmedBytes == (5 + 9) * 200)
        #expect(budget.heldBytes == Self.reserved(store))
    }

    @Test(
        "the rest of the process counts against the limit: with half the limit outside the rings, a pass trims what fitted without it"
    )
    func restOfProcessCounts() throws {
        let probe = try Self.fourChannels(limit: Int.max)
        let full = probe.budget!.heldBytes
        let limit = full + 1_000
        // Rings alone: under the limit, no pass.
        let alone = try Self.fourChannels(limit: limit)
        #expect(alone.budget!.passes == 0)
        // The same with a process whose resident memory is the rings plus `outside`.
        let budget = MemoryBudget(
            limit: limit, resident: ResidentMemory(read: { fakeResident.load(ordering: .relaxed) }))
        let store = ChatStore(
            capacity: 100, windowSize: 3, internsSenders: false, channelLimit: 64, budget: budget, budgetFloor: 3)
        try Self.feed(store, "a", 20)
        for name in ["b", "c", "d"] { try Self.feed(store, name, 21) }
        #expect(budget.passes == 0 && budget.outsideBytes == 0)  // nothing read yet: -1 keeps 0
        let outside = full / 2
        fakeResident.store(budget.heldBytes + outside, ordering: .relaxed)
        budget.sample()
        #expect(budget.outsideBytes == outside)
        #expect(budget.countedBytes == budget.heldBytes + outside)
        // a's 21st line grows its storage: over the limit now, counting the rest of the process.
        try Self.feed(store, "a", 1, from: 20)
        #expect(budget.passes == 1)
        #expect(budget.trimmedEntries > 0)
        // Least recently active first: b, then c, to their floor of 3.
        #expect(Self.live(store, "b") == 18..<21)
        #expect(Self.live(store, "c") == 18..<21)
        #expect(Self.live(store, "a") == 0..<21)
        // The pass read resident memory again (the rings had grown: less is outside them) and
        // trimmed until rings plus the rest were under the low-water mark.
        #expect(budget.outsideBytes < outside && budget.outsideBytes > outside - 8_192)
        #expect(budget.countedBytes <= budget.lowWater)
        #expect(budget.heldBytes == Self.reserved(store))
        #expect(budget.summary.contains("rings reserve "))
        #expect(budget.summary.contains(", the rest of the process "))
        #expect(!alone.budget!.summary.contains("the rest of the process"))
        // A reading that fails keeps the last figure.
        let before = budget.outsideBytes
        fakeResident.store(-1, ordering: .relaxed)
        budget.sample()
        #expect(budget.outsideBytes == before)
        #expect(budget.exceededBytes == 0 && !budget.summary.contains("could not be kept"))
        // The rest of the process alone over the limit: no pass can keep it, and the summary says how
        // far over the count went (issue #35 R9: a budget far too small was kept silently).
        fakeResident.store(budget.heldBytes + 2 * limit, ordering: .relaxed)
        budget.sample()
        try Self.feed(store, "d", 30, from: 21)
        #expect(budget.passes >= 2)
        #expect(budget.exceededBytes > limit)
        #expect(budget.summary.contains("; the budget could not be kept: "), "\(budget.summary)")
    }

    @Test("without a budget nothing is tracked or trimmed")
    func noBudget() throws {
        let store = ChatStore(capacity: 100, internsSenders: false)
        try Self.feed(store, "a", 120)
        #expect(store.budget == nil)
        #expect(store.budgetOrder == [])
        #expect(Self.live(store, "a") == 20..<120)
    }
}
