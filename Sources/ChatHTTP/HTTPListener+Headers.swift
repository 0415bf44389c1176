import CMicroHTTPD

extension HTTPListener {
    /// Queues `response` with its ``HTTPResponse/headers`` (and `Allow`, when set): the path of the
    /// access handler for responses that carry more than a content type.
    ///
    /// - Allocations: libmicrohttpd's copy of the body and of each header.
    static func respond(_ connection: OpaquePointer, with response: HTTPResponse) -> MHD_Result {
        // SAFETY: the body's buffer is valid for the call and libmicrohttpd copies it
        // (MHD_RESPMEM_MUST_COPY); the content type is a NUL-terminated C string for the call.
        let made = unsafe response.body.withUnsafeBytes { body in
            unsafe chatcap_http_response(body.baseAddress, body.count, response.contentType)
        }
        guard let made = unsafe made else { return chatcap_http_refuse() }
        // SAFETY: `made` is the response created above, not yet queued; the strings are NUL-terminated
        // for each call and copied by libmicrohttpd.
        if let allow = response.allow { _ = unsafe chatcap_http_add_header(made, "Allow", allow) }
        for header in response.headers { _ = unsafe chatcap_http_add_header(made, header.name, header.value) }
        // SAFETY: the connection is the one of this access call; the queue releases `made`.
        return unsafe chatcap_http_queue(connection, UInt32(response.status), made)
    }
}
