import ChatHTTP
import ChatLogStore
import ChatLogs
import ChatPosix
import ChatRun
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// `chatcap logs`' run: the opt-out file read and reloaded (a bad file keeps the list in force), and
/// the answering loop that ends on the stop flag with the listener stopped.
@Suite(.timeLimit(.minutes(5))) struct LogsRunTests {
    static func service(in dir: String, optOut: OptOutList = OptOutList()) -> LogsService {
        LogsService(
            store: DirectoryStore(archive: LogArchive(root: dir), now: { Timestamp(milliseconds: 0) }),
            maxAnswerBytes: 1 << 20, bounds: LogsBounds(), optOut: optOut, now: { Timestamp(milliseconds: 0) })
    }

    @Test("an opt-out file is read, and a missing or bad one is said with the option and the file")
    func readOptOut() throws {
        let temp = try InputTempDirectory()
        let dir = temp.path
        let path = dir + "/optout.txt"
        try "# opted out\r\nLunaFrost\r\n12345\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        let list = try LogsRun.readOptOut(path)
        #expect(list.logins == ["lunafrost"] && list.ids == ["12345"])
        #expect(throws: LogsRun.OptOutFailure.self) { try LogsRun.readOptOut(dir + "/missing.txt") }
        do {
            _ = try LogsRun.readOptOut(dir + "/missing.txt")
        } catch {
            #expect(error.description.hasPrefix("cannot read --opt-out \(dir)/missing.txt"), "\(error)")
        }
        try "ok\nnot a login!\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try LogsRun.readOptOut(path)
            Issue.record("a bad line was taken")
        } catch {
            #expect(
                error.description
                    == "--opt-out \(path): line 2: 'not a login!' is neither a login nor a numeric user id")
        }
    }

    @Test("a reload puts the file's list in force; a bad file keeps the list in force and says why")
    func reload() throws {
        let temp = try InputTempDirectory()
        let dir = temp.path
        let path = dir + "/optout.txt"
        let service = Self.service(in: dir, optOut: try OptOutList(parsing: "first"))
        let recorder = RunConsoleRecorder()
        try "second\nthird\n42\n".write(toFile: path, atomically: true, encoding: .utf8)
        LogsRun.reload(path, into: service, console: recorder.console)
        #expect(service.optOut == (try OptOutList(parsing: "second\nthird\n42")))
        #expect(recorder.said == "chatcap: opt-out reloaded: 2 logins, 1 ids\n")
        try "fourth\n#!\n-bad-\n".write(toFile: path, atomically: true, encoding: .utf8)
        LogsRun.reload(path, into: service, console: recorder.console)
        #expect(service.optOut == (try OptOutList(parsing: "second\nthird\n42")), "the list in force stays")
        #expect(recorder.said.hasSuffix("; the opt-out list in force stays\n"), "\(recorder.said)")
        #expect(recorder.said.contains("chatcap: warning: --opt-out \(path): line 3"), "\(recorder.said)")
    }

    @Test("serve answers until the stop flag is raised, then stops the listener")
    func serveUntilStopped() throws {
        let temp = try InputTempDirectory()
        let dir = temp.path
        let service = Self.service(in: dir)
        var router = HTTPRouter()
        service.install(into: &router, standalone: true)
        let listener = try HTTPListener(host: "127.0.0.1", port: 0, router: router)
        let stop = StopFlag()
        let ended = DispatchSemaphore(value: 0)
        let port = listener.port
        Thread {
            LogsRun.serve(
                listener, service: service, optOutFile: nil, stop: stop, console: RunConsoleRecorder().console)
            ended.signal()
        }.start()
        let answered = try InputShell.run("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/channels")
        #expect(answered.output == Array("200".utf8), "\(String(decoding: answered.output, as: UTF8.self))")
        #expect(ended.wait(timeout: .now() + 0.3) == .timedOut, "serve ended before the stop flag")
        stop.raise()
        #expect(ended.wait(timeout: .now() + 30) == .success, "serve did not end on the stop flag")
        let after = try InputShell.run("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/channels")
        #expect(after.output == Array("000".utf8), "the listener still answers after serve ended")
    }

    @Test("with a directory store to index, serve builds the month indexes ahead, says so, and still stops on the flag")
    func indexesAhead() throws {
        let temp = try InputTempDirectory()
        let dir = temp.path
        let line =
            "@time=2025-11-20T10:00:00.000Z;badges=;display-name=Bob;id=m1;room-id=1001;tmi-sent-ts=1763632800000;"
            + "user-id=2001 :bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :hello\r\n"
        try temp.write("alpha/2025-11-20.log", Array(line.utf8))
        _ = try InputShell.run("gzip " + InputShell.quote(dir + "/alpha/2025-11-20.log"))
        let store = DirectoryStore(archive: LogArchive(root: dir), now: { Timestamp(milliseconds: 1_764_400_000_000) })
        let service = LogsService(
            store: store, maxAnswerBytes: 1 << 20, bounds: LogsBounds(), now: { Timestamp(milliseconds: 0) })
        var router = HTTPRouter()
        service.install(into: &router, standalone: true)
        let listener = try HTTPListener(host: "127.0.0.1", port: 0, router: router)
        let stop = StopFlag()
        let ended = DispatchSemaphore(value: 0)
        let recorder = RunConsoleRecorder()
        Thread {
            LogsRun.serve(
                listener, service: service, optOutFile: nil, stop: stop, console: recorder.console, indexing: store)
            ended.signal()
        }.start()
        let manifest = dir + "/.chatcap-index/alpha/2025-11/manifest"
        var waited = 0
        while !FileManager.default.fileExists(atPath: manifest) && waited < 30_000 {
            usleep(20_000)
            waited += 20
        }
        #expect(FileManager.default.fileExists(atPath: manifest), "no index built ahead in 30 s")
        stop.raise()
        #expect(ended.wait(timeout: .now() + 30) == .success, "serve did not end on the stop flag")
        #expect(recorder.said.hasPrefix("chatcap: month index: built 1 in "), "\(recorder.said)")
    }
}
