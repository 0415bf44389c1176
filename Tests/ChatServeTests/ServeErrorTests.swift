import ChatInput
import ChatNet
import ChatPosix
import ChatServe
import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `ChatServer` start-up errors: inputs, a port in use.
@Suite(.timeLimit(.minutes(20))) struct ServeErrorTests {
    @Test("a missing input is the MergeReader's notFound error")
    func missingInput() throws {
        let error = #expect(throws: ServeError.self) {
            try ChatServer(arguments: ["/nonexistent/chat.irc"], options: ServeOptions(port: 0)) { _ in }
        }
        #expect(error == .input(.notFound(path: "/nonexistent/chat.irc")))
        #expect(error?.description == "/nonexistent/chat.irc: no such file or directory")
    }

    @Test("a port another socket listens on is a clear network error with EADDRINUSE")
    func portInUse() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let error = #expect(throws: ServeError.self) {
            try ChatServer(
                arguments: ["Fixtures/lines/privmsg.irc"].map { Fixtures.root + "/" + $0 },
                options: ServeOptions(port: listener.port)
            ) { _ in }
        }
        guard case .network(let socketError)? = error else {
            Issue.record("expected a network error, got \(String(describing: error))")
            return
        }
        #expect(socketError.code == EADDRINUSE)
        #expect(socketError.message.contains("bind 127.0.0.1:\(listener.port)"))
        #expect(socketError.message.contains("Address already in use"))
    }
}
