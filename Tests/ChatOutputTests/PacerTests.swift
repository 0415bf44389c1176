import ChatPosix
import Testing

@testable import ChatOutput

/// `Pacer` at the extremes a library caller may pass: a speed as small as a `Double` gets and line
/// times as far apart as an `Int64` holds wait (at most ``Pacer/longestWait``) instead of trapping.
@Suite struct PacerTests {
    @Test("the first line is due at once; a later one at its distance divided by the speed")
    func ordinary() throws {
        let pacer = Pacer(speed: 2)
        // The origin is read from the clock inside the first call, so between these two readings: the
        // due time is exactly 1 s after it, whatever the machine's load (no window on elapsed time).
        let before = ContinuousClock.now
        let first = pacer.due(at: 10_000)
        let after = ContinuousClock.now
        #expect(first == nil)
        let later = pacer.due(at: 12_000)
        let due = try #require(later)
        #expect(due >= before + .seconds(1) && due <= after + .seconds(1), "\(due - before)")
        let earlier = pacer.due(at: 9_000)
        #expect(earlier == nil, "a line before the first is due at once")
    }

    @Test(
        "extreme speeds and line times give a wait of at most longestWait, never a trap",
        arguments: [1e-300, .leastNonzeroMagnitude, 0.001, 1, 1e300, .greatestFiniteMagnitude])
    func extremes(speed: Double) throws {
        for (first, later) in [(Int64.min, Int64.max), (0, 253_402_300_799_999), (-62_167_219_200_000, 1), (0, 1)] {
            let pacer = Pacer(speed: speed)
            let before = ContinuousClock.now
            let atFirst = pacer.due(at: first)
            let after = ContinuousClock.now
            #expect(atFirst == nil)
            // A later line is never due at once at a positive speed: its wait is its distance over the
            // speed, capped at longestWait (the origin read between `before` and `after`).
            let next = pacer.due(at: later)
            let due = try #require(next, "\(speed) \(first) \(later)")
            let microseconds = min(
                (Double(later) - Double(first)) / speed * 1000, Double(Pacer.longestWait / .microseconds(1)))
            let wait = Duration.microseconds(Int64(microseconds))
            #expect(due >= before + wait && due <= after + wait, "\(speed) \(first) \(later)")
            #expect(due - before <= Pacer.longestWait + (after - before), "\(speed) \(first) \(later)")
            let again = pacer.due(at: first)
            #expect(again == nil)
        }
        let slow = Pacer(speed: speed)
        _ = slow.due(at: 0)
        if speed <= 1e-3 {
            let next = slow.due(at: 1)
            let due = try #require(next)
            #expect(due - ContinuousClock.now > .seconds(0.9), "\(speed)")
        }
    }

    @Test("a wait for a line 100 years away ends at once when the stop flag is raised")
    func stopsWhileWaitingForAFarLine() {
        let pacer = Pacer(speed: 1e-300)
        let stop = StopFlag()
        let first = pacer.wait(until: 0, stop: stop)
        #expect(first)
        stop.raise()
        let started = ContinuousClock.now
        let far = pacer.wait(until: Int64.max, stop: stop)
        #expect(!far)
        #expect(ContinuousClock.now - started < .seconds(1))
    }
}
