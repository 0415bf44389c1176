import ChatMemory
import ChatPosix
import Synchronization
import Testing

/// Calls of ``counting`` (the suite is serialized: one test at a time counts).
private let maps = Atomic<Int>(0)
private let unmappedBytes = Atomic<Int>(0)
private let discards = Atomic<Int>(0)

/// `PageMapping.system`, counting its calls.
private let counting = PageMapping(
    map: { length in
        maps.add(1, ordering: .relaxed)
        return PageMapping.system.map(length)
    },
    unmap: { p, length in
        unmappedBytes.add(length, ordering: .relaxed)
        PageMapping.system.unmap(p, length)
    },
    discard: { p, length in
        discards.add(1, ordering: .relaxed)
        PageMapping.system.discard!(p, length)
    })

@Suite(.serialized, .timeLimit(.minutes(5))) struct PageRegionsTests {
    @Test("regions are carved in order from reservations; recycled ones come back first, their pages discarded")
    func carving() throws {
        let (maps0, unmapped0, discards0) = (
            maps.load(ordering: .relaxed), unmappedBytes.load(ordering: .relaxed), discards.load(ordering: .relaxed)
        )
        do {
            let regions = PageRegions(pages: counting, regionBytes: 8_192, regionsPerReservation: 3)
            var taken: [UnsafeMutableRawPointer] = []
            for _ in 0..<4 { taken.append(try #require(regions.take())) }
            #expect(maps.load(ordering: .relaxed) == maps0 + 2, "one mapping per three regions")
            #expect(taken[1] == taken[0] + 8_192 && taken[2] == taken[1] + 8_192)
            #expect(taken.allSatisfy { Int(bitPattern: $0) % 4_096 == 0 })
            for region in taken { region.storeBytes(of: 42, toByteOffset: 8_184, as: UInt64.self) }
            regions.recycle(taken[1])
            #expect(discards.load(ordering: .relaxed) == discards0 + 1)
            #expect(taken[1].load(fromByteOffset: 8_184, as: UInt64.self) == 0, "discarded: zeroed when touched")
            #expect(regions.take() == taken[1])
            #expect(regions.take() == taken[3] + 8_192)
            #expect(taken[3].load(fromByteOffset: 8_184, as: UInt64.self) == 42, "not discarded")
            #expect(unmappedBytes.load(ordering: .relaxed) == unmapped0, "nothing unmapped while it lives")
        }
        #expect(unmappedBytes.load(ordering: .relaxed) == unmapped0 + 2 * 3 * 8_192, "both reservations, whole")
    }

    @Test("no regions of 0 bytes, and nothing mapped for them")
    func none() {
        let maps0 = maps.load(ordering: .relaxed)
        let regions = PageRegions(pages: counting, regionBytes: 0)
        #expect(regions.take() == nil)
        #expect(maps.load(ordering: .relaxed) == maps0)
    }
}
