import ChatMemory
import ChatPosix
import IRCWire
import Testing

@testable import ChatStore

@Suite(.timeLimit(.minutes(20))) struct EntryRingTests {
    let registry = ReaderRegistry()

    @Test(
        "every wrap position of small rings: live range, contents, eviction answers gone",
        arguments: [1, 2, 3, 5])
    func wrapPositions(capacity: Int) throws {
        let reader = try #require(registry.makeReader())
        for start in 0..<capacity {
            let first = UInt64(1_000 + start)  // slot of the first entry: `start`
            let ring = EntryRing(capacity: capacity, firstSeq: first)
            #expect(ring.liveRange == first..<first)
            for k in 0..<(3 * capacity + 1) {
                let seq = append(ring, line(first + UInt64(k)))
                #expect(seq == first + UInt64(k))
                let live = ring.liveRange
                #expect(live.upperBound == seq + 1)
                #expect(live.count == min(k + 1, capacity))
                for s in live { #expect(text(ring, s, reader) == "message \(s)") }
                if live.lowerBound > first {
                    #expect(text(ring, live.lowerBound - 1, reader) == nil)
                    let gone = ring.withEntry(live.lowerBound - 1, reader: reader) { _, _ in 0 }
                    guard case .gone = gone else {
                        Issue.record("expected gone")
                        return
                    }
                }
                let future = ring.withEntry(seq + 1, reader: reader) { _, _ in 0 }
                guard case .notYet = future else {
                    Issue.record("expected notYet")
                    return
                }
            }
        }
    }

    @Test("the default ring around 2,499 / 2,500 / 2,501 appends, and a window across the physical end")
    func defaultCapacity() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing()
        #expect(ring.capacity == 2_500)
        for n in 0..<2_499 { append(ring, line(UInt64(n))) }
        #expect(ring.liveRange == 0..<2_499 && !ring.isFull)
        append(ring, line(2_499))
        #expect(ring.liveRange == 0..<2_500 && ring.isFull)
        append(ring, line(2_500))
        #expect(ring.liveRange == 1..<2_501)
        #expect(text(ring, 0, reader) == nil)
        #expect(text(ring, 1, reader) == "message 1")
        #expect(text(ring, 2_500, reader) == "message 2500")
        // Slots 2,450 … 2,499 then 0 … 99: a 150-entry window crossing the end of the slot array.
        for n in 2_501..<2_600 { append(ring, line(UInt64(n))) }
        var seen: [UInt64] = []
        let read = ring.withEntries(in: 2_450..<2_600, reader: reader) { info, bytes in
            seen.append(info.seq)
            let last = info.parsed.lastParam(in: bytes)!
            #expect(bytes[last.range.lowerBound + 8] != 0)  // bytes are there
        }
        #expect(seen == Array(2_450..<2_600))
        #expect(read.missed == 0 && read.visited == 2_450..<2_600)
    }

    @Test("a reader that fell behind learns exactly how many entries it missed")
    func missed() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 10)
        for n in 0..<25 { append(ring, line(UInt64(n))) }
        var seen: [UInt64] = []
        let read = ring.withEntries(in: 5..<25, reader: reader) { info, _ in seen.append(info.seq) }
        #expect(read.missed == 10)
        #expect(seen == Array(15..<25))
        let none = ring.withEntries(in: 0..<3, reader: reader) { _, _ in Issue.record("nothing is live there") }
        #expect(none.missed == 3 && none.visited.isEmpty)
    }

    @Test("long lines grow the byte storage without losing or corrupting entries")
    func growth() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 50, initialBytes: 1)
        let before = ring.byteCapacity
        for n in 0..<200 { append(ring, line(UInt64(n), padding: n % 13 == 0 ? 12_000 : n % 300)) }
        #expect(ring.byteCapacity > before)
        for s in ring.liveRange { #expect(text(ring, s, reader)?.hasPrefix("message \(s)") == true) }
    }

    @Test("mapped byte storage grows in place while the ring fills; full or emptied, every entry stays readable")
    func mappedGrowth() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 300, initialBytes: 64, firstSeq: 5, pages: .system, mappedBytes: 1_024)
        var address: UInt? = nil
        var inPlace = 0
        for k in 0..<300 {
            let capacityBefore = ring.byteCapacity
            append(ring, line(5 + UInt64(k), padding: k * 7 % 90))
            if ring.byteStorageIsMapped {
                if let address {
                    #expect(ring.byteStorageAddress == address, "moved while filling, at entry \(k)")
                    if ring.byteCapacity > capacityBefore { inPlace += 1 }
                } else {
                    address = ring.byteStorageAddress
                }
            }
            for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
        }
        #expect(address != nil && inPlace > 5, "mapped at 1,024 bytes, then grown in place \(inPlace) times")
        // Full: ever longer lines outgrow the storage, in place while the live bytes sit in one
        // lap, moved when they wrap; every entry stays readable.
        for k in 300..<1_500 {
            append(ring, line(5 + UInt64(k), padding: 100 + (k - 300) * 2))
            if k % 50 == 0 { for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") } }
        }
        #expect(ring.byteStorageIsMapped)
        for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
        // Emptied, then a line longer than the storage: an empty live range grows in place too.
        let small = EntryRing(capacity: 300, initialBytes: 64, firstSeq: 0, pages: .system, mappedBytes: 1_024)
        for k in 0..<20 { append(small, line(UInt64(k), padding: 100)) }
        #expect(small.byteStorageIsMapped)
        while small.count > 0 { small.evictOldest() }
        let emptied = small.byteStorageAddress
        let size = small.byteCapacity
        append(small, line(20, padding: size + 1_000))
        #expect(small.byteStorageAddress == emptied && small.byteCapacity > size)
        for k in 21..<100 { append(small, line(UInt64(k), padding: k % 90)) }
        for s in small.liveRange { #expect(unpadded(text(small, s, reader)) == "message \(s)") }
    }

    @Test(
        "a store's ring moves its bytes into a region at 4 KiB and grows there in place, past it into a mapping; the region goes to the next ring"
    )
    func regionGrowth() throws {
        let reader = try #require(registry.makeReader())
        let regions = PageRegions(pages: .system, regionBytes: 16_384)
        let ring = EntryRing(capacity: 300, initialBytes: 512, firstSeq: 3, regions: regions)
        var region: UInt? = nil
        var inPlace = 0
        for k in 0..<200 {
            let old = ring.storageAddress
            let oldCapacity = ring.byteCapacity
            append(ring, line(3 + UInt64(k), padding: 300))
            let inRegion = ring.storageAddress.pointee.isInRegion
            #expect(inRegion == (ring.byteCapacity >= EntryRing.regionEntryBytes && ring.byteCapacity < 16_384))
            if inRegion, let region {
                #expect(ring.byteStorageAddress == region, "moved inside its region, at entry \(k)")
                if ring.byteCapacity > oldCapacity {
                    inPlace += 1
                    // The generation a reader may still hold keeps describing what it described.
                    #expect(ring.storageAddress != old && old.pointee.capacity == oldCapacity)
                }
            } else if inRegion {
                region = ring.byteStorageAddress
            }
            for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
        }
        #expect(region != nil && inPlace >= 3, "in a region from 4 KiB, then grown in place \(inPlace) times")
        #expect(ring.byteStorageIsMapped && ring.byteStorageAddress != region, "past the region: a mapping of its own")
        // The next ring to reach 4 KiB gets the region the first one left.
        let next = EntryRing(capacity: 300, initialBytes: 512, firstSeq: 0, regions: regions)
        for k in 0..<15 { append(next, line(UInt64(k), padding: 300)) }
        #expect(next.byteStorageAddress == region)
        for s in next.liveRange { #expect(unpadded(text(next, s, reader)) == "message \(s)") }
    }

    @Test("a ring whose bytes are about to grow in their region names the region's head among its append targets")
    func regionHeadBeforeGrowth() throws {
        let regions = PageRegions(pages: .system, regionBytes: 65_536)
        let ring = EntryRing(capacity: 300, initialBytes: 512, firstSeq: 0, regions: regions)
        var named = 0
        var notNamed = 0
        for k in 0..<120 {
            append(ring, line(UInt64(k), padding: 300))
            var lines = CacheLineList()
            ring.appendTargets(into: &lines)
            let storage = ring.storage
            var addresses: [UInt] = []
            lines.withAddresses { span in for i in span.indices { addresses.append(span[i]) } }
            let head = UInt(bitPattern: storage.region)
            let room = storage.capacity - storage.physical(ring.writePosition)
            let expected = storage.isInRegion && room < EntryRing.growthHintBytes
            #expect(addresses.contains(head) == expected, "entry \(k): \(room) bytes left")
            #expect(addresses.count == (expected ? 7 : 6))
            if storage.isInRegion { if expected { named += 1 } else { notNamed += 1 } }
        }
        // Lines of about 330 bytes: some appends leave less than 1 KiB before a growth, most do not.
        #expect(named >= 3 && notNamed > named, "named \(named), not named \(notNamed)")
    }

    @Test("without a page mapping, or when the system refuses one, byte storage is allocated and still grows")
    func unmappedGrowth() throws {
        let reader = try #require(registry.makeReader())
        let refusing = PageMapping(map: { _ in nil }, unmap: { _, _ in })
        for pages in [nil, refusing] as [PageMapping?] {
            let ring = EntryRing(capacity: 200, initialBytes: 64, firstSeq: 0, pages: pages, mappedBytes: 1_024)
            for k in 0..<500 { append(ring, line(UInt64(k), padding: k % 120)) }
            #expect(!ring.byteStorageIsMapped && ring.byteCapacity > 1_024)
            for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
        }
    }

    @Test(
        "a slot table column of 64 KiB or more is mapped from the ring's pages (heap without them), and moderation still finds every entry"
    )
    func mappedSlotTable() throws {
        let reader = try #require(registry.makeReader())
        let refusing = PageMapping(map: { _ in nil }, unmap: { _, _ in })
        func hash(_ k: UInt64) -> UInt64 { (k &+ 1) &* 0x9E37_79B9_7F4A_7C15 }
        for (pages, mapped) in [(PageMapping.system, true), (refusing, false)] {
            let ring = EntryRing(capacity: 3_000, initialBytes: 64, firstSeq: 0, pages: pages)
            for k in 0..<4_000 as Range<UInt64> {
                let bytes = line(k)
                if ring.isFull { ring.evictOldest() }
                ring.append(
                    bytes.span, meta: meta(bytes), ids: IdHashes(message: hash(k), user: hash(1 << 40 + k % 100)))
            }
            // 3,000 slots: the metadata (48 + 120,000 bytes) is mapped; the links (48,000 bytes and
            // 4,096 of bucket heads) and the tombstones (12,000) are not.
            #expect(ring.slotCapacity == 3_000 && ring.liveRange == 1_000..<4_000)
            #expect(ring.slotTableMappedColumns == (mapped ? 8 : 0))
            var missed = 0
            for k in ring.liveRange {
                var found: [UInt64] = []
                _ = ring.forEachLive(withIdHash: hash(k)) { found.append($0) }
                if found != [k] || text(ring, k, reader) != "message \(k)" { missed += 1 }
            }
            #expect(missed == 0)
            var evicted = 0
            _ = ring.forEachLive(withIdHash: hash(5)) { _ in evicted += 1 }
            var user: [UInt64] = []
            _ = ring.forEachLive(withIdHash: hash(1 << 40 + 7), user: true) { user.append($0) }
            #expect(evicted == 0 && user == Array(stride(from: 3_907, through: 1_007, by: -100)))
        }
    }

    @Test("steady state: byte storage settles near 1.1x the live bytes")
    func memoryBound() {
        let ring = EntryRing(capacity: 2_500)
        var live: [Int] = []
        for n in 0..<10_000 {
            let l = line(UInt64(n), padding: 250 + n % 150)
            append(ring, l)
            live.append(l.count)
        }
        let liveBytes = live.suffix(2_500).reduce(0, +)
        let ratio = Double(ring.byteCapacity) / Double(liveBytes)
        #expect(ratio <= 1.2, "byte storage is \(ratio)x the live bytes")
    }

    @Test("tombstones: every fact is kept, none hides another, a later timeout replaces one; readers see them")
    func tombstones() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 4)
        append(ring, line(0))
        #expect(ring.setTombstone(0, .deleted))
        #expect(!ring.setTombstone(0, .deleted))  // nothing new
        #expect(ring.setTombstone(0, .timedOut(seconds: 600)))
        #expect(ring.setTombstone(0, .timedOut(seconds: 60)))
        #expect(ring.setTombstone(0, .cleared))
        #expect(ring.setTombstone(0, .banned))
        let found = ring.withEntry(0, reader: reader) { info, _ in info.tombstone }
        guard case .found(let t) = found else {
            Issue.record("missing")
            return
        }
        #expect(t == Tombstone(deleted: true, timedOutSeconds: 60, banned: true, cleared: true))
        #expect(t.description == "[deleted] [timed out 60s] [banned] [cleared]")
        #expect(!ring.setTombstone(7, .deleted))  // not live
    }

    @Test("appending to a full ring without evicting is a programming error")
    func appendFull() async {
        await #expect(processExitsWith: .failure) {
            let ring = EntryRing(capacity: 1)
            append(ring, line(0))
            let bytes = line(1)
            ring.append(bytes.span, meta: meta(bytes))
        }
    }

    @Test(
        "rings that start with fewer slots grow to their capacity and wrap correctly at every position",
        arguments: [1, 2, 3, 5, 8, 13], [64, EntryRing.mappedBytesDefault])
    func growthAtEveryPosition(capacity: Int, mappedBytes: Int) throws {
        let reader = try #require(registry.makeReader())
        for initialSlots in 1...3 {
            for start in 0..<(2 * capacity) {
                let first = UInt64(1_000 + start)
                let ring = EntryRing(
                    capacity: capacity, initialBytes: 64, initialSlots: initialSlots, firstSeq: first,
                    pages: .system, mappedBytes: mappedBytes)
                #expect(ring.slotCapacity == min(capacity, initialSlots))
                for k in 0..<(3 * capacity + 1) {
                    let seq = append(ring, line(first + UInt64(k), padding: k % 3 == 0 ? 40 : 0))
                    #expect(seq == first + UInt64(k))
                    let live = ring.liveRange
                    #expect(live.count == min(k + 1, capacity))
                    #expect(ring.slotCapacity >= live.count && ring.slotCapacity <= capacity)
                    for s in live { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
                    var seen: [UInt64] = []
                    ring.withEntries(in: live, reader: reader) { info, _ in seen.append(info.seq) }
                    #expect(seen == Array(live))
                }
                #expect(ring.slotCapacity == capacity)
            }
        }
    }

    @Test("growing the slot table keeps tombstones and metadata of the live entries")
    func growthKeepsTombstones() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 100, initialBytes: 64, initialSlots: 4, firstSeq: 7)
        for k in 0..<4 { append(ring, line(7 + UInt64(k))) }
        #expect(ring.setTombstone(8, .banned))
        #expect(ring.setTombstone(10, .deleted))
        append(ring, line(11))  // full at 4 slots: grows by a quarter but at least 4 slots, to 8
        #expect(ring.slotCapacity == 8)
        var sizes = [4, 8]
        for k in 12..<60 {
            append(ring, line(UInt64(k)))
            if ring.slotCapacity != sizes.last { sizes.append(ring.slotCapacity) }
        }
        #expect(sizes == [4, 8, 12, 16, 20, 25, 31, 38, 47, 58])  // 53 entries
        func mark(_ seq: UInt64) -> Tombstone? {
            if case .found(let t) = ring.withEntry(seq, reader: reader, { info, _ in info.tombstone }) { return t }
            return nil
        }
        #expect(mark(8) == .banned && mark(10) == .deleted && mark(9) == Tombstone.none)
        #expect(text(ring, 7, reader) == "message 7" && text(ring, 59, reader) == "message 59")
    }

    @Test("allocated byte storage grows by at least 1 KiB (at most doubling), by a quarter from 4 KiB")
    func smallStorageGrowsByAKilobyte() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 2_500)
        var sizes = [ring.byteCapacity]
        for n in 0..<40 as Range<UInt64> {
            append(ring, line(n, padding: 60))  // about 115 bytes
            if ring.byteCapacity != sizes.last { sizes.append(ring.byteCapacity) }
        }
        #expect(sizes == [512, 1_024, 2_048, 3_072, 4_096, 5_120])
        #expect(ring.liveRange == 0..<40)
        for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
    }

    @Test("sender tokens survive slot-table growth and wrap; a ring that does not keep them reads back empty ones")
    func senders() throws {
        let reader = try #require(registry.makeReader())
        func tokens(_ n: UInt64) -> SenderTokens {
            var t = SenderTokens()
            t.login = Token(rawValue: UInt32(n + 1))
            t.badges = Token(rawValue: UInt32(n * 3 + 2))
            return t
        }
        for keeps in [true, false] {
            let ring = EntryRing(capacity: 50, initialBytes: 64, initialSlots: 2, keepsSenders: keeps, firstSeq: 0)
            for n in 0..<120 as Range<UInt64> { append(ring, line(n), sender: tokens(n)) }
            var seen: [UInt64: SenderTokens] = [:]
            ring.withEntries(in: ring.liveRange, reader: reader) { info, _ in seen[info.seq] = info.sender }
            #expect(seen.count == 50)
            for n in 70..<120 as Range<UInt64> { #expect(seen[n] == (keeps ? tokens(n) : SenderTokens()), "\(n)") }
            #expect(ring.sender(100) == (keeps ? tokens(100) : SenderTokens()) && ring.sender(3) == SenderTokens())
        }
    }

    @Test("a line longer than the whole byte storage grows it, also into an empty ring")
    func longLineIntoSmallStorage() throws {
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: 3, initialBytes: 64, initialSlots: 1, firstSeq: 0)
        append(ring, line(0, padding: 3_000))
        #expect(ring.byteCapacity >= 3_000)
        for k in 1..<10 { append(ring, line(UInt64(k), padding: k * 500)) }
        for s in ring.liveRange { #expect(unpadded(text(ring, s, reader)) == "message \(s)") }
    }

    /// A test line's text without its padding.
    func unpadded(_ text: String?) -> String? { text.map { String($0.prefix { $0 != "x" }) } }
}

/// A ring's capacity is only an upper bound: memory follows the lines appended, and no capacity a
/// caller can pass (up to `Int.max`) overflows the growth arithmetic.
@Suite(.timeLimit(.minutes(20))) struct EntryRingCapacityTests {
    @Test(
        "300 lines into rings of capacity 2^32, 2^60 and Int.max: all kept, storage follows the lines",
        arguments: [1 << 32, 1 << 60, Int.max])
    func hugeCapacity(capacity: Int) throws {
        let registry = ReaderRegistry()
        let reader = try #require(registry.makeReader())
        let ring = EntryRing(capacity: capacity)
        for n in 0..<300 { append(ring, line(UInt64(n), padding: 100)) }
        #expect(ring.liveRange == 0..<300)
        #expect(text(ring, 0, reader) == "message 0" + String(repeating: "x", count: 100))
        #expect(text(ring, 299, reader) == "message 299" + String(repeating: "x", count: 100))
        #expect(ring.reservedBytes < 1 << 20, "\(ring.reservedBytes) bytes reserved for 300 lines")
    }
}
