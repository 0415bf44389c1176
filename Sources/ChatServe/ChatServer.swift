public import ChatHTTP
import ChatNet
import ChatPosix
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// A fake Twitch chat server: accepts IRC clients (plain TCP or TLS, and with
/// ``ServeOptions/webSocketPort`` IRC over WebSocket on a second port, as Twitch's
/// `irc-ws.chat.twitch.tv`), answers the login and JOINs as Twitch does, and plays a chat log to the
/// clients that join its channels, paced by the log's timestamps (see ``LogTimeline``: one timeline
/// shared by every client, or one per client with `--from-start`), relaying what clients say and
/// keeping them alive with PINGs.
///
/// Hostile peers: a connection that has not logged in within ``ServeOptions/loginTimeoutMs`` is
/// closed; at most ``ServeOptions/maxConnectionsPerAddress`` are open from one address (a new one
/// takes the place of the address's oldest connection not logged in, or is refused); when descriptors
/// run out, the oldest connection not logged in is closed to make room for the one waiting. Each such
/// close is reported, and counted in a line at shutdown.
///
/// Single-threaded: one ``EventLoop`` serves the listening socket and every client. Timers (a held
/// line, a PING) are the loop's wait timeout: the earliest ``ServeClient/nextDue`` of any client (a
/// scan over the clients and their timelines per wakeup, fine for the hundreds of clients a test bed
/// has).
///
/// ```swift
/// let server = try ChatServer(arguments: ["Fixtures/lines/privmsg.irc"], options: ServeOptions(port: 0)) {
///     print($0)
/// }
/// print("listening on \(server.address)")
/// try server.run()   // until server.stopHandle.stop()
/// ```
///
/// Confined to the thread that calls ``run()`` (create it there too); only ``stopHandle`` crosses
/// threads.
public final class ChatServer {
    /// `127.0.0.1:6667`, with the port actually bound.
    public let address: String
    /// The port actually bound (the kernel's choice for port 0).
    public let port: UInt16
    /// `ws://127.0.0.1:8080` (or `wss://`), with the port actually bound, when WebSocket is served.
    public let webSocketAddress: String?
    /// The WebSocket port actually bound, when WebSocket is served.
    public let webSocketPort: UInt16?
    /// Stops ``run()`` from any thread.
    public let stopHandle: ServeStopHandle
    /// What the shared timeline played, per channel (with ``ServeOptions/httpHistory``):
    /// read it from any thread, e.g. for `GET /api/v2/recent-messages/<login>`.
    public var history: RecentHistory? { context.history }

    private let loop: EventLoop
    private let listener: ListeningSocket
    /// The WebSocket port's listener, if any: its connections are wrapped in a ``WebSocketStream``.
    private let webSocketListener: ListeningSocket?
    private let context: ServeContext
    private let tls: ServerTLSContext?
    private var clients: [Int32: ServeClient] = [:]
    private var nextNumber = 1
    /// Accepting is paused until then (monotonic ms) after running out of descriptors.
    private var acceptPausedUntil: Int64?
    /// Open connections by peer address (``ServeClient/address``).
    private var connectionsByAddress: [String: Int] = [:]
    /// Connections closed or refused for misbehaving, by ``ServeClient/CloseReason/misbehaviour``.
    private var misbehaviourCounts: [String: Int] = [:]

