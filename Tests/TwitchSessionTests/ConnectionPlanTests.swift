import Testing
import TwitchSession

@Suite(.timeLimit(.minutes(20))) struct ConnectionPlanTests {
    @Test("splits into connections of at most 90 channels, opened 2 s apart")
    func split() {
        let plans = ConnectionPlan.split(channels: sessionChannels(200))
        #expect(plans.map(\.channels.count) == [90, 90, 20])
        #expect(plans.map(\.openAfterMs) == [0, 2_000, 4_000])
        #expect(plans.map(\.index) == [0, 1, 2])
        #expect(plans.flatMap(\.channels) == sessionChannels(200))
    }

    @Test("exactly 90 fit in one connection; 91 need two")
    func boundary() {
        #expect(ConnectionPlan.split(channels: sessionChannels(90)).count == 1)
        #expect(ConnectionPlan.split(channels: sessionChannels(91)).map(\.channels.count) == [90, 1])
        #expect(ConnectionPlan.split(channels: []).isEmpty)
    }

    @Test("normalises and drops duplicates before splitting")
    func normalises() {
        let plans = ConnectionPlan.split(
            channels: ["#Foo", "foo", " bar ", "", "#", "BAZ"], maxPerConnection: 2, spacingMs: 5_000)
        #expect(
            plans == [
                ConnectionPlan(index: 0, channels: ["foo", "bar"], openAfterMs: 0),
                ConnectionPlan(index: 1, channels: ["baz"], openAfterMs: 5_000),
            ])
    }

    @Test("a machine for a plan opens its first connection after the plan's delay")
    func machineFromPlan() {
        let plans = ConnectionPlan.split(channels: sessionChannels(100))
        var machine = ConnectionMachine(plan: plans[1], seed: 1)
        #expect(machine.channels.count == 10)
        #expect(machine.start(at: SessionDriver.start) == [.connect(after: 2_000)])
    }

    @Test("a machine refuses more than 90 channels")
    func machineLimit() async {
        await #expect(processExitsWith: .failure) {
            _ = ConnectionMachine(channels: sessionChannels(91), seed: 1)
        }
    }
}
