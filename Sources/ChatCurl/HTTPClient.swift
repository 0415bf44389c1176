import CCurl

/// One HTTP client over the system libcurl's easy interface: POSTs a body and collects the answer.
/// The handle (and so its connection, kept alive between requests) is reused.
///
/// Confined to the loader's thread. Credentials are handed to libcurl as basic authentication and
/// never appear in a URL, a message or an error.
@safe
final class HTTPPost {
    /// What the server answered.
    struct Response {
        var status: Int
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let handle: UnsafeMutableRawPointer
    /// libcurl's detail for the last failure (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The answer being received, appended to by the write callback.
    private let sink = ResponseSink()

    /// - Throws: ``LoadError/http(_:)`` when libcurl cannot be loaded (it is opened at run time, for
    ///   `load` only: the Debian package `libcurl4`) or cannot start.
    init() throws(LoadError) {
        guard Self.libcurlLoaded else {
            let reason = unsafe String(cString: chatcap_curl_load_error())
            throw LoadError.http("libcurl could not be loaded (\(reason)); install libcurl4")
        }
        guard Self.globalInit == CURLE_OK, let handle = unsafe chatcap_curl_easy_init() else {
            throw LoadError.http("curl_easy_init failed")
        }
        unsafe self.handle = handle
        unsafe errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        unsafe errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        unsafe chatcap_curl_easy_cleanup(handle)
        unsafe errorBuffer.deallocate()
    }

    /// libcurl opened and its functions found, once per process.
    private static let libcurlLoaded = chatcap_curl_load() == 1
    /// `curl_global_init`, once per process, before any handle (libcurl asks for it before threads
    /// start). Evaluated only once ``libcurlLoaded``.
    private static let globalInit: CURLcode = chatcap_curl_global_init()

    /// POSTs `body` to `url` with `headers` (`Name: value`).
    ///
    /// - Parameters:
    ///   - timeoutMs: the whole request's limit; `connectTimeoutMs` the connection's.
    /// - Returns: the status and body of the answer, whatever the status.
    /// - Throws: ``LoadError/unreachable(url:reason:)`` (shown with `shownURL`) when no answer came.
    /// - Allocations: the header list and the answer's bytes.
    func post(
        url: String, shownURL: String, body: [UInt8], headers: [String], user: String?, password: String?,
        timeoutMs: Int, connectTimeoutMs: Int
    ) throws(LoadError) -> Response {
        unsafe chatcap_curl_easy_reset(handle)
        sink.bytes.removeAll(keepingCapacity: true)
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for header in headers { unsafe list = chatcap_curl_slist_append(list, header) }
        defer { unsafe chatcap_curl_slist_free_all(list) }
        unsafe errorBuffer[0] = 0
        let context = unsafe Unmanaged.passUnretained(sink).toOpaque()
        let status: CURLcode = unsafe url.withCString { urlText in
            unsafe body.withUnsafeBytes { raw in
                var setup = unsafe chatcap_curl_setopt_pointer(handle, CURLOPT_URL, urlText)
                func set(_ code: CURLcode) { if setup == CURLE_OK { setup = code } }
                unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_POST, 1))
                unsafe set(
                    chatcap_curl_setopt_pointer(
                        handle, CURLOPT_POSTFIELDS, raw.baseAddress ?? UnsafeRawPointer(errorBuffer)))
                unsafe set(chatcap_curl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(raw.count)))
                unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, list))
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs))
                unsafe set(chatcap_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMs))
                unsafe set(chatcap_curl_setopt_write(handle, HTTPPost.write))
                unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context))
                if let user {
                    unsafe set(chatcap_curl_use_basic_auth(handle))
                    unsafe user.withCString { unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_USERNAME, $0)) }
                    unsafe (password ?? "").withCString {
                        unsafe set(chatcap_curl_setopt_pointer(handle, CURLOPT_PASSWORD, $0))
                    }
                }
                guard setup == CURLE_OK else { return setup }
                return unsafe chatcap_curl_easy_perform(handle)
            }
        }
        guard status == CURLE_OK else {
            let detail = unsafe String(cString: errorBuffer)
            let reason = detail.isEmpty ? unsafe String(cString: chatcap_curl_easy_strerror(status)) : detail
            throw LoadError.unreachable(url: shownURL, reason: reason)
        }
        var code = 0
        _ = unsafe chatcap_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return Response(status: code, body: sink.bytes)
    }

    /// libcurl's write callback: appends the answer's bytes to the ``ResponseSink`` in `context`.
    private static let write: chatcap_curl_write_callback = { data, size, count, context in
        let n = size * count
        guard let data = unsafe data, let context = unsafe context else { return n }
        let sink = unsafe Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        // Keep at most 64 KiB of an answer: it is an error message or an empty body.
        let keep = min(n, max(0, 65_536 - sink.bytes.count))
        unsafe sink.bytes.append(
            contentsOf: UnsafeRawBufferPointer(start: data, count: keep).bindMemory(to: UInt8.self))
        return n
    }
}

/// The answer's bytes while libcurl delivers them.
final class ResponseSink {
    var bytes: [UInt8] = []
}

@available(*, unavailable)
extension HTTPPost: Sendable {}
@available(*, unavailable)
extension ResponseSink: Sendable {}
