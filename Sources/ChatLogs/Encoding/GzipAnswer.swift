import ChatGzip
public import ChatHTTP
import ChatLogStore

/// An answer sent with `Content-Encoding: gzip` to a client that accepts it, as rustlog's
/// `CompressionLayer` (`src/web/mod.rs`, `CompressionLevel::Fastest`) sends it: ISA-L's fastest level
/// (ChatGzip's ``GzipStream``), a streamed answer compressed block by block as it is sent.
public enum GzipAnswer: Sendable {
    /// Whether an `Accept-Encoding` header value accepts gzip: a `gzip`, `x-gzip` or `*` coding whose
    /// `q` is not 0.
    ///
    /// - Complexity: O(header length).
    public static func accepts(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.lowercased().split(separator: ",") {
            let fields = part.split(separator: ";").map { field in
                field.filter { $0 != " " && $0 != "\t" }
            }
            guard let coding = fields.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let refused = fields.dropFirst().contains { field in
                field.hasPrefix("q=") && Double(field.dropFirst(2)) == 0
            }
            if !refused { return true }
        }
        return false
    }

    /// `response` compressed, with `Content-Encoding: gzip`; a response without a body (a redirect) or
    /// not a 200 as it is. When the compressor cannot start (out of memory) the answer goes out plain.
    ///
    /// - Allocations: the compressor (about 400 KiB of ISA-L state) per answer; a body's compressed
    ///   copy, or a stream's 64 KiB block and its compressed output.
    public static func compressed(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status == 200, response.stream != nil || !response.body.isEmpty,
            let gzip = try? GzipStream()
        else { return response }
        var out = response
        out.headers.append(HTTPHeader("Content-Encoding", "gzip"))
        if let inner = response.stream {
            let pump = Pump(inner, gzip)
            // SAFETY: `fill` writes only inside the buffer it is handed (Pump.fill).
            out.stream = unsafe HTTPBodyStream { unsafe pump.fill($0) }
        } else {
            var body: [UInt8] = []
            gzip.compress(response.body.span, into: &body)
            gzip.finish(into: &body)
            out.body = body
        }
        return out
    }

    /// Pulls the plain body block by block and hands out its compressed bytes. Confined to the
    /// connection's thread, as the stream it wraps.
    private final class Pump {
        let inner: HTTPBodyStream
        let gzip: GzipStream
        var plain = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: [UInt8] = []
        var sent = 0
        var ended = false

        init(_ inner: HTTPBodyStream, _ gzip: GzipStream) {
            self.inner = inner
            self.gzip = gzip
        }

        func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            while pending.count - sent < buffer.count && !ended {
                if sent > 0 {
                    pending.removeFirst(sent)
                    sent = 0
                }
                // SAFETY: the block's buffer is valid for the closure; `read` writes at most its count.
                let n = unsafe plain.withUnsafeMutableBytes { unsafe inner.read(into: $0) }
                if n > 0 {
                    // A local, whose span may be lent for the call (no copy: nothing writes the block meanwhile).
                    let block = plain
                    gzip.compress(block.span.extracting(0..<min(n, block.count)), into: &pending)
                } else {
                    gzip.finish(into: &pending)
                    ended = true
                }
            }
            let n = min(buffer.count, pending.count - sent)
            guard n > 0, let target = buffer.baseAddress else { return 0 }
            unsafe pending.withUnsafeBytes { source in
                // SAFETY: `sent + n <= pending.count` and `n <= buffer.count` (the `min` above).
                unsafe target.copyMemory(from: source.baseAddress! + sent, byteCount: n)
            }
            sent += n
            return n
        }
    }
}
