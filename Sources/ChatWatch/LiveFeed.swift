public import ChatLive
import ChatPosix
import IRCWire
public import TwitchSession

/// Feeds live chat to `watch`: a ``LiveSession`` on the ingest thread appends every line to the
/// watch's store as it arrives and publishes windows on each loop tick (at least every 30 ms).
/// Connection states go to the header; session records and line problems to the footer.
public final class LiveFeed: WatchFeed {
    private let channels: [String]
    private let credentials: Credentials
    private let endpoint: Endpoint
    private let settings: ConnectionSettings
    private let deadline: Int64?
    private let recentMessages: RecentMessagesSource?
    /// Why the session gave up (a rejected login or certificate) and its message, once
    /// ``run(into:)`` has returned; read it only after the ingest thread is joined.
    public private(set) var failure: (reason: DisconnectReason?, message: String)? = nil
    /// Set when the session ended without any connection ever being welcomed by the server (the
    /// last reason, if any): `watch` exits 69.
    public private(set) var unreached: DisconnectReason?? = nil

    public init(
        channels: [String], credentials: Credentials, endpoint: Endpoint, settings: ConnectionSettings,
        seconds: Double? = nil, recentMessages: RecentMessagesSource? = nil
    ) {
        self.recentMessages = recentMessages
        self.channels = channels
        self.credentials = credentials
        self.endpoint = endpoint
        self.settings = settings
        deadline = seconds.map { Moment.now().monotonicMs + Seconds.milliseconds($0) }
    }

    public func run(into ingest: WatchIngest) {
        ingest.setStatus(.connecting)
        let session: LiveSession
        do {
            session = try LiveSession(
                channels: channels, credentials: credentials, endpoint: endpoint, settings: settings, stop: ingest.stop,
                onLine: { bytes, message, receivedAt, _ in ingest.append(bytes, message, receivedAt: receivedAt.wall)
                },
                onRecord: { record in
                    switch record {
                    case .joined: ingest.setStatus(.connected)
                    case .disconnected(let reason, _): ingest.setStatus(.reconnecting("\(reason)"))
                    case .fatal(let message, _): ingest.setStatus(.failed(message))
                    default: break
                    }
                    switch record {
                    case .gap, .joinFailed, .fatal: ingest.report("\(record)")
                    case .capabilities(let outcome, _) where outcome.isDegraded: ingest.report("\(record)")
                    default: break
                    }
                },
                onProblem: { ingest.report("\($0)") })
        } catch {
            ingest.setStatus(.failed("\(error)"))
            return
        }
        session.recentMessages = recentMessages
        session.onTick = { ingest.tick() }
        session.run(until: deadline)
        ingest.finish()
        if let fatal = session.fatal {
            failure = (session.failure, fatal)
            ingest.setStatus(.failed(fatal))
        } else if !session.everRegistered {
            unreached = .some(session.lastFailure)
            ingest.setStatus(.failed("never reached the server's chat"))
        } else if !ingest.stop.isRaised {
            ingest.setStatus(.failed("ended"))
        }
    }
}

@available(*, unavailable)
extension LiveFeed: Sendable {}
