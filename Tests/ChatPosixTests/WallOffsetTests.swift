import Glibc
import Testing
import TwitchSession

@testable import ChatPosix

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

    /// Clock readings in the order they are asked for, each clock its own script (nanoseconds).
    final class ScriptedClocks {
        var monotonic: [Int64]
        var wall: [Int64]
        init(monotonic: [Int64], wall: [Int64]) {
            self.monotonic = monotonic
            self.wall = wall
        }
        func read(_ clock: clockid_t) -> Int64 {
            clock == CLOCK_MONOTONIC ? monotonic.removeFirst() : wall.removeFirst()
        }
    }

    @Test("a reading interrupted between the two clocks (9 ms here) is taken again, not used")
    func interruptedReadingIsRetaken() {
        // True offset 1,000,000,000.4 ms. The first attempt is interrupted for 9 ms after its first
        // monotonic reading (the thread lost the processor, as under load); the second is not.
        let offset: Int64 = 1_000_000_000_400_000
        let clocks = ScriptedClocks(
            monotonic: [5_000_000_000, 5_009_000_100, 5_009_000_200, 5_009_000_300],
            wall: [5_009_000_000 + offset, 5_009_000_250 + offset])
        #expect(Moment.wallMinusMonotonicMs(reading: clocks.read) == 1_000_000_000)
    }

    @Test("every reading interrupted: the tightest pair is used")
    func everyReadingInterrupted() {
        // Eight attempts, each wider than a tight reading; the one of 1 ms read the wall clock at its
        // midpoint, the others right after their first monotonic reading (off by half their width).
        let offset: Int64 = 2_000_000_000_600_000
        let widths: [Int64] = [9, 3, 7, 1, 5, 2, 4, 6].map { $0 * 1_000_000 }
        var monotonic: [Int64] = []
        var wall: [Int64] = []
        var t: Int64 = 10_000_000_000
        for width in widths {
            monotonic += [t, t + width]
            wall.append((width == 1_000_000 ? t + width / 2 : t) + offset)
            t += width + 1_000
        }
        #expect(Moment.readingAttempts == widths.count)
        let clocks = ScriptedClocks(monotonic: monotonic, wall: wall)
        #expect(Moment.wallMinusMonotonicMs(reading: clocks.read) == 2_000_000_000)
        #expect(clocks.monotonic.isEmpty && clocks.wall.isEmpty, "every attempt taken")
    }
}