    /// Opens the inputs, loads the TLS certificate and binds the listening socket, in that order.
    ///
    /// - Parameters:
    ///   - arguments: `FILE|DIR|-` as on the command line.
    ///   - report: receives one line per connection, join and disconnect, and per input problem.
    /// - Throws: ``ServeError/input(_:)``, ``ServeError/tls(_:)`` or ``ServeError/network(_:)``.
    public init(arguments: [String], options: ServeOptions, report: @escaping (String) -> Void) throws(ServeError) {
        let log = try ReplayLog(arguments: arguments, report: report)
        tls = try options.tls.map { files throws(ServeError) in try ServerTLSContext(files) }
        do {
            listener = try ListeningSocket(host: options.host, port: options.port)
            webSocketListener = try options.webSocketPort.map { port throws(SocketError) in
                try ListeningSocket(host: options.host, port: port)
            }
            loop = try EventLoop(maxEvents: 128)
            try loop.register(listener.fileDescriptor, interest: .readable)
            if let webSocketListener { try loop.register(webSocketListener.fileDescriptor, interest: .readable) }
        } catch {
            throw .network(error)
        }
        address = listener.address
        port = listener.port
        webSocketPort = webSocketListener?.port
        let scheme = options.tls == nil ? "ws://" : "wss://"
        webSocketAddress = webSocketListener.map { scheme + $0.address }
        stopHandle = ServeStopHandle(flag: StopFlag(), waker: loop.waker)
        context = ServeContext(options: options, log: log, report: report)
    }

    /// Serves until ``stopHandle`` is used, then closes every client (reporting each) and returns.
    ///
    /// - Throws: ``ServeError/network(_:)`` when the event loop itself fails.
    /// - Complexity: per wakeup, O(ready descriptors + clients) plus the lines pumped (at most
    ///   ``ServeClient/linesPerTurn`` per client and turn).
    /// - Allocations: none per replayed line once queues have grown; per connection, its client,
    ///   framer and log reader; per client command, its strings and replies.
    public func run() throws(ServeError) {
        var ready: [(descriptor: Int32, readiness: EventLoop.Readiness)] = []
        ready.reserveCapacity(128)
        defer { closeAll() }
        while !stopHandle.isStopRequested {
            let timeout = waitTimeout(now: Moment.now().monotonicMs)
            ready.removeAll(keepingCapacity: true)
            do {
                try loop.wait(timeoutMs: timeout) { ready.append(($0, $1)) }
            } catch {
                throw .network(error)
            }
            if stopHandle.isStopRequested { break }
            let now = Moment.now().monotonicMs
            for (descriptor, readiness) in ready {
                if descriptor == listener.fileDescriptor {
                    acceptAll(from: listener, now: now)
                } else if let webSocketListener, descriptor == webSocketListener.fileDescriptor {
                    acceptAll(from: webSocketListener, webSocket: true, now: now)
                } else if let client = clients[descriptor] {
                    if !readiness.isDisjoint(with: [.readable, .hangup, .error]) { client.readAvailable(now: now) }
                    service(client, now: now)
                }
            }
            if let paused = acceptPausedUntil, paused <= now {
                acceptPausedUntil = nil
                try? loop.modify(listener.fileDescriptor, interest: .readable)
                if let webSocketListener { try? loop.modify(webSocketListener.fileDescriptor, interest: .readable) }
            }
            for client in clients.values where (client.nextDue ?? .max) <= now {
                service(client, now: now)
            }
        }
    }

    /// Pumps the replay, writes, and closes or re-registers `client` as it now needs.
    private func service(_ client: ServeClient, now: Int64) {
        if !client.isDone {
            client.pump(now: now)
            client.flush()
        }
        if client.isDone {
            remove(client)
            return
        }
        let interest = client.interest(now: now)
        if interest != client.registeredInterest {
            do {
                try loop.modify(client.transport.fileDescriptor, interest: interest)
                client.registeredInterest = interest
            } catch {
                client.close(.failed("\(error)"))
                remove(client)
            }
        }
    }

    /// The wait's timeout: until the earliest held line is due or accepting resumes; `-1` for none.
    private func waitTimeout(now: Int64) -> Int32 {
        var earliest = acceptPausedUntil ?? .max
        for client in clients.values {
            if let due = client.nextDue, due < earliest { earliest = due }
        }
        guard earliest != .max else { return -1 }
        return Int32(clamping: max(0, earliest - now))
    }

