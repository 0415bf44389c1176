/// A response body produced as it is sent: libmicrohttpd asks for it block by block (chunked
/// transfer, size unknown), so a long answer starts at once and is never held whole.
///
/// `fill` writes at most `buffer.count` bytes into `buffer` and answers how many; 0 ends the body, a
/// negative number ends it with an error (the listener closes the connection: the client sees the body
/// cut off, never a shorter body that looks complete).
/// It is called on its connection's thread only (libmicrohttpd's thread per connection), one call at
/// a time, until it answers 0 or the client goes away (then the stream is released without being read
/// to its end). A slow `fill` (a body read from disk) holds that connection only.
///
/// `@unchecked Sendable`: a response crosses from the route to the listener on the connection's own
/// thread (the access handler runs there), and that thread is the only one that calls `fill`; what
/// `fill` captures is confined to that thread.
///
/// `@safe`: `fill` writes only inside the buffer it is handed (its contract), and the stream hands it
/// only the listener's buffer or its own.
@safe
public final class HTTPBodyStream: @unchecked Sendable, Equatable {
    private let fill: (UnsafeMutableRawBufferPointer) -> Int

    public init(_ fill: @escaping (UnsafeMutableRawBufferPointer) -> Int) {
        unsafe self.fill = fill
    }

    /// The next bytes of the body into `buffer`; 0 at its end, negative when it cannot be finished.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard buffer.count > 0 else { return 0 }
        // SAFETY: `buffer` is the caller's, valid for the call; `fill` writes at most `buffer.count` bytes.
        return unsafe fill(buffer)
    }

    /// The rest of the body, read to its end (or up to an error) in blocks of `block` bytes: for tests
    /// and callers that want it whole.
    ///
    /// - Allocations: the bytes, and one block.
    public func drain(block: Int = 64 * 1024) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: block)
        while true {
            // SAFETY: the chunk's buffer is valid for the closure; `read` writes at most its count.
            let n = unsafe chunk.withUnsafeMutableBytes { unsafe read(into: $0) }
            if n <= 0 { return out }
            out += chunk[0..<min(n, block)]
        }
    }

    /// Streams are equal only to themselves.
    public static func == (a: HTTPBodyStream, b: HTTPBodyStream) -> Bool { a === b }
}
