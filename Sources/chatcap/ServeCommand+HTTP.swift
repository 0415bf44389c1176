import ArgumentParser
import ChatHTTP
import ChatServe

extension ServeCommand {
    /// The checks of serve's HTTP options against the rest (called from `validate()`).
    func validateHTTP() throws {
        if renamedHistory != nil {
            throw ValidationError(
                "serve's --recent-messages-limit is now --http-history (lines kept per channel), as on capture and tail"
            )
        }
        guard let httpPort = http.httpPort else {
            if httpHistory != nil { throw ValidationError("--http-history applies only with --http-port") }
            return
        }
        if httpPort != 0 && (httpPort == port || httpPort == wsPort) {
            throw ValidationError("--http-port must differ from --port and --ws-port (\(httpPort))")
        }
        if fromStart {
            throw ValidationError(
                "--http-port answers from the one timeline every client shares; --from-start gives each client its own")
        }
    }

    /// Starts the HTTP listener of `--http-port` over `server`'s history, or answers `nil` without it.
    ///
    /// - Throws: `ExitCode(.ioErr)` (said on stderr) when the address cannot be bound.
    func startHTTP(for server: ChatServer) throws -> HTTPListener? {
        guard let port = http.httpPort, let history = server.history else { return nil }
        var router = HTTPRouter()
        RecentMessagesEndpoint(store: history.store, bound: history.limit) { history.isJoined($0) }
            .install(in: &router)
        do {
            return try HTTPListener(host: http.host, port: UInt16(port), router: router)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
    }
}
