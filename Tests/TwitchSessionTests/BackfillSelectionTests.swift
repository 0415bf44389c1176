import ChatStore
import Testing
import TwitchSession

/// The instant `milliseconds` after the epoch: the tables below are in milliseconds.
private func ms(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds) }

@Suite struct BackfillSelectionTests {
    typealias C = BackfillSelection.Candidate

    @Test("after the anchor, the unseen lines are kept and the gap is closed")
    func anchored() {
        // Service: 1..6 at t = 100..600. We had 1, 2 (anchor 2); since the rejoin we saw 5.
        let candidates = (1...6).map { C(fingerprint: UInt64($0), time: ms(Int64($0) * 100)) }
        let choice = BackfillSelection.choose(
            candidates, had: [1, 2], seen: [5], gapFrom: ms(250), gapTo: ms(450), lastSeen: ms(200))
        #expect(choice.kept == [2, 3, 5])
        #expect(choice.coverage == .closed)
    }

    @Test("the anchor is the newest line of the answer chatcap had, also when its very last line is not in it")
    func lastAnchor() {
        let fps: [UInt64] = [7, 1, 7, 2, 3]
        let candidates = fps.enumerated().map { C(fingerprint: $0.element, time: ms(Int64($0.offset) * 10)) }
        // 99 (say our own JOIN echo) was the last line before the gap; the service never had it.
        let choice = BackfillSelection.choose(
            candidates, had: [7, 99], seen: [], gapFrom: ms(25), gapTo: ms(60), lastSeen: ms(20))
        #expect(choice.kept == [3, 4])
        #expect(choice.coverage == .closed)
        // Lines before the anchor that chatcap never had (before it joined) are not the gap's.
        let early = BackfillSelection.choose(
            [C(fingerprint: 50, time: ms(1)), C(fingerprint: 7, time: ms(2)), C(fingerprint: 51, time: ms(3))],
            had: [7],
            seen: [], gapFrom: ms(2), gapTo: ms(4), lastSeen: ms(2))
        #expect(early.kept == [2])
    }

    @Test("without the anchor, lines from the slack before the last line on are kept; the service reaching back closes")
    func unanchoredClosed() {
        let candidates = [
            C(fingerprint: 10, time: ms(1_000)), C(fingerprint: 11, time: ms(4_500)),
            C(fingerprint: 12, time: ms(5_200)),
            C(fingerprint: 13, time: ms(6_000)),
        ]
        let choice = BackfillSelection.choose(
            candidates, had: [99], seen: [13], gapFrom: ms(5_600), gapTo: ms(7_000), lastSeen: ms(5_500))
        #expect(choice.kept == [1, 2])  // 4,500 >= 5,500 - 1,000; 10 is older; 13 was seen
        #expect(choice.coverage == .closed)
    }

    @Test("a line without an id that comes again (the same JOIN) is no anchor while a line with an id is")
    func idAnchor() {
        // 30: a JOIN chatcap had before the gap, and the same JOIN again in the gap (at 3).
        let candidates = [
            C(fingerprint: 1, time: ms(10)), C(fingerprint: 30, time: ms(20), hasId: false),
            C(fingerprint: 2, time: ms(30)),
            C(fingerprint: 30, time: ms(40), hasId: false), C(fingerprint: 3, time: ms(50)),
        ]
        let choice = BackfillSelection.choose(
            candidates, had: [1, 30], seen: [], gapFrom: ms(25), gapTo: ms(60), lastSeen: ms(20))
        #expect(choice.kept == [2, 4])  // the second JOIN is taken for the one chatcap had: a known limit
        let idless = BackfillSelection.choose(
            [C(fingerprint: 30, time: ms(20), hasId: false), C(fingerprint: 4, time: ms(30))], had: [30], seen: [],
            gapFrom: ms(25), gapTo: ms(60), lastSeen: ms(20))
        #expect(idless.kept == [1])
        #expect(idless.coverage == .closed)
    }

    @Test("a service whose oldest line is younger than the gap's start makes it partial, with the interval left")
    func partial() {
        let candidates = [C(fingerprint: 20, time: ms(8_000)), C(fingerprint: 21, time: ms(9_000))]
        let choice = BackfillSelection.choose(
            candidates, had: [1], seen: [], gapFrom: ms(5_000), gapTo: ms(10_000), lastSeen: ms(4_900))
        #expect(choice.kept == [0, 1])
        #expect(choice.coverage == .partial(missingFrom: ms(5_000), missingTo: ms(8_000)))
        let empty = BackfillSelection.choose(
            [], had: [1], seen: [], gapFrom: ms(5_000), gapTo: ms(10_000), lastSeen: ms(4_900))
        #expect(empty.kept == [])
        #expect(empty.coverage == .partial(missingFrom: ms(5_000), missingTo: ms(10_000)))
    }

    @Test("kept lines come in time order, equal times in the service's order; a line twice in the answer is kept once")
    func order() {
        let candidates = [
            C(fingerprint: 1, time: ms(100)), C(fingerprint: 2, time: ms(300)), C(fingerprint: 3, time: ms(200)),
            C(fingerprint: 4, time: ms(200)), C(fingerprint: 2, time: ms(300)), C(fingerprint: 5, time: nil),
        ]
        let choice = BackfillSelection.choose(
            candidates, had: [1], seen: [], gapFrom: ms(150), gapTo: ms(400), lastSeen: ms(100))
        // The line without a time takes the latest time before it (300).
        #expect(choice.kept == [2, 3, 1, 5])
    }

