import ChatNet
import ChatTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(20))) struct TLSConnectionTests {
    @Test("with the test CA: the handshake completes and lines go both ways, non-blocking")
    func handshakeAndExchange() throws {
        let bed = try TLSTestBed(certificateFor: "localhost")
        defer { bed.stop() }
        let context = try TLSContext(TLSConfiguration(caFile: bed.caFile))
        // Non-blocking all the way: the connect, the handshake and the write are driven by the loop.
        let address = try #require(SocketAddress.resolve(host: "127.0.0.1", port: bed.port).first)
        let tcp = try TCPConnection.startConnect(to: address)
        let connection = try TLSConnection(over: tcp, host: "localhost", context: context)
        #expect(try tlsExchange(connection, "PING :tmi.twitch.tv") == "vt.hctiwt.imt: GNIP")
        #expect(connection.protocolVersion?.hasPrefix("TLSv1.") == true)
        #expect(try tlsExchange(connection, "CAP REQ :twitch.tv/tags") == "sgat/vt.hctiwt: QER PAC")
        // The server closing the connection is the end of the stream, not an error.
        #expect(try tlsExchange(connection, "CLOSE") == nil)
    }

    @Test("an IP literal is checked against the certificate's IP address (and sends no SNI)")
    func ipLiteral() throws {
        let bed = try TLSTestBed(certificateFor: "localhost")
        defer { bed.stop() }
        let context = try TLSContext(TLSConfiguration(caFile: bed.caFile))
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: bed.port, context: context)
        #expect(try tlsExchange(connection, "abc") == "cba")
    }

    @Test("a certificate for another name fails with a clear name-mismatch error")
    func nameMismatch() throws {
        let bed = try TLSTestBed(certificateFor: "other")
        defer { bed.stop() }
        let context = try TLSContext(TLSConfiguration(caFile: bed.caFile))
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(host: "localhost", port: bed.port, context: context)
        }
        guard case .nameMismatch(let host, _, let reason)? = error else {
            Issue.record("expected a name mismatch, got \(String(describing: error))")
            return
        }
        #expect(host == "localhost")
        #expect(reason.contains("hostname mismatch"))
        let message = "\(error!)"
        #expect(message.contains("does not match the name 'localhost'"))
        #expect(message.contains("127.0.0.1:\(bed.port)"))

        let ipError = #expect(throws: TLSError.self) {
            try TLSConnection.connect(host: "127.0.0.1", port: bed.port, context: context)
        }
        #expect("\(ipError!)".contains("IP address mismatch"))
    }

    @Test("without the CA file the test CA is not trusted: a clear verification error")
    func untrusted() throws {
        let bed = try TLSTestBed(certificateFor: "localhost")
        defer { bed.stop() }
        let context = try TLSContext()
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(host: "localhost", port: bed.port, context: context)
        }
        guard case .untrustedCertificate(_, let code, let reason)? = error else {
            Issue.record("expected an untrusted certificate, got \(String(describing: error))")
            return
        }
        #expect(code == 20)
        #expect(reason == "unable to get local issuer certificate")
        #expect("\(error!)".contains("not trusted"))
    }

    @Test("insecure skips verification (the caller warns loudly)")
    func insecure() throws {
        let bed = try TLSTestBed(certificateFor: "other")
        defer { bed.stop() }
        let context = try TLSContext(TLSConfiguration(insecure: true))
        let connection = try TLSConnection.connect(host: "localhost", port: bed.port, context: context)
        #expect(try tlsExchange(connection, "xyz") == "zyx")
        #expect(TLSConfiguration.insecureWarning.contains("verification is OFF"))
    }

    @Test("an unreadable CA file is a configuration error naming it")
    func missingCAFile() {
        let error = #expect(throws: TLSError.self) {
            try TLSContext(TLSConfiguration(caFile: "/nonexistent/ca.pem"))
        }
        #expect("\(error!)".contains("/nonexistent/ca.pem"))
    }

    @Test("nothing listening: the TCP error comes through")
    func refused() throws {
        let listener = try SocketLoopbackListener()
        let port = listener.port
        listener.close()
        let context = try TLSContext()
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(host: "127.0.0.1", port: port, context: context, timeoutMs: 2_000)
        }
        guard case .socket(let socketError)? = error else {
            Issue.record("expected a socket error, got \(String(describing: error))")
            return
        }
        #expect(socketError.code == ECONNREFUSED)
    }
}
