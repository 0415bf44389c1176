extension HTTPListener {
    /// `response` as the bytes of a whole HTTP/1.1 response that closes its connection: what the
    /// listener writes itself, without libmicrohttpd, to a connection past its limit (``HTTPRouter/busy``,
    /// with `Retry-After`) or whose request head is too big (``HTTPRouter/uriTooLong``,
    /// ``HTTPRouter/headersTooLarge``).
    ///
    /// - Complexity: O(body). - Allocations: the bytes (once, at start).
    static func wire(_ response: HTTPResponse) -> [UInt8] {
        let reason =
            switch response.status {
            case 503: "Service Unavailable"
            case 429: "Too Many Requests"
            case 414: "URI Too Long"
            case 431: "Request Header Fields Too Large"
            default: "Error"
            }
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nContent-Type: \(response.contentType)\r\n"
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n"
        if response.status == 503 || response.status == 429 { head += "Retry-After: 1\r\n" }
        if response.allowsAnyOrigin { head += "Access-Control-Allow-Origin: *\r\n" }
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        return Array((head + "\r\n").utf8) + response.body
    }
}