    /// Accepts every waiting connection of `listener`: TLS over it when the server has a certificate,
    /// and on the WebSocket port a ``WebSocketStream`` over that, whose first reads take the upgrade.
    private func acceptAll(from listener: ListeningSocket, webSocket: Bool = false, now: Int64) {
        while true {
            switch listener.accept() {
            case .none:
                return
            case .failed(let error):
                if [EMFILE, ENFILE].contains(error.code)
                    && evictOldest(because: "descriptors ran out (ulimit -n)", where: { _ in true })
                {
                    continue  // accept the waiting one in its place
                }
                context.report("cannot accept a connection: \(error); pausing for 100 ms")
                acceptPausedUntil = now + 100
                try? loop.modify(self.listener.fileDescriptor, interest: [])
                if let webSocketListener { try? loop.modify(webSocketListener.fileDescriptor, interest: []) }
                return
            case .connection(let tcp):
                let address = Self.address(ofPeer: tcp.peer)
                if connectionsByAddress[address, default: 0] >= context.options.maxConnectionsPerAddress
                    && !evictOldest(
                        because: "\(address) reached --max-per-address \(context.options.maxConnectionsPerAddress)",
                        where: { $0.address == address })
                {
                    misbehaviourCounts["refused over the per-address cap", default: 0] += 1
                    context.report(
                        "refused \(tcp.peer): \(context.options.maxConnectionsPerAddress) connections from \(address) "
                            + "are open and logged in (--max-per-address)")
                    continue  // the connection closes as it is released
                }
                var transport: any ByteStream
                if let tls {
                    do {
                        transport = try tls.makeConnection(accepting: tcp)
                    } catch {
                        context.report("cannot start TLS for \(tcp.peer): \(error)")
                        continue
                    }
                } else {
                    transport = tcp
                }
                if webSocket { transport = WebSocketStream(accepting: transport, peer: tcp.peer) }
                let client = ServeClient(
                    number: nextNumber, transport: transport, peer: tcp.peer, address: address, context: context,
                    now: now)
                nextNumber += 1
                do {
                    try loop.register(tcp.fileDescriptor, interest: .readable)
                } catch {
                    context.report("cannot watch \(tcp.peer): \(error)")
                    continue
                }
                clients[tcp.fileDescriptor] = client
                connectionsByAddress[address, default: 0] += 1
                context.report("\(client.name) connected" + (webSocket ? " (WebSocket)" : ""))
            }
        }
    }

    private func remove(_ client: ServeClient) {
        client.sendWebSocketClose()
        let descriptor = client.transport.fileDescriptor
        try? loop.remove(descriptor)
        clients.removeValue(forKey: descriptor)
        if let open = connectionsByAddress[client.address] {
            connectionsByAddress[client.address] = open > 1 ? open - 1 : nil
        }
        if let kind = client.closeReason?.misbehaviour { misbehaviourCounts[kind, default: 0] += 1 }
        context.report(client.farewell)
    }

    /// Closes the oldest connection not logged in that `matches`, to make room for a new one (its
    /// farewell names `reason`).
    ///
    /// - Returns: whether there was one.
    /// - Complexity: O(clients).
    private func evictOldest(because reason: String, where matches: (ServeClient) -> Bool) -> Bool {
        var oldest: ServeClient? = nil
        for client in clients.values where !client.isLoggedIn && client.closeReason == nil && matches(client) {
            if client.number < oldest?.number ?? .max { oldest = client }
        }
        guard let oldest else { return false }
        oldest.close(.evicted(reason))
        remove(oldest)
        return true
    }

    /// `127.0.0.1` of `127.0.0.1:54321`, `::1` of `[::1]:54321`.
    static func address(ofPeer peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon]).trimmingBrackets()
    }

    private func closeAll() {
        for client in Array(clients.values).sorted(by: { $0.number < $1.number }) {
            client.close(.serverStopping)
            remove(client)
        }
        if !misbehaviourCounts.isEmpty {
            let counts = misbehaviourCounts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            context.report("connections closed for misbehaving: " + counts.joined(separator: ", "))
        }
    }
}

@available(*, unavailable)
extension ChatServer: Sendable {}

extension String {
    /// The text inside `[…]` (an IPv6 address as a peer name writes it), else the text itself.
    fileprivate func trimmingBrackets() -> String {
        hasPrefix("[") && hasSuffix("]") ? String(dropFirst().dropLast()) : self
    }
}
