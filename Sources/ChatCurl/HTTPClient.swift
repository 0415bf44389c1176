import CCurl

/// One HTTP client over the system libcurl's easy interface: GETs or POSTs and collects the answer.
/// The handle (and so its connection, kept alive between requests) is reused. Used by `load`
/// (ClickHouse's HTTP interface) and by the live commands' `--recent-messages` backfill.
///
/// Confined to the thread that made it. Credentials are handed to libcurl as basic authentication
/// and never appear in a URL, a message or an error. TLS is verified against the system's CAs, or
/// the ``TLS/caFile`` given, as the IRC connection is.
@safe
public final class HTTPClient {
    /// What the server answered.
    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
        /// Whether the body was cut at the client's ``maxBodyBytes``.
        public var truncated: Bool
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// How the server's certificate is checked (`https://` URLs).
    public struct TLS: Sendable, Equatable {
        /// A PEM file of trusted CAs that replaces the system's (`CURLOPT_CAINFO`); `nil`: the system's.
        public var caFile: String?
        /// Skip verification (for tests against a self-signed server only).
        public var insecure: Bool
        public init(caFile: String? = nil, insecure: Bool = false) {
            self.caFile = caFile
            self.insecure = insecure
        }
    }

    /// Why a request got no answer.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// libcurl could not be loaded (it is opened at run time: the Debian package `libcurl4`) or started.
        case unavailable(String)
        /// No answer came (connect, TLS, timeout): libcurl's reason.
        case unreachable(String)

