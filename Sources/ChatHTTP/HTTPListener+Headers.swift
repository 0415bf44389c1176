import CMicroHTTPD

extension HTTPListener {
    /// The block libmicrohttpd asks a ``HTTPBodyStream`` for at most.
    static let streamBlock = 64 * 1024

    /// Queues `response` with its ``HTTPResponse/headers`` (and `Allow`, when set), its body from
    /// ``HTTPResponse/stream`` when it has one: the path of the access handler for responses that
    /// carry more than a content type and a body in memory.
    ///
    /// - Allocations: libmicrohttpd's copy of the body (or its stream buffer) and of each header.
    static func respond(_ connection: OpaquePointer, with response: HTTPResponse) -> MHD_Result {
        let made: OpaquePointer?
        if let stream = response.stream {
            // SAFETY: retained here, released once by `releaseStream` when libmicrohttpd is done with
            // the response (or below when it could not be made).
            let box = unsafe Unmanaged.passRetained(stream)
            // SAFETY: the callbacks are C functions without captures; the context pointer stays valid
            // until `releaseStream` runs; the content type is a NUL-terminated C string for the call.
            unsafe made = unsafe chatcap_http_stream_response(
                streamBlock, readStream, unsafe box.toOpaque(), releaseStream, response.contentType)
            // SAFETY: no response holds the box when none was made.
            if unsafe made == nil { unsafe box.release() }
        } else {
            // SAFETY: the body's buffer is valid for the call and libmicrohttpd copies it
            // (MHD_RESPMEM_MUST_COPY); the content type is a NUL-terminated C string for the call.
            unsafe made = unsafe response.body.withUnsafeBytes { body in
                unsafe chatcap_http_response(body.baseAddress, body.count, response.contentType)
            }
        }
        guard let made = unsafe made else { return chatcap_http_refuse() }
        // SAFETY: `made` is the response created above, not yet queued; the strings are NUL-terminated
        // for each call and copied by libmicrohttpd.
        if let allow = response.allow { _ = unsafe chatcap_http_add_header(made, "Allow", allow) }
        if response.allowsAnyOrigin { _ = unsafe chatcap_http_add_header(made, "Access-Control-Allow-Origin", "*") }
        for header in response.headers { _ = unsafe chatcap_http_add_header(made, header.name, header.value) }
        // SAFETY: the connection is the one of this access call; the queue releases `made`.
        return unsafe chatcap_http_queue(connection, UInt32(response.status), made)
    }

    /// libmicrohttpd's content reader: the next block of a ``HTTPBodyStream``, the end of the body, or
    /// (a negative answer) its end with an error: the connection is closed, the body left unfinished.
    private static let readStream: MHD_ContentReaderCallback = { context, _, buffer, max in
        // SAFETY: the context is the stream retained in `respond`, valid until `releaseStream`;
        // `buffer` holds `max` writable bytes for this call.
        guard let context = unsafe context, let buffer = unsafe buffer else { return chatcap_http_end_of_stream() }
        let stream = unsafe Unmanaged<HTTPBodyStream>.fromOpaque(context).takeUnretainedValue()
        let n = unsafe stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
        if n < 0 { return chatcap_http_end_with_error() }
        return n > 0 ? min(n, max) : chatcap_http_end_of_stream()
    }

    /// libmicrohttpd's free callback: the response is done with its stream.
    private static let releaseStream: MHD_ContentReaderFreeCallback = { context in
        // SAFETY: the context is the stream retained once in `respond`; this is its one release.
        guard let context = unsafe context else { return }
        unsafe Unmanaged<HTTPBodyStream>.fromOpaque(context).release()
    }
}
