import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one HTTP listener of a process, through libmicrohttpd: it binds `host:port`, and answers
/// each request with its ``HTTPRouter`` on a thread of its connection's own (libmicrohttpd's thread
/// per connection, beside one thread that accepts).
///
/// A thread per connection, not one thread polling every connection: the logs API's routes block
/// while they read an archive (a search, a year's stats), and on a shared thread such a request
/// held every other connection until it ended. libmicrohttpd's thread pool has the same flaw (a
/// connection stays on the pool thread that accepted it), and suspending connections for a worker
/// pool would still read a streamed body on the polling thread. A thread per connection is what
/// libmicrohttpd does for blocking handlers; its cost is bounded by the connection limit (one
/// thread, its stack mostly untouched, per connection open). Routes may therefore run on several
/// threads at once (``HTTPRouter/Handler`` is `@Sendable`).
///
/// Nothing here runs on the caller's threads, and the routes read shared state without a lock the
/// caller holds (see ``RecentMessagesEndpoint``), so a slow or hostile client can at worst hold a
/// connection of its own until ``HTTPLimits/idleTimeoutSeconds``: the connection limits keep the
/// descriptors and memory it can take bounded (``HTTPLimits``). Past a limit a connection is
/// accepted and closed at once (shed), never left waiting in the kernel's backlog, and counted
/// (``figures``); no number of connections reaches the caller's threads.
///
/// ```swift
/// var router = HTTPRouter()
/// router.get("/healthz") { _, _ in HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok\n".utf8)) }
/// let listener = try HTTPListener(host: "127.0.0.1", port: 0, router: router)
/// print(listener.url)   // http://127.0.0.1:41234
/// listener.stop()
/// ```
///
/// Any thread may create, use and stop it; ``stop()`` waits for the listener's threads to end.
public final class HTTPListener: Sendable {
    /// The port actually bound (the kernel's choice for port 0).
    public let port: UInt16
    /// `http://HOST:PORT` (IPv6 hosts in brackets), with the port actually bound.
    public let url: String
    /// The daemon's address, 0 once stopped.
    private let daemon: Mutex<UInt>
    /// The retained ``Handler`` the daemon calls (released once the daemon has stopped).
    private let handler: UInt
    /// The address of the daemon's `chatcap_http_guard` (its policy and counters), freed in
    /// `deinit`: after the daemon stops, ``figures`` still reads the last counts.
    private let guardAddress: UInt
    /// The per-address limit the daemon was started with.
    private let limitPerAddress: Int

    /// What the C callback reaches through its context pointer: the routes, and the guard's address
    /// (its connections' deadlines and busy marks).
    private final class Handler: Sendable {
        let router: HTTPRouter
        let guardAddress: UInt
        init(router: HTTPRouter, guardAddress: UInt) {
            self.router = router
            self.guardAddress = guardAddress
        }
    }

    /// Binds `host:port` and starts answering.
    ///
    /// - Throws: ``HTTPError`` when the host does not resolve, the address cannot be bound (e.g. the
    ///   port is in use), or libmicrohttpd does not start.
    public init(host: String, port: UInt16, limits: HTTPLimits = HTTPLimits(), router: HTTPRouter) throws(HTTPError) {
        let display = host.contains(":") ? "[\(host)]" : host
        var bound: UInt16 = 0
        var error: Int32 = 0
        // SAFETY: `host` is a NUL-terminated C string for the call; `bound` and `error` are locals.
        let fd = unsafe chatcap_http_listen(host, port, &bound, &error)
        guard fd >= 0 else {
            if error < 0 {
                // SAFETY: gai_strerror returns a static NUL-terminated string.
                throw .resolve(host: host, message: unsafe String(cString: gai_strerror(-error)))
            }
            // SAFETY: strerror returns a NUL-terminated string valid until the next call on this thread.
            throw .bind(address: "\(display):\(port)", message: unsafe String(cString: strerror(error)))
        }
        let busy = Self.wire(router.busy)
        let uriTooLong = Self.wire(router.uriTooLong)
        let headersTooLarge = Self.wire(router.headersTooLarge)
        // SAFETY: allocated here, freed once in `deinit` (or below when the daemon does not start); the
        // answers' bytes are copied for the call.
        let made = unsafe busy.withUnsafeBytes { busy in
            unsafe uriTooLong.withUnsafeBytes { uri in
                unsafe headersTooLarge.withUnsafeBytes { headers in
                    unsafe chatcap_http_guard_create(
                        UInt32(clamping: limits.connections), UInt32(clamping: limits.busyConnections),
                        Int64(limits.requestTimeoutSeconds) * 1000, busy.baseAddress, busy.count, uri.baseAddress,
                        uri.count, headers.baseAddress, headers.count)
                }
            }
        }
        guard let policy = unsafe made else {
            close(fd)
            throw .start(address: "\(display):\(bound)")
        }
        // SAFETY: retained here, released once in `stop()` (or below when the daemon does not start).
        let box = unsafe Unmanaged.passRetained(Handler(router: router, guardAddress: UInt(bitPattern: policy)))
        // SAFETY: the context pointer stays valid (retained) until after MHD_stop_daemon returns in
        // `stop()`, and the guard until `deinit`, after that; the callbacks are C functions without
        // captures.
        let started = unsafe chatcap_http_start(
            fd, policy, UInt32(clamping: limits.connectionsPerAddress), UInt32(clamping: limits.idleTimeoutSeconds),
            limits.memoryPerConnection, HTTPListener.access, unsafe box.toOpaque())
        guard let started = unsafe started else {
            close(fd)
            // SAFETY: the daemon did not start, so nothing else holds the box or the guard.
            unsafe box.release()
            unsafe chatcap_http_guard_destroy(policy)
            throw .start(address: "\(display):\(bound)")
        }
        self.port = bound
        url = "http://\(display):\(bound)"
        // SAFETY: addresses kept as integers, turned back into pointers only in `stop()`, `figures`
        // and `deinit`.
        daemon = Mutex(UInt(bitPattern: started))
        handler = unsafe UInt(bitPattern: box.toOpaque())
        guardAddress = UInt(bitPattern: policy)
        limitPerAddress = limits.connectionsPerAddress
    }