        public var description: String {
            switch self {
            case .unavailable(let reason): "libcurl: \(reason)"
            case .unreachable(let reason): reason
            }
        }
    }

    private let handle: UnsafeMutableRawPointer
    /// libcurl's detail for the last failure (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The answer being received, appended to by the write callback.
    private let sink: ResponseSink
    public let tls: TLS

    /// - Parameter maxBodyBytes: the most of an answer kept (the rest is read and dropped, and the
    ///   response says it was cut).
    /// - Throws: ``Failure/unavailable(_:)`` when libcurl cannot be loaded or cannot start.
    public init(tls: TLS = TLS(), maxBodyBytes: Int = 65_536) throws(Failure) {
        guard Self.libcurlLoaded else {
            // SAFETY: the load error is a static NUL-terminated buffer, written once before the load
            // returned and never again; it is copied at once.
            let reason = unsafe String(cString: chatcap_curl_load_error())
            throw Failure.unavailable("libcurl could not be loaded (\(reason)); install libcurl4")
        }
        // SAFETY: libcurl is loaded (checked above, so the C wrappers' function pointers are set) and
        // `curl_global_init` succeeded before this first handle, as libcurl requires.
        guard Self.globalInit == CURLE_OK, let handle = unsafe chatcap_curl_easy_init() else {
            throw Failure.unavailable("curl_easy_init failed")
        }
        // SAFETY: the handle is ours until deinit; the error buffer holds CURL_ERROR_SIZE bytes and a
        // spare NUL, as CURLOPT_ERRORBUFFER asks, allocated here and freed in deinit.
        unsafe self.handle = handle
        unsafe errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        unsafe errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        sink = unsafe ResponseSink(limit: maxBodyBytes, handle: handle)
        self.tls = tls
    }

    deinit {
        // SAFETY: the handle came from `curl_easy_init` and no request is running (requests are
        // synchronous on the owner thread); the error buffer is not used after the cleanup.
        unsafe chatcap_curl_easy_cleanup(handle)
        unsafe errorBuffer.deallocate()
    }

    /// libcurl opened and its functions found, once per process.
    private static let libcurlLoaded = chatcap_curl_load() == 1
    /// `curl_global_init`, once per process, before any handle (libcurl asks for it before threads
    /// start). Evaluated only once ``libcurlLoaded``.
    private static let globalInit: CURLcode = chatcap_curl_global_init()

    /// Opens libcurl (once per process, also `curl_global_init`), so that a later request on another
    /// thread does not run the global setup there. Call it on the main thread before threads start.
    ///
    /// - Throws: ``Failure/unavailable(_:)``.
    public static func prepare() throws(Failure) {
        guard libcurlLoaded else {
            // SAFETY: as in `init`: a static NUL-terminated buffer, copied at once.
            let reason = unsafe String(cString: chatcap_curl_load_error())
            throw Failure.unavailable("libcurl could not be loaded (\(reason)); install libcurl4")
        }
        guard globalInit == CURLE_OK else { throw Failure.unavailable("curl_global_init failed") }
    }

    /// GETs `url` with `headers` (`Name: value`).
    ///
    /// - Parameters:
    ///   - timeoutMs: the whole request's limit; `connectTimeoutMs` the connection's.
    /// - Returns: the status and body of the answer, whatever the status.
    /// - Throws: ``Failure/unreachable(_:)`` when no answer came.
    /// - Allocations: the header list and the answer's bytes.
    public func get(url: String, headers: [String] = [], timeoutMs: Int, connectTimeoutMs: Int) throws(Failure)
        -> Response
    {
        try perform(
            url: url, body: nil, headers: headers, user: nil, password: nil, timeoutMs: timeoutMs,
            connectTimeoutMs: connectTimeoutMs)
    }

    /// POSTs `body` to `url` with `headers` (`Name: value`), as `user` with `password` when given.
    ///
    /// - Returns: the status and body of the answer, whatever the status.
    /// - Throws: ``Failure/unreachable(_:)`` when no answer came.
    /// - Allocations: the header list and the answer's bytes.
    public func post(
        url: String, body: [UInt8], headers: [String], user: String?, password: String?, timeoutMs: Int,
        connectTimeoutMs: Int
    ) throws(Failure) -> Response {
        try perform(
            url: url, body: body, headers: headers, user: user, password: password, timeoutMs: timeoutMs,
            connectTimeoutMs: connectTimeoutMs)
    }

    /// POSTs as ``post(url:body:headers:user:password:timeoutMs:connectTimeoutMs:)``, handing the answer
    /// to `receive` block by block as it arrives (with the status, known by then) instead of collecting
    /// it: an answer of any size in the memory of a block. `receive` answering `false` aborts the request
    /// (it then throws ``Failure/unreachable(_:)``, libcurl's write error).
    ///
    /// - Returns: the status of the answer.
    /// - Allocations: the header list; none per block.
    public func post(
        url: String, body: [UInt8], headers: [String], user: String?, password: String?, timeoutMs: Int,
        connectTimeoutMs: Int, receive: (_ status: Int, _ bytes: UnsafeRawBufferPointer) -> Bool
    ) throws(Failure) -> Int {
        try unsafe withoutActuallyEscaping(receive) { receive throws(Failure) in
            // SAFETY: `receive` is called only inside `perform` below (the write callback), never after:
            // the sink forgets it before this closure returns.
            unsafe sink.forward = receive
            defer { unsafe sink.forward = nil }
            return try perform(
                url: url, body: body, headers: headers, user: user, password: password, timeoutMs: timeoutMs,
                connectTimeoutMs: connectTimeoutMs
            ).status
        }
    }

    private func perform(
        url: String, body: [UInt8]?, headers: [String], user: String?, password: String?, timeoutMs: Int,
        connectTimeoutMs: Int
    ) throws(Failure) -> Response {
        // SAFETY: a live handle with no request running: the reset forgets every option, including
        // the pointers set by the previous request, whose memory is gone.
        unsafe chatcap_curl_easy_reset(handle)
        sink.reset()
        var list: UnsafeMutablePointer<curl_slist>? = nil
        // SAFETY: `curl_slist_append` copies each header's C string (valid for the call); a NULL list
        // starts a new one. The list is freed below after `perform`, the last use of CURLOPT_HTTPHEADER.
        for header in headers { unsafe list = chatcap_curl_slist_append(list, header) }
        // SAFETY: `curl_slist_free_all` accepts NULL; the handle no longer reads the list once
        // `perform` returned (the next request resets the option first).
        defer { unsafe chatcap_curl_slist_free_all(list) }
        // SAFETY: index 0 of a buffer of CURL_ERROR_SIZE + 1 bytes.
        unsafe errorBuffer[0] = 0
        // SAFETY: `sink` is a `let` of `self`, alive for the whole request; libcurl hands this address
        // back only to `write`, during `perform`.
        let context = unsafe Unmanaged.passUnretained(sink).toOpaque()
        let payload = body ?? []
        // SAFETY (the closures below): every option is set through the wrapper of its type (`long`,
        // pointer, `curl_off_t`), as `curl_easy_setopt`'s variadic argument must match the option;
        // every pointer handed over (URL, body, header list, error buffer, CA file, user, password,
        // context) outlives `perform`, the only call that reads it: the C strings and the body are
        // borrowed by closures that enclose `perform` (libcurl copies the string options when they
        // are set), the rest is owned by `self` or freed after `perform` returns.
        let status: CURLcode = unsafe url.withCString { urlText in
            unsafe payload.withUnsafeBytes { raw in
                // SAFETY: CURLOPT_URL takes a C string; libcurl copies it.
                var setup = unsafe chatcap_curl_setopt_pointer(handle, CURLOPT_URL, urlText)
                func set(_ code: CURLcode) { if setup == CURLE_OK { setup = code } }
                // SAFETY: a buffer of at least CURL_ERROR_SIZE bytes, owned by `self`.
                unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
                // SAFETY: a `long` option.
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                if body != nil {
                    // SAFETY: a `long` option.
                    unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_POST, 1))
                    // SAFETY: libcurl reads the body during `perform` below, inside this closure; an
                    // empty body gives a valid address with a size of 0, which libcurl does not read.
                    unsafe set(
                        chatcap_curl_setopt_pointer(
                            handle, CURLOPT_POSTFIELDS, raw.baseAddress ?? UnsafeRawPointer(errorBuffer)))
                    // SAFETY: a `curl_off_t` option, the body's size.
                    unsafe set(chatcap_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(raw.count)))
                }
                if body == nil {
                    // Every encoding libcurl can decode is offered, and an answer in one is decoded
                    // (`gzip`, `deflate`, …): a service that compresses (also unasked) reads as plain JSON.
                    // SAFETY: CURLOPT_ACCEPT_ENCODING takes a C string ("" = all supported); libcurl copies it.
                    unsafe "".withCString {
                        unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_ACCEPT_ENCODING, $0))
                    }
                }
                // SAFETY: a list (or NULL) freed only after `perform` returned (the `defer` above).
                unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, list))
                // SAFETY: `long` options.
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs))
                // SAFETY: a `long` option.
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMs))
                // SAFETY: a C function pointer of libcurl's write-callback type (a closure that captures
                // nothing); it reaches the sink only through `context`.
                unsafe set(chatcap_curl_setopt_write(handle, HTTPClient.write))
                // SAFETY: `context` is the sink's address, alive for the request (see above).
                unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
                // Only http and https, also after a redirect (which is not followed anyway).
                // SAFETY: a `long` option.
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS)))
                if tls.insecure {
                    // SAFETY: `long` options.
                    unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 0))
                    // SAFETY: a `long` option.
                    unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 0))
                } else if let caFile = tls.caFile {
                    // SAFETY: CURLOPT_CAINFO takes a C string; libcurl copies it.
                    unsafe caFile.withCString { unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_CAINFO, $0)) }
                }
                if let user {
                    // SAFETY: CURLOPT_HTTPAUTH with the `long` CURLAUTH_BASIC (set by the C wrapper).
                    unsafe set(chatcap_curl_use_basic_auth(handle))
                    // SAFETY: CURLOPT_USERNAME takes a C string; libcurl copies it.
                    unsafe user.withCString { unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_USERNAME, $0)) }
                    // SAFETY: CURLOPT_PASSWORD takes a C string; libcurl copies it.
                    unsafe (password ?? "").withCString {
                        unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_PASSWORD, $0))
                    }
                }
                guard setup == CURLE_OK else { return setup }
                // SAFETY: every pointer option set above is alive for the call (see above); the write
                // callback runs on this thread, inside the call.
                return unsafe chatcap_curl_easy_perform(handle)
            }
        }
        guard status == CURLE_OK else {
            // SAFETY: libcurl writes a NUL-terminated message of at most CURL_ERROR_SIZE bytes into the
            // error buffer (zeroed before the request, so empty when it wrote none).
            let detail = unsafe String(cString: errorBuffer)
            // SAFETY: `curl_easy_strerror` returns a static NUL-terminated string, copied at once.
            let reason = detail.isEmpty ? unsafe String(cString: chatcap_curl_easy_strerror(status)) : detail
            throw Failure.unreachable(reason)
        }
        var code = 0
        // SAFETY: CURLINFO_RESPONSE_CODE writes a `long` (Int) into `code`, valid for the call.
        _ = unsafe chatcap_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return Response(status: code, body: sink.bytes, truncated: sink.truncated)
    }

    /// libcurl's write callback: appends the answer's bytes to the ``ResponseSink`` in `context`, up
    /// to its limit.
    private static let write: chatcap_curl_write_callback = { data, size, count, context in
        let n = size * count
        // SAFETY: only the optionals are unwrapped; nothing is read yet.
        guard let data = unsafe data, let context = unsafe context else { return n }
        // SAFETY: `context` is CURLOPT_WRITEDATA, the unretained address of the sink `perform` set up,
        // alive while `perform` runs (this callback runs inside it).
        let sink = unsafe Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        if let forward = unsafe sink.forward {
            var status = 0
            // SAFETY: the handle is the one performing (this callback runs inside `perform`);
            // CURLINFO_RESPONSE_CODE writes a `long` into `status`, valid for the call.
            _ = unsafe chatcap_curl_getinfo_long(sink.handle, CURLINFO_RESPONSE_CODE, &status)
            // SAFETY: libcurl hands `n` readable bytes at `data`, valid for this call.
            return unsafe forward(status, UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
        }
        let keep = min(n, max(0, sink.limit - sink.bytes.count))
        if keep < n { sink.truncated = true }
        // SAFETY: libcurl hands `n` readable bytes at `data`; `keep <= n`.
        unsafe sink.bytes.append(
            contentsOf: UnsafeRawBufferPointer(start: data, count: keep).bindMemory(to: UInt8.self))
        return n
    }
}

/// The answer's bytes while libcurl delivers them: kept up to `limit`, or handed to `forward` (a
/// streamed request) with the status read from `handle`.
///
/// `@safe`: `handle` is the client's, alive as long as the client (which owns the sink); `forward` is
/// set only for the length of one request.
@safe
final class ResponseSink {
    let limit: Int
    let handle: UnsafeMutableRawPointer
    var bytes: [UInt8] = []
    var truncated = false
    var forward: ((Int, UnsafeRawBufferPointer) -> Bool)?
    init(limit: Int, handle: UnsafeMutableRawPointer) {
        self.limit = limit
        unsafe self.handle = handle
    }
    func reset() {
        bytes.removeAll(keepingCapacity: true)
        truncated = false
    }
}

@available(*, unavailable)
extension HTTPClient: Sendable {}
@available(*, unavailable)
extension ResponseSink: Sendable {}
