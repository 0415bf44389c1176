import ChatPosix
import Testing

@Suite struct SignalRuleTests {
    @Test("the first SIGINT/SIGTERM stops the run; a second, while stopping, exits at once with 130")
    func interrupts() {
        #expect(SignalRule.action(for: .interrupt, stopRaised: false, reloads: false) == .stop)
        #expect(SignalRule.action(for: .interrupt, stopRaised: true, reloads: false) == .exitNow(status: 130))
        // A reloading run stops the same way.
        #expect(SignalRule.action(for: .interrupt, stopRaised: false, reloads: true) == .stop)
        #expect(SignalRule.action(for: .interrupt, stopRaised: true, reloads: true) == .exitNow(status: 130))
    }

    @Test("SIGHUP reloads with a channels file and keeps its default (ending the process) without, stopping or not")
    func hangups() {
        for stopRaised in [false, true] {
            #expect(SignalRule.action(for: .hangup, stopRaised: stopRaised, reloads: true) == .reload)
            #expect(SignalRule.action(for: .hangup, stopRaised: stopRaised, reloads: false) == .terminate)
        }
    }
}
