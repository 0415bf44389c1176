import ChatPosix
import ChatStore
import IRCWire
import Testing
import TwitchSession

@testable import ChatLive

/// ``BackfillCoordinator`` against a fetcher answered by hand and a clock moved by hand: what it
/// writes and in which order, the bound on held lines, late answers, errors, the wait's end, and
/// when an answer counts as caught up with the live chat.
@Suite(.timeLimit(.minutes(20))) struct BackfillCoordinatorTests {
    /// Requests kept; answers given when the test says.
    final class FakeFetcher: BackfillFetching {
        var requests: [BackfillFetcher.Request] = []
        var ready: [BackfillFetcher.Result] = []
        func request(_ request: BackfillFetcher.Request) { requests.append(request) }
        func results() -> [BackfillFetcher.Result] {
            defer { ready.removeAll() }
            return ready
        }
        func answer(_ lines: [String], status: Int = 200, to request: Int? = nil) {
            let body =
                "{\"messages\":[" + lines.map { "\"" + $0.replacing("\"", with: "\\\"") + "\"" }.joined(separator: ",")
                + "],\"error\":null}"
            ready.append(
                .init(
                    id: request ?? requests.last!.id,
                    outcome: .answer(status: status, body: Array(body.utf8), truncated: false)))
        }
    }

    /// What the coordinator handed on, in order.
    enum Written: Equatable {
        case line(String, wallMs: Int64)
        case gap(BackfillResult?)
        case problem(String)
    }

    final class Harness {
        let fetcher = FakeFetcher()
        var written: [Written] = []
        let coordinator: BackfillCoordinator
        /// The clock: monotonic and wall move together from 1,800,000,000,000 ms.
        var nowMs: Int64 = 0
        static let epochMs: Int64 = 1_800_000_000_000

        init(waitMs: Int64 = 3_000, maxHeldLines: Int = 10_000) {
            let source = RecentMessagesSource(baseURL: "http://127.0.0.1:1", waitMs: waitMs, maxHeldLines: maxHeldLines)
            let box = WrittenBox()
            coordinator = BackfillCoordinator(
                source: source, fetcher: fetcher,
                onLine: { span, _, receivedAt, _ in
                    var bytes: [UInt8] = []
                    for i in span.indices { bytes.append(span[i]) }
                    box.items.append(
                        .line(String(decoding: bytes, as: UTF8.self), wallMs: receivedAt.wall.milliseconds))
                },
                onRecord: { record in
                    if case .gap(let gap) = record { box.items.append(.gap(gap.backfill)) }
                },
                onProblem: { box.items.append(.problem("\($0)")) })
            self.box = box
        }
        private let box: WrittenBox
        final class WrittenBox { var items: [Written] = [] }
        var out: [Written] { box.items }
        var lines: [String] {
            out.compactMap { if case .line(let l, _) = $0 { l } else { nil } }
        }

        var now: Moment { Moment(monotonicMs: nowMs, wallMs: Self.epochMs + nowMs) }

        /// The common start: line 1 received at 0, a gap from 500 to the rejoin at 1,000 (a request
        /// made), nothing answered yet.
        static func afterGap(waitMs: Int64 = 3_000) -> Harness {
            let h = Harness(waitMs: waitMs)
            h.live(BackfillCoordinatorTests.chat(1))
            h.advance(1_000)
            h.rejoin(fromMs: 500)
            return h
        }

        func live(_ line: String) {
            let bytes = Array(line.utf8)
            let message = try! TwitchMessage.parse(bytes.span)
            coordinator.deliver(
                bytes.span, message, fingerprint: LineFingerprint.of(bytes.span, message), receivedAt: now,
                lineNumber: 1)
        }

        func rejoin(fromMs: Int64) {
            coordinator.begin(
                Gap(
                    channel: "pixelharbor", from: Timestamp(milliseconds: Self.epochMs + fromMs),
                    to: Timestamp(milliseconds: Self.epochMs + nowMs), reason: .endOfStream),
                now: now)
        }

        func advance(_ ms: Int64) {
            nowMs += ms
            coordinator.poll(now: now)
        }

        /// The confirmation after an answer that caught up: asked ``BackfillCoordinator/confirmMs``
        /// later, and answered with `lines`.
        func confirm(_ lines: [String]) {
            let asked = fetcher.requests.count
            advance(BackfillCoordinator.confirmMs)
            #expect(fetcher.requests.count == asked + 1, "asked once more to confirm")
            fetcher.answer(lines)
            advance(10)
        }

        /// For `ms`, in steps of 50 ms: every request made is answered with `lines` at the next step.
        func answerEveryRequest(with lines: [String], forMs ms: Int64) {
            var answered = fetcher.requests.count - 1
            for _ in 0..<(ms / 50) {
                while answered < fetcher.requests.count {
                    fetcher.answer(lines, to: fetcher.requests[answered].id)
                    answered += 1
                }
                advance(50)
            }
        }

        var gaps: [BackfillResult?] {
            out.compactMap { if case .gap(let result) = $0 { result } else { nil } }
        }
    }

    /// A chat line with `id`, dated by the service (`rm-received-ts`) at `atMs` after the epoch when given.
    static func chat(_ n: Int, atMs: Int64? = nil) -> String {
        let time = atMs.map { "rm-received-ts=\(Harness.epochMs + $0);" } ?? ""
        return "@\(time)id=m\(n);room-id=1;tmi-sent-ts=0 :u!u@u.tmi.twitch.tv PRIVMSG #pixelharbor :line \(n)"
    }

    static func historical(_ line: String) -> String { "@historical=1;" + line.dropFirst() }

    @Test("the gap's record first, then the recovered lines marked historical, then the held live lines in order")
    func writeOrder() {
        let h = Harness.afterGap()
        h.live(Self.chat(4))
        h.live(Self.chat(5))
        #expect(h.lines == [Self.chat(1)], "live lines are held while the service is asked")
        let answer = [
            Self.chat(1, atMs: 0), Self.chat(2, atMs: 600), Self.chat(3, atMs: 800), Self.chat(4, atMs: 1_001),
        ]
        h.fetcher.answer(answer)
        h.advance(10)
        #expect(h.lines == [Self.chat(1)], "held until a second answer confirms the first")
        h.confirm(answer)
        #expect(
            h.out.dropFirst() == [
                .gap(.recovered(2, .closed)),
                .line(Self.historical(Self.chat(2, atMs: 600)), wallMs: Harness.epochMs + 600),
                .line(Self.historical(Self.chat(3, atMs: 800)), wallMs: Harness.epochMs + 800),
                .line(Self.chat(4), wallMs: Harness.epochMs + 1_000),
                .line(Self.chat(5), wallMs: Harness.epochMs + 1_000),
            ])
        #expect(h.coordinator.counters.closed == 1 && h.coordinator.counters.recoveredLines == 2)
    }

    @Test(
        "an answer dated after the rejoin but holding no live line is asked again: our lag read as the service's clock does not close the gap"
    )
    func lagIsNotCaughtUp() {
        let h = Harness()
        // We received line 1 a second after the service did (busy): its clock looks 1 s behind ours.
        h.live(Self.chat(1))
        h.advance(2_000)
        h.rejoin(fromMs: 1_500)
        h.live(Self.chat(5))
        // Lines 2 and 3 were sent before the rejoin (service times 1,400 and 1,900, i.e. "2,400 and
        // 2,900" once its clock is corrected by a second): the service has 2 only, so far.
        h.fetcher.answer([Self.chat(1, atMs: -1_000), Self.chat(2, atMs: 1_400)])
        h.advance(10)
        #expect(h.coordinator.counters.retries == 1, "an answer without a live line has not caught up")
        #expect(h.fetcher.requests.count == 1)
        h.advance(BackfillCoordinator.retryMs)
        #expect(h.fetcher.requests.count == 2, "asked again after \(BackfillCoordinator.retryMs) ms")
        let caughtUp = [
            Self.chat(1, atMs: -1_000), Self.chat(2, atMs: 1_400), Self.chat(3, atMs: 1_900), Self.chat(5, atMs: 2_001),
        ]
        h.fetcher.answer(caughtUp)
        h.advance(10)
        h.confirm(caughtUp)
        #expect(h.lines.dropFirst().map { $0.contains("line 3") || $0.contains("line 2") }.filter { $0 }.count == 2)
        #expect(h.lines.last == Self.chat(5))
        #expect(h.out.contains(.gap(.recovered(2, .closed))))
    }

    @Test("a service that stored a line after a later one (two connections of its own): the confirming answer has it")
    func outOfOrderService() {
        let h = Harness.afterGap()
        h.live(Self.chat(5))
        // Line 5 (after the rejoin) is there, line 3 (before it) is not yet: stored late.
        h.fetcher.answer([Self.chat(1, atMs: 0), Self.chat(2, atMs: 600), Self.chat(5, atMs: 1_001)])
        h.advance(10)
        #expect(h.coordinator.counters.confirmations == 1)
        h.confirm([
            Self.chat(1, atMs: 0), Self.chat(2, atMs: 600), Self.chat(5, atMs: 1_001), Self.chat(3, atMs: 900),
        ])
        #expect(h.lines.contains(Self.historical(Self.chat(3, atMs: 900))), "\(h.out)")
        #expect(h.gaps == [.recovered(2, .closed)], "\(h.out)")
        #expect(h.lines.last == Self.chat(5))
    }

    @Test("an older copy of an id-less line (a viewer's JOIN, said again word for word) is no sign of having caught up")
    func repeatedLineIsNotCaughtUp() {
        let h = Harness()
        let join = ":viewer!viewer@viewer.tmi.twitch.tv JOIN #pixelharbor"
        h.live(Self.chat(1))
        h.advance(1_000)
        h.rejoin(fromMs: 500)
        // The viewer joins again after the rejoin; the service has the same line from before the gap,
        // but not yet line 3 (sent before the rejoin) nor line 5 (after it).
        h.live(join)
        h.live(Self.chat(5))
        h.fetcher.answer([Self.chat(1, atMs: 0), join, Self.chat(2, atMs: 600)])
        h.advance(10)
        #expect(h.coordinator.counters.retries == 1, "\(h.out)")
        h.advance(BackfillCoordinator.retryMs)
        let caughtUp = [
            Self.chat(1, atMs: 0), join, Self.chat(2, atMs: 600), Self.chat(3, atMs: 900), join,
            Self.chat(5, atMs: 1_001),
        ]
        h.fetcher.answer(caughtUp)
        h.advance(10)
        h.confirm(caughtUp)
        #expect(h.lines.contains(Self.historical(Self.chat(3, atMs: 900))), "\(h.out)")
        #expect(h.gaps == [.recovered(2, .closed)], "\(h.out)")
    }

    @Test("an answer that never catches up before the wait ends closes the gap only in part")
    func neverCaughtUp() {
        let h = Harness.afterGap(waitMs: 1_000)
        h.live(Self.chat(9))
        h.answerEveryRequest(with: [Self.chat(1, atMs: 0), Self.chat(2, atMs: 600)], forMs: 1_500)
        #expect(h.fetcher.requests.count > 1, "asked again while the wait allowed")
        #expect(
            h.gaps == [
                .recovered(
                    1,
                    .partial(
                        missingFrom: Timestamp(milliseconds: Harness.epochMs + 600),
                        missingTo: Timestamp(milliseconds: Harness.epochMs + 1_000)))
            ], "\(h.out)")
        #expect(h.lines.last == Self.chat(9), "the held line is released after the recovered one")
    }

    @Test("a new gap while an answer has not caught up: the earlier gap keeps what that answer gave, closed in part")
    func newGapWhileBehind() {
        let h = Harness.afterGap()
        h.live(Self.chat(5))
        h.fetcher.answer([Self.chat(1, atMs: 0), Self.chat(2, atMs: 600)])
        h.advance(10)
        #expect(h.coordinator.counters.retries == 1)
        // Dropped again before the next answer.
        h.advance(100)
        h.rejoin(fromMs: 1_100)
        #expect(h.lines.contains(Self.historical(Self.chat(2, atMs: 600))), "\(h.out)")
        #expect(h.lines.last == Self.chat(5), "the held line released after the recovered one")
        guard case .recovered(1, .partial) = h.gaps.first else {
            Issue.record("the earlier gap closed in part: \(h.out)")
            return
        }
        #expect(h.fetcher.requests.count == 2 && h.coordinator.counters.failed == 0)
    }

    @Test(
        "the session stops while an answer is behind, or one caught up awaits its confirmation: each gap keeps what it had"
    )
    func stopKeepsWhatItHad() {
        let behind = Harness.afterGap()
        behind.live(Self.chat(5))
        behind.fetcher.answer([Self.chat(1, atMs: 0), Self.chat(2, atMs: 600)])
        behind.advance(10)
        behind.coordinator.finishAll(now: behind.now)
        guard case .recovered(1, .partial) = behind.gaps.first else {
            Issue.record("closed in part with line 2: \(behind.out)")
            return
        }
        let reached = Harness.afterGap()
        reached.live(Self.chat(5))
        reached.fetcher.answer([Self.chat(1, atMs: 0), Self.chat(2, atMs: 600), Self.chat(5, atMs: 1_001)])
        reached.advance(10)
        reached.coordinator.finishAll(now: reached.now)
        #expect(reached.gaps == [.recovered(1, .closed)], "\(reached.out)")
        #expect(reached.lines.last == Self.chat(5))
    }

    @Test("a quiet channel (only its JOIN echo held, no id) takes the answer at the wait's end as closing the gap")
    func quietChannel() {
        let h = Harness.afterGap(waitMs: 1_000)
        h.live(":justinfan1!justinfan1@justinfan1.tmi.twitch.tv JOIN #pixelharbor")
        h.answerEveryRequest(with: [Self.chat(1, atMs: 0), Self.chat(2, atMs: 600)], forMs: 1_500)
        #expect(h.fetcher.requests.count > 1, "asked again while the wait allowed")
        #expect(h.out.contains(.gap(.recovered(1, .closed))), "\(h.out)")
        #expect(h.lines.last == ":justinfan1!justinfan1@justinfan1.tmi.twitch.tv JOIN #pixelharbor")
    }

    @Test("too many held lines end the wait early: the gap is failed, counted, and every held line released in order")
    func heldBound() {
        let h = Harness(maxHeldLines: 3)
        h.live(Self.chat(1))
        h.rejoin(fromMs: 0)
        for n in 2...4 { h.live(Self.chat(n)) }
        #expect(h.coordinator.counters.releasedEarly == 1)
        #expect(h.lines == (1...4).map { Self.chat($0) })
        guard case .failed(let why) = h.gaps.first else {
            Issue.record("expected a failed gap: \(h.out)")
            return
        }
        #expect(why.contains("3 live lines"))
        // The answer that comes afterwards is late: discarded and counted.
        h.fetcher.answer([Self.chat(1), Self.chat(2)])
        h.advance(10)
        #expect(h.coordinator.counters.late == 1)
        #expect(h.lines.count == 4)
    }

    @Test("an HTTP error is a failed gap naming the status and what the service said; held lines go on")
    func httpError() {
        let h = Harness()
        h.rejoin(fromMs: 0)
        h.live(Self.chat(7))
        h.fetcher.answer(["x"], status: 503)
        h.advance(10)
        #expect(h.coordinator.counters.failed == 1)
        #expect(h.lines == [Self.chat(7)])
        #expect(h.out.contains { if case .problem(let p) = $0 { p.contains("503") } else { false } }, "\(h.out)")
        // The gap record itself fails, naming the status.
        guard case .failed(let why)? = h.gaps.first else {
            Issue.record("no failed gap: \(h.out)")
            return
        }
        #expect(why.contains("503"), "\(why)")
    }

    @Test("no answer within the wait: the gap is recorded unanswered and the held lines released")
    func noAnswer() {
        let h = Harness(waitMs: 1_000)
        h.rejoin(fromMs: 0)
        h.live(Self.chat(3))
        h.advance(999)
        #expect(h.lines.isEmpty)
        h.advance(1)
        #expect(h.lines == [Self.chat(3)])
        #expect(h.out.contains(.gap(.failed("no answer within 1.0 s"))), "\(h.out)")
    }
}
