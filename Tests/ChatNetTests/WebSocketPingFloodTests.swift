import ChatNet
import Foundation
import Glibc
import IRCWire
import Testing
import WebSocketWire

/// A peer that sends PINGs and never reads (issue 24): the pongs cannot pile up in the queue.
@Suite(.timeLimit(.minutes(20))) struct WebSocketPingFloodTests {
    /// A masked ping whose 125-byte payload starts with its number.
    static func ping(_ number: Int) -> [UInt8] {
        let text = "ping \(number) "
        return frame(.ping, Array((text + String(repeating: "x", count: 125 - text.utf8.count)).utf8), key: key)
    }

    @Test(
        "20,000 pings unread: the queue holds one pong, the rest are owed and counted; then one pong answers the last")
    func coalescedPongs() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(open: pair.connection, role: .server, peer: "socketpair")
        _ = fcntl(pair.peer, F_SETFL, fcntl(pair.peer, F_GETFL) | O_NONBLOCK)
        var framer = LineFramer()
        var pending: [UInt8] = []
        var next = 0
        let total = 20_000
        while next < total || !pending.isEmpty {
            while pending.count < 64 * 1024 && next < total {
                pending += Self.ping(next)
                next += 1
            }
            let written = write(pair.peer, pending, pending.count)
            if written > 0 { pending.removeFirst(written) }
            _ = try readLines(stream, &framer)
        }
        while case .bytes = try stream.read(into: &framer) {}
        _ = try readLines(stream, &framer)
        // What waits below is at most the pong that filled the socket and the one held: 2 × 127 bytes.
        let queued = stream.pendingWriteCount - stream.owedPongBytes
        #expect(queued > 0 && queued <= 2 * 127, "\(queued) bytes queued")
        #expect(stream.owedPongBytes > 1 << 20, "owed \(stream.owedPongBytes): past a 1 MiB bound, the owner closes")
        #expect(stream.owedPongBytes % 127 == 0)

        // The peer reads at last: the pongs written, then the held one, which answers the last ping.
        var received: [UInt8] = []
        for _ in 0..<10_000 {
            _ = try stream.flush()
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(pair.peer, &chunk, chunk.count)
            if count > 0 { received += chunk[..<count] } else if stream.pendingWriteCount == 0 { break }
        }
        #expect(stream.pendingWriteCount == 0 && stream.owedPongBytes == 0)
        #expect(received.count % 127 == 0 && received.count / 127 < total, "\(received.count / 127) pongs")
        let last = Array(received.suffix(127))
        #expect(last[0] == 0x8A && last[1] == 125)
        #expect(String(decoding: last[2...].prefix(11), as: UTF8.self) == "ping \(total - 1) ")
    }
}
