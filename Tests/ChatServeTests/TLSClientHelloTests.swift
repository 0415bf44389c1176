import Glibc
import Testing

@testable import ChatServe

/// Serve's recognition of a TLS client on its plain port (``TLSClientHello``).
@Suite struct TLSClientHelloTests {
    @Test("a handshake record is TLS; an IRC line, a lone 0x16 or another record version is not")
    func starts() {
        #expect(TLSClientHello.starts([0x16, 0x03, 0x01, 0x02, 0x00]))
        #expect(!TLSClientHello.starts(Array("NICK justinfan1\r\n".utf8)))
        #expect(!TLSClientHello.starts([0x16]))
        #expect(!TLSClientHello.starts([0x16, 0x02]))
        #expect(!TLSClientHello.starts([]))
    }

    @Test("peeked on a socket: nothing taken, nil until two bytes came (unless the first is not 0x16)")
    func waiting() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        #expect(TLSClientHello.waiting(on: ends[0]) == nil)
        _ = write(ends[1], [UInt8(0x16)], 1)
        #expect(TLSClientHello.waiting(on: ends[0]) == nil)
        _ = write(ends[1], [UInt8(0x03)], 1)
        #expect(TLSClientHello.waiting(on: ends[0]) == true)
        var got = [UInt8](repeating: 0, count: 4)
        #expect(read(ends[0], &got, 4) == 2, "the bytes are still there to read")
        _ = write(ends[1], Array("N".utf8), 1)
        #expect(TLSClientHello.waiting(on: ends[0]) == false)
    }
}
