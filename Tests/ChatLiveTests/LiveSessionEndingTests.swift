import ChatLive
import ChatPosix
import Testing
import TwitchSession

/// ``LiveSession/run(until:)`` says why it returned. Port 1 on loopback refuses every connect, so the
/// session only retries until it ends.
@Suite struct LiveSessionEndingTests {
    static func session() throws -> LiveSession {
        try LiveSession(
            channels: ["pixelharbor"], credentials: .anonymous,
            endpoint: Endpoint(host: "127.0.0.1", port: 1, tls: nil),
            onLine: { _, _, _, _ in }, onRecord: { _ in }, onProblem: { _ in })
    }

    @Test("a deadline that passes ends the run as .deadline")
    func deadline() throws {
        let session = try Self.session()
        #expect(session.ending == nil)
        let ending = session.run(until: Moment.now().monotonicMs + 100)
        #expect(ending == .deadline)
        #expect(session.ending == .deadline)
        #expect(ending.description == "the run's duration ended")
    }

    @Test("a raised stop flag ends the run as .stopped, also with a deadline ahead")
    func stopped() throws {
        let session = try Self.session()
        session.stop.raise()
        #expect(session.run(until: Moment.now().monotonicMs + 60_000) == .stopped)
    }

    @Test("the loop's failure is described with its cause")
    func loopFailedDescription() {
        #expect(
            LiveSession.Ending.loopFailed("epoll_wait: Bad file descriptor").description
                == "the ingest loop failed: epoll_wait: Bad file descriptor")
        #expect(LiveSession.Ending.fatal("login refused").description == "login refused")
    }
}