    @Test("results read as the gap's record says them")
    func descriptions() {
        #expect(BackfillResult.recovered(3, .closed).description == "backfill closed it: 3 lines recovered")
        #expect(BackfillResult.recovered(1, .closed).state == "closed")
        let partial = BackfillResult.recovered(0, .partial(missingFrom: ms(0), missingTo: ms(1_000)))
        #expect(
            partial.description
                == "backfill partial: 0 lines recovered, still missing from 1970-01-01T00:00:00.000Z to 1970-01-01T00:00:01.000Z"
        )
        #expect(partial.state == "partial")
        #expect(BackfillResult.failed("timed out").description == "backfill failed: timed out")
        let gap = Gap(
            channel: "c", from: .epoch, to: Timestamp(milliseconds: 500), reason: .endOfStream,
            backfill: .recovered(2, .closed))
        #expect(
            gap.description
                == "gap in #c from 1970-01-01T00:00:00.000Z to 1970-01-01T00:00:00.500Z (500 ms): "
                + "the server closed the connection; backfill closed it: 2 lines recovered")
    }

    @Test(
        "a recovered line is placed within its gap: a service clock ahead or a line dated years away moves to the edge, counted"
    )
    func placement() {
        let hour: Int64 = 3_600_000
        // A gap from 22:59:58 to 23:00:05 (an hour boundary at 23:00), the last line had at 22:59:57,
        // the answer came at 23:00:06.
        let day: Int64 = 20_000 * 86_400_000
        let from = ms(day + 23 * hour - 2_000)
        let to = ms(day + 23 * hour + 5_000)
        let last = ms(day + 23 * hour - 3_000)
        let answered = ms(day + 23 * hour + 6_000)
        func place(_ t: Int64?) -> BackfillSelection.Placement {
            BackfillSelection.placement(
                of: t.map(ms), gapFrom: from, gapTo: to, lastSeen: last, answeredAt: answered)
        }
        // Inside the gap: kept as the service dated it.
        #expect(place(day + 23 * hour + 1_000) == .init(time: ms(day + 23 * hour + 1_000), misdated: false))
        // A service clock 3 minutes ahead near midnight/the hour: placed when the answer came, counted.
        #expect(place(day + 23 * hour + 180_000) == .init(time: answered, misdated: true))
        // Within the slack past the answer (two clocks): placed at the edge, not counted.
        #expect(place(answered.milliseconds + 900) == .init(time: answered, misdated: false))
        // Dated 2100 or 1990: placed at the gap's edges, counted.
        #expect(place(4_102_444_800_000) == .init(time: answered, misdated: true))
        #expect(place(631_152_000_000) == .init(time: last, misdated: true))
        // Any 64-bit number in the tag is placed, never overflows.
        #expect(place(.max) == .init(time: answered, misdated: true))
        #expect(place(.min) == .init(time: last, misdated: true))
        // Without a time: the gap's end, as before.
        #expect(place(nil) == .init(time: to, misdated: false))
        // Without a last line, the gap's start is the lower edge.
        #expect(
            BackfillSelection.placement(
                of: ms(0), gapFrom: from, gapTo: to, lastSeen: nil, answeredAt: answered)
                == .init(
                    time: from, misdated: true))
    }

    @Test(
        "the service's clock offset comes from the last line chatcap had, when the answer dates it; bogus dates correct nothing"
    )
    func clockOffset() {
        let answer = [
            C(fingerprint: 1, time: ms(10_000)), C(fingerprint: 2, time: ms(190_500)), C(fingerprint: 3, time: nil),
        ]
        // We received line 2 at 10,500: the service's clock is 180 s ahead.
        #expect(BackfillSelection.clockOffset(answer, lastHad: 2, lastSeen: ms(10_500)) == 180_000)
        #expect(BackfillSelection.clockOffset(answer, lastHad: 1, lastSeen: ms(10_250)) == -250)
        // Not in the answer, undated, or no last line: nothing to go by.
        #expect(BackfillSelection.clockOffset(answer, lastHad: 9, lastSeen: ms(10_500)) == 0)
        #expect(BackfillSelection.clockOffset(answer, lastHad: 3, lastSeen: ms(10_500)) == 0)
        #expect(BackfillSelection.clockOffset(answer, lastHad: nil, lastSeen: ms(10_500)) == 0)
        #expect(BackfillSelection.clockOffset(answer, lastHad: 2, lastSeen: nil) == 0)
        // A line dated in 2100 (or any 64-bit number) is not a clock.
        let bogus = [C(fingerprint: 4, time: ms(4_102_444_800_000)), C(fingerprint: 5, time: ms(.min))]
        #expect(BackfillSelection.clockOffset(bogus, lastHad: 4, lastSeen: ms(1_764_000_000_000)) == 0)
        #expect(BackfillSelection.clockOffset(bogus, lastHad: 5, lastSeen: ms(1_764_000_000_000)) == 0)
    }
}

@Suite struct RecentLinesTests {
    @Test("the ring keeps the last capacity fingerprints and the newest one's time")
    func ring() {
        var recent = RecentLines(capacity: 3)
        #expect(recent.newest == nil)
        for i in 1...5 { recent.append(UInt64(i), receivedAt: ms(Int64(i) * 10)) }
        #expect(Set(recent.fingerprints) == [3, 4, 5])
        #expect(recent.newest == 5)
        #expect(recent.newestReceivedAt == ms(50))
        #expect(recent.total == 5)
    }
}
