import Testing

@testable import ChatIndex

@Suite struct HashIndexTests {
    @Test(
        "insert, replace, remove with backward shift keeps every other key reachable, up to a full table",
        arguments: [60, 96])
    func churn(most: Int) {
        var index = HashIndex(minimumCapacity: 64)
        #expect(index.capacity == 128)
        var model: [UInt64: UInt64] = [:]
        var rng: UInt64 = 12345
        for step in 0..<20_000 {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = (rng >> 33) % 120 + 1
            if step % 3 == 0 {
                index.remove(key)
                model[key] = nil
            } else if model.count < most || model[key] != nil {
                let stored = index.set(UInt64(step), for: key)
                #expect(stored)
                model[key] = UInt64(step)
            }
            if step % 97 == 0 {
                for k in 1...120 as ClosedRange<UInt64> { #expect(index.value(for: k) == model[k]) }
                #expect(index.count == model.count)
            }
        }
    }

    @Test("a table full to three quarters refuses instead of growing")
    func full() {
        var index = HashIndex(minimumCapacity: 4)
        var accepted = 0
        for k in 1...100 as ClosedRange<UInt64> where index.set(k, for: k) { accepted += 1 }
        #expect(index.capacity == 8 && accepted == 6)
    }

    @Test("insert doubles a full table and keeps every key")
    func insertGrows() {
        var index = HashIndex(minimumCapacity: 4)
        #expect(index.capacity == 8)
        for k in 1...1_000 as ClosedRange<UInt64> { index.insert(k &* 31, for: k) }
        #expect(index.count == 1_000 && index.capacity == 2_048)
        for k in 1...1_000 as ClosedRange<UInt64> { #expect(index.value(for: k) == k &* 31) }
        for k in stride(from: 1, through: 1_000, by: 2) as StrideThrough<UInt64> { index.remove(k) }
        #expect(index.count == 500 && index.value(for: 2) == 62 && index.value(for: 3) == nil)
    }
}
