import ChatNet
import ChatServe
import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `ChatServer` with `--tls-cert/--tls-key`: a throwaway CA and server certificate made with the
/// `openssl` CLI, and the client ``TLSConnection`` verifying against that CA.
@Suite(.timeLimit(.minutes(20))) struct ServeTLSTests {
    /// A server replaying `privmsg.irc` over TLS with the PKI's `localhost` certificate.
    static func tlsServer(_ pki: TLSTestPKI) throws -> ServeHarness {
        let (cert, key) = pki.certificate("localhost")
        return try ServeHarness(
            ["Fixtures/lines/privmsg.irc"],
            options: ServeOptions(port: 0, speed: nil, keepTime: true, tls: ServeTLSFiles(certificate: cert, key: key)))
    }

    @Test("over TLS the handshake verifies against the test CA and the replay arrives")
    func servesOverTLS() throws {
        let pki = try TLSTestPKI()
        defer { pki.remove() }
        let server = try Self.tlsServer(pki)
        defer { server.stop() }
        let context = try TLSContext(TLSConfiguration(caFile: pki.caFile))
        let connection = try TLSConnection.connect(host: "localhost", port: server.port, context: context)
        #expect(connection.protocolVersion?.hasPrefix("TLSv1.") == true)
        let client = try ServeTestClient(connection)
        #expect(try client.login().last?.hasSuffix(":tmi.twitch.tv GLOBALUSERSTATE") == true)
        #expect(try client.join("pixelharbor").count == 5, "JOIN, 353, 366, USERSTATE, ROOMSTATE")
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        #expect(try client.lines(expected.count) == expected)
        try client.send("PING :tls")
        #expect(try client.line() == ":tmi.twitch.tv PONG tmi.twitch.tv :tls")
    }

    @Test("a plain-text client on the TLS port is dropped with a handshake error; the server goes on")
    func plainClientOnTLSPort() throws {
        let pki = try TLSTestPKI()
        defer { pki.remove() }
        let server = try Self.tlsServer(pki)
        defer { server.stop() }
        let plain = try ServeTestClient(port: server.port)
        // The server hangs up (an unread byte may turn its close into a reset, which a busy machine
        // may see already while sending): either ends the stream.
        var hungUp = false
        do {
            try plain.send("NICK justinfan1")
            _ = try plain.drain(forMs: 1_000)
            hungUp = plain.ended
        } catch let error as SocketError {
            hungUp = error.code == ECONNRESET
        }
        #expect(hungUp)
        #expect(server.waitForReport(containing: "TLS handshake with") != nil, "\(server.reports)")
        let context = try TLSContext(TLSConfiguration(caFile: pki.caFile))
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: server.port, context: context)
        let client = try ServeTestClient(connection)
        #expect(try client.login().count == 9, "CAP ACK, 001–004, 375, 372, 376, GLOBALUSERSTATE")
    }

    @Test("an unreadable certificate, a non-PEM key and a key of another certificate are clear TLS errors")
    func badFiles() throws {
        let pki = try TLSTestPKI()
        defer { pki.remove() }
        let (cert, key) = pki.certificate("localhost")
        let (_, otherKey) = pki.certificate("other")
        let cases: [(ServeTLSFiles, String)] = [
            (ServeTLSFiles(certificate: pki.directory + "/missing.pem", key: key), "cannot read the certificate file"),
            (ServeTLSFiles(certificate: cert, key: pki.directory + "/localhost.ext"), "cannot load the private key"),
            (ServeTLSFiles(certificate: cert, key: otherKey), "does not belong to the certificate"),
        ]
        for (files, text) in cases {
            let error = #expect(throws: ServeError.self) {
                try ServeHarness(["Fixtures/lines/privmsg.irc"], options: ServeOptions(port: 0, tls: files))
            }
            guard case .tls(let message)? = error else {
                Issue.record("expected a TLS error, got \(String(describing: error))")
                continue
            }
            #expect(message.contains(text), "\(message)")
        }
    }
}
