import ChatMemory
import ChatPosix
import IRCWire
import Testing

@testable import ChatStore

/// What a channel costs besides the bytes of its lines: the figures behind "10,000 channels cost
/// what 1,000 do at equal bytes held" (issue #26, item 5), from the store's own accounting.
@Suite struct StoreMemoryTests {
    /// A PRIVMSG of exactly `length` bytes to channel `ch\(channel)`.
    static func chat(_ n: Int, channel: Int, length: Int) -> [UInt8] {
        let head = "@id=m\(n);user-id=\(n % 7 + 1) :u!u@u PRIVMSG #ch\(channel) :"
        return Array((head + String(repeating: "x", count: length - head.utf8.count)).utf8)
    }

    @Test("a slot costs 60 bytes besides its line: metadata 40, moderation's links 16, a 4-byte tombstone")
    func slotBytes() {
        #expect(MemoryLayout<EntryMeta>.stride == 40)
        #expect(MemoryLayout<IdLinks>.stride == 16)
        #expect(EntryRing.metadataBytesPerEntry == 60)
    }

    @Test("1,000 channels of ten 300-byte lines: each reserves exactly 4,200 bytes for 3,000 held")
    func tenLineChannels() throws {
        // What most of 10,000 channels hold in channels_bench (the median channel says ten lines).
        let channels = 1_000
        let store = ChatStore(internsSenders: false)  // replay's and dump's store: no sender tokens
        for n in 0..<10 {
            for c in 0..<channels {
                let bytes = Self.chat(n * channels + c, channel: c, length: 300)
                _ = try store.ingest(bytes.span, receivedAt: .epoch)
            }
        }
        let m = store.memory
        #expect(m.channels == channels && m.entries == 10 * channels && m.heldBytes == 3_000 * channels)
        // Byte storage grows by a quarter, at least 1 KiB (and the line), in 64-byte steps, while the
        // ring fills: 512, 1,024, 2,048, 3,072 (by a quarter alone: 512, 832, 1,152, 1,472, 1,856,
        // 2,368, 3,008, moving the bytes 6 times instead of 3; by half it went to 4,352). At most a
        // quarter more than the bytes held, and the rounding.
        #expect(m.byteCapacity == 3_072 * channels)
        #expect(m.byteCapacity <= m.heldBytes * 5 / 4 + 64 * channels)
        // Slots by a quarter too, at least 4: 4, 8, 12 (by a quarter alone: 4, 5, 6, 7, 8, 10, growing
        // 5 times instead of 2; by half: 4, 6, 9, 13), 60 bytes each, then the bucket heads (2 of 4
        // bytes: one bucket a chain below 16 slots) and the table's descriptor (48).
        #expect(m.slotBytes == (48 + 12 * 60 + 2 * 4) * channels)
        // The rest: the storage's descriptor (32), the pins of 8 readers (64) and the two objects (256).
        #expect(m.otherBytes == (32 + 8 * 8 + 256) * channels)
        #expect(m.reservedBytes == 4_200 * channels)
        // Before: 4,352 + 13 × 64 + 32 + 64 + 256 = 5,536 bytes a channel (1.85 × what it holds).
        // A third more than held, and 200 bytes (64 before the 1 KiB least step, at 4,016 a channel;
        // 80 before the 4-slot least step, at 4,080).
        #expect(m.reservedBytes <= m.heldBytes * 4 / 3 + 200 * channels)
    }

    @Test("a channel with one line reserves 1,160 bytes: its first storage, four slots and its fixed costs")
    func oneLineChannel() throws {
        let store = ChatStore(internsSenders: false)
        for c in 0..<100 {
            _ = try store.ingest(Self.chat(c, channel: c, length: 200).span, receivedAt: .epoch)
        }
        let m = store.memory
        #expect(m.heldBytes == 200 * 100)
        #expect(m.byteCapacity == EntryRing.initialBytes * 100 && EntryRing.initialBytes == 512)
        #expect(m.slotBytes == (48 + 4 * 60 + 2 * 4) * 100)
        #expect(m.reservedBytes == 1_160 * 100)
    }

    @Test(
        "a channel whose lines moved into a region counts the pages it wrote, rounded up; one on the heap counts none"
    )
    func pagedBytes() throws {
        for pages in [PageMapping.system, nil] as [PageMapping?] {
            let store = ChatStore(internsSenders: false, pages: pages)
            // 8,160 bytes: past 4 KB the bytes move into a region, where they stay (below 128 KB). With the
            // region's two descriptors (64 bytes) before them they take 3 pages; the bytes alone 2.
            for n in 0..<27 { _ = try store.ingest(Self.chat(n, channel: 0, length: 300).span, receivedAt: .epoch) }
            _ = try store.ingest(Self.chat(27, channel: 0, length: 60).span, receivedAt: .epoch)
            _ = try store.ingest(Self.chat(30, channel: 1, length: 300).span, receivedAt: .epoch)  // stays on the heap
            let m = store.memory
            #expect(m.heldBytes == 8_160 + 300)
            if pages == nil {
                #expect(m.pagedChannels == 0 && m.pagedBytes == 0 && m.pagedHeldBytes == 0, "\(m)")
            } else {
                #expect(m.pagedChannels == 1 && m.pagedHeldBytes == 8_160, "\(m)")
                #expect(m.pagedBytes == 3 * 4_096, "\(m)")
                #expect(
                    m.description.hasSuffix("1 channels in pages of their own hold 0.0 MB in 0.0 MB of written pages"))
            }
        }
    }

    @Test("a timeout longer than a slot keeps (2^28 - 1 s, eight and a half years) is kept as that longest one")
    func longTimeouts() throws {
        let store = ChatStore()
        let durations: [Int64] = [1_209_600, (1 << 28) - 1, 1 << 28, 4_000_000_000, Int64(UInt32.max) + 5]
        for (i, seconds) in durations.enumerated() {
            let message = Array("@id=m\(i);user-id=\(100 + i) :u\(i)!u@u PRIVMSG #c :hello".utf8)
            _ = try store.ingest(message.span, receivedAt: .epoch)
            let clear = Array(
                "@ban-duration=\(seconds);room-id=1;target-user-id=\(100 + i) :tmi.twitch.tv CLEARCHAT #c :u\(i)".utf8)
            _ = try store.ingest(clear.span, receivedAt: .epoch)
        }
        let log = try #require(store.log(named: "c"))
        let reader = try #require(store.readers.makeReader())
        var marks: [UInt32?] = []
        log.ring.withEntries(in: log.ring.liveRange, reader: reader) { info, _ in
            if info.command == .privmsg { marks.append(info.tombstone.timedOutSeconds) }
        }
        let longest: UInt32 = 268_435_455
        #expect(marks == [1_209_600, longest, longest, longest, longest])
        #expect(Tombstone.maximumTimeoutSeconds == longest)
    }
}
