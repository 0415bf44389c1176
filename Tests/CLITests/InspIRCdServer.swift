import ChatTestSupport
import Foundation
import Testing

/// A real InspIRCd (Debian's package, through `Scripts/inspircd_test_server.sh`) on two
/// kernel-chosen loopback ports, plain and TLS, stopped by PID.
///
/// InspIRCd keeps running when one of its `<bind>` ports is taken and only logs it, so a port that
/// another process holds would send the test's clients to that process instead. `start` therefore
/// waits until InspIRCd's log names both listeners and throws, with the log, when it reports one
/// it could not open. It runs in `dir` (`ircd/`), so nothing it writes lands in the repository.
final class InspIRCdServer {
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    let process = Process()
    let plain: Int
    let tls: Int
    let log: String

    /// Starts InspIRCd with its config and log in `dir`, PINGing clients every `pingSeconds`.
    /// `plain` and `tls` choose the ports; by default the kernel picks free ones.
    init(in dir: String, certificate: String, key: String, pingSeconds: Int, plain: Int? = nil, tls: Int? = nil)
        throws
    {
        self.plain = try plain ?? Int(SocketLoopbackListener.freePort())
        var other = try tls ?? Int(SocketLoopbackListener.freePort())
        while other == self.plain { other = Int(try SocketLoopbackListener.freePort()) }
        self.tls = other
        log = dir + "/ircd/ircd.log"
        process.executableURL = URL(fileURLWithPath: Fixtures.root + "/Scripts/inspircd_test_server.sh")
        process.arguments = ["\(dir)/ircd", "\(self.plain)", "\(self.tls)", certificate, key, "\(pingSeconds)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do { try waitForListeners() } catch {
            stop()
            throw error
        }
    }

    /// Polls the log (for up to 10 s) until it reports a listener on both ports.
    private func waitForListeners() throws {
        let deadline = Date().addingTimeInterval(10)
        var text = ""
        while Date() < deadline {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("Failed to listen") }) {
                throw StartFailure(description: "InspIRCd could not open a port: \(line)")
            }
            let added = [plain, tls].filter { text.contains("Added a listener on 127.0.0.1:\($0) ") }
            if added.count == 2 { return }
            if !process.isRunning { break }
            usleep(50_000)
        }
        throw StartFailure(description: "InspIRCd did not report both listeners; its log:\n\(text)")
    }

    /// A server let go without ``stop()`` is stopped too: an orphaned InspIRCd outlives the test run,
    /// and the SIGTERM that ends it at last makes Debian's 3.15 dump core in its working directory.
    deinit { stop() }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
