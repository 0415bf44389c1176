import ChatPosix
import Testing
import TwitchSession

@Suite struct WallOffsetTests {
    @Test(
        "the wall-minus-monotonic offset is one value for one true offset, wherever the readings fall in their milliseconds"
    )
    func sameOffsetWhereverTheReadingsFall() {
        // True offsets with a fraction of a millisecond near 0, in the middle and near 1, both signs.
        let offsets: [Int64] = [
            1_795_000_000_000_400_000, 1_795_000_000_000_000_001, 1_795_000_000_000_999_999, -3_250_000, -3_000_000, 7,
        ]
        for offsetNs in offsets {
            var values = Set<Int64>()
            var ms = Set<Int64>()
            for monotonicNs in stride(from: Int64(86_400_000_000_000), to: 86_400_010_000_000, by: 37_013) {
                values.insert(Moment.offsetMs(wallNs: monotonicNs + offsetNs, monotonicNs: monotonicNs))
                // The old way: both readings cut to the millisecond first.
                ms.insert((monotonicNs + offsetNs) / 1_000_000 - monotonicNs / 1_000_000)
            }
            let floor = offsetNs >= 0 ? offsetNs / 1_000_000 : -((-offsetNs + 999_999) / 1_000_000)
            #expect(values == [floor], "offset \(offsetNs) ns")
            // What made serve's tmi-sent-ts go back a millisecond: two values for one offset whose
            // fraction of a millisecond is well inside it (the readings fall on both sides often).
            let fraction = ((offsetNs % 1_000_000) + 1_000_000) % 1_000_000
            if fraction > 100_000 && fraction < 900_000 { #expect(ms.count == 2, "offset \(offsetNs) ns") }
        }
    }

    @Test("read from the clocks, the offset stays put from one reading to the next")
    func readingsAgree() {
        let first = Moment.wallMinusMonotonicMs()
        var seen = Set<Int64>()
        for _ in 0..<10_000 { seen.insert(Moment.wallMinusMonotonicMs()) }
        // A clock step or slew can move it while the loop runs, by a millisecond at most in this time.
        #expect(seen.allSatisfy { abs($0 - first) <= 1 } && seen.count <= 2, "\(seen.sorted())")
    }
}