    /// What the listener has done with its connections so far (also after ``stop()``).
    ///
    /// - Complexity: O(1), a few atomic loads. - Allocations: none.
    public var figures: HTTPListenerFigures {
        // SAFETY: `guardAddress` is the guard allocated in `init`, freed only in `deinit`.
        let counts = unsafe chatcap_http_guard_read(UnsafeMutablePointer<chatcap_http_guard>(bitPattern: guardAddress)!)
        return HTTPListenerFigures(
            limit: Int(counts.limit), limitPerAddress: limitPerAddress, open: Int(counts.open),
            accepted: counts.accepted, shedOverLimit: counts.shed_over_limit,
            shedOverAddressLimit: counts.shed_over_address_limit, acceptFailures: counts.accept_failures,
            answeredBusy: counts.answered_busy, cutSlow: counts.cut_slow)
    }

    /// Stops answering: closes the listening socket and every connection, and waits for the
    /// listener's threads to end (a route still answering is waited for). Idempotent.
    public func stop() {
        let address = daemon.withLock { address in
            defer { address = 0 }
            return address
        }
        // SAFETY: `address` is the daemon's, or 0 (then nothing is done).
        guard let pointer = unsafe OpaquePointer(bitPattern: address) else { return }
        // SAFETY: `pointer` is the daemon started in `init` and stopped only here (the lock hands it
        // out once), with the guard it was started with; after chatcap_http_stop no callback can run
        // and the sweeper has ended, so the handler box can go.
        unsafe chatcap_http_stop(pointer, UnsafeMutablePointer<chatcap_http_guard>(bitPattern: guardAddress)!)
        // SAFETY: `handler` holds the address of the box retained in `init`, released exactly once here.
        unsafe Unmanaged<Handler>.fromOpaque(UnsafeRawPointer(bitPattern: handler)!).release()
    }

    deinit {
        stop()
        // SAFETY: the daemon has stopped (no callback can run), and nothing reads the guard after `deinit`.
        unsafe chatcap_http_guard_destroy(UnsafeMutablePointer<chatcap_http_guard>(bitPattern: guardAddress)!)
    }

    /// libmicrohttpd's access handler: answers on the first call (requests carry no body we read).
    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
        // SAFETY: libmicrohttpd passes the context given at start (a retained `Handler`) and
        // NUL-terminated url and method strings valid for this call.
        guard let context = unsafe context, let connection = unsafe connection, let url = unsafe url,
            let method = unsafe method
        else { return chatcap_http_refuse() }
        let handler = unsafe Unmanaged<Handler>.fromOpaque(context).takeUnretainedValue()
        // SAFETY: the guard outlives the daemon (freed in `deinit`, after it stopped); the connection is
        // this call's. A connection already answered busy is refused: it closes.
        let guardPointer = unsafe UnsafeMutablePointer<chatcap_http_guard>(bitPattern: handler.guardAddress)!
        if unsafe chatcap_http_request_began(guardPointer, connection) != 0 { return chatcap_http_refuse() }
        let request = HTTPRequest(
            method: unsafe String(cString: method), path: unsafe String(cString: url),
            query: { key in
                // SAFETY: the connection is valid for this call; the request does not outlive it.
                guard unsafe chatcap_http_has_query(connection, key) != 0 else { return nil }
                guard let value = unsafe chatcap_http_query(connection, key) else { return .some(nil) }
                return unsafe String(cString: value)
            },
            // SAFETY: as for the query; the value is NUL-terminated and copied at once.
            header: { name in unsafe chatcap_http_header(connection, name).map { unsafe String(cString: $0) } })
        let response = handler.router.respond(to: request)
        if !response.headers.isEmpty || response.stream != nil { return unsafe respond(connection, with: response) }
        // SAFETY: the body's buffer is valid for the call, and libmicrohttpd copies it
        // (MHD_RESPMEM_MUST_COPY); the strings are NUL-terminated for the call.
        return unsafe response.body.withUnsafeBytes { body in
            unsafe chatcap_http_respond(
                connection, UInt32(response.status), response.contentType, body.baseAddress, body.count, response.allow,
                response.allowsAnyOrigin ? 1 : 0)
        }
    }
}
