import ChatPosix
import Testing

@testable import ChatReplay

/// `Pacer` at the extremes a library caller may pass: a speed as small as a `Double` gets and line
/// times as far apart as an `Int64` holds wait (at most ``Pacer/longestWait``) instead of trapping.
@Suite struct PacerTests {
    @Test("the first line is due at once; a later one at its distance divided by the speed")
    func ordinary() throws {
        var pacer = Pacer(speed: 2)
        let before = ContinuousClock.now
        let first = pacer.due(at: 10_000)
        #expect(first == nil)
        let later = pacer.due(at: 12_000)
        let due = try #require(later)
        let wait = due - before
        #expect(wait >= .milliseconds(1_000) && wait < .milliseconds(1_100), "\(wait)")
        let earlier = pacer.due(at: 9_000)
        #expect(earlier == nil, "a line before the first is due at once")
    }

    @Test(
        "extreme speeds and line times give a wait of at most longestWait, never a trap",
        arguments: [1e-300, .leastNonzeroMagnitude, 0.001, 1, 1e300, .greatestFiniteMagnitude])
    func extremes(speed: Double) throws {
        for (first, later) in [(Int64.min, Int64.max), (0, 253_402_300_799_999), (-62_167_219_200_000, 1), (0, 1)] {
            var pacer = Pacer(speed: speed)
            let before = ContinuousClock.now
            let atFirst = pacer.due(at: first)
            #expect(atFirst == nil)
            if let due = pacer.due(at: later) {
                #expect(due - before <= Pacer.longestWait + .seconds(1), "\(speed) \(first) \(later)")
            }
            let again = pacer.due(at: first)
            #expect(again == nil)
        }
        var slow = Pacer(speed: speed)
        _ = slow.due(at: 0)
        if speed <= 1e-3 {
            let next = slow.due(at: 1)
            let due = try #require(next)
            #expect(due - ContinuousClock.now > .seconds(0.9), "\(speed)")
        }
    }

    @Test("a wait for a line 100 years away ends at once when the stop flag is raised")
    func stopsWhileWaitingForAFarLine() {
        var pacer = Pacer(speed: 1e-300)
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
