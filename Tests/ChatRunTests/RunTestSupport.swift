import ChatPosix
import ChatRun
import ChatServe
import ChatTestSupport
import Foundation
import Synchronization

/// ChatServe's stand-in server on a thread of its own on 127.0.0.1, looping a fixture at 20x.
final class StandInServer: Sendable {
    let port: UInt16
    private let handle: ServeStopHandle
    private let finished = DispatchSemaphore(value: 0)

    init() throws {
        let started = Mutex<Result<(UInt16, ServeStopHandle), ServeError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let finished = finished
        let path = Fixtures.root + "/Fixtures/lines/privmsg.irc"
        let thread = Thread {
            defer { finished.signal() }
            let server: ChatServer
            do throws(ServeError) {
                server = try ChatServer(
                    arguments: [path], options: ServeOptions(port: 0, speed: 20, loop: true)
                ) { _ in }
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            started.withLock { $0 = .success((server.port, server.stopHandle)) }
            ready.signal()
            try? server.run()
        }
        thread.start()
        ready.wait()
        (port, handle) = try started.withLock { $0 }!.get()
    }

    func stop() {
        handle.stop()
        finished.wait()
    }
}

/// What the run wrote on its console.
final class RunConsoleRecorder: Sendable {
    private let text = Mutex("")
    var console: RunConsole { RunConsole { line in self.text.withLock { $0 += line } } }
    var said: String { text.withLock { $0 } }
}
