import ArgumentParser
import ChatIO
import IRCWire

#if canImport(Glibc)
import Glibc
#endif

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Archive Twitch chat to rotating gzip files that survive crashes.",
        discussion: """
            Writes DIR/<channel>/<YYYY-MM-DD>.log.gz (UTC) per channel, each line as received with an IRCv3 \
            time tag (receive time) added first, and DIR/_session/<YYYY-MM-DD>.log.gz with the lines that \
            have no channel and our own CAPTURE records (connections, joins, gaps). Files are flushed at \
            least every 0.5 s, so after a crash everything received before is readable by zcat and replay; \
            a restart appends a new gzip member. Writes are synchronous: a slow disk stops reading the \
            socket instead of growing memory. SIGINT/SIGTERM close every file and exit 0; a write error \
            (e.g. disk full) names the file and exits 74.
            """)

    enum StatusMode: String, ExpressibleByArgument, CaseIterable {
        case auto, json, none
    }

    @Argument(help: "Channels to join (logins, with or without #).")
    var channels: [String]

    @Option(help: "Directory to write the capture into (created if missing).")
    var dir: String

    @Option(help: "Rotate files daily, hourly, or at a size such as 100M (also daily).")
    var rotate = "daily"

    @Flag(help: "Store the received bytes unchanged, without the added time tag.")
    var verbatim = false

    @Option(help: "Status on stderr: auto (a status line when stderr is a terminal), json (one object every --status-interval seconds) or none.")
    var status: StatusMode = .auto

    @Option(help: "Seconds between JSON status objects.")
    var statusInterval: Double = 10

    @Flag(help: "Print no status and no notes on stderr (errors still).")
    var quiet = false

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard !channels.isEmpty else { throw ValidationError("name at least one channel") }
        for c in channels {
            let login = c.hasPrefix("#") ? String(c.dropFirst()) : c
            guard !login.isEmpty, login.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 | 0x20) &- 97 < 26 || $0 &- 48 < 10 })
            else { throw ValidationError("'\(c)' is not a channel login (letters, digits and _)") }
        }
        guard CaptureRotation(argument: rotate) != nil else {
            throw ValidationError("--rotate must be daily, hourly or a size such as 100M (got '\(rotate)')")
        }
        guard statusInterval > 0 && statusInterval.isFinite else { throw ValidationError("--status-interval must be positive") }
    }

    func run() throws {
        ignoreBrokenPipes()
        if connection.insecure { Diagnostics.warning(TLSConfiguration.insecureWarning) }
        let credentials = try connection.credentials()
        var options = CaptureOptions(rotation: CaptureRotation(argument: rotate)!, verbatim: verbatim)
        options.level = GzipWriter.defaultLevel
        let writer: CaptureWriter
        do throws(CaptureError) {
            writer = try CaptureWriter(directory: dir, options: options)
            try writer.note(event: "start", text: "capture of \(channels.joined(separator: " ")) started", atWallMs: Moment.now().wallMs)
        } catch {
            Diagnostics.error(error.description)
            throw ExitCode(74)
        }
        let terminal = !quiet && status == .auto && isatty(2) == 1
        let json = !quiet && status == .json
        let say: (String) -> Void = { text in
            guard !quiet else { return }
            Diagnostics.write((terminal ? "\r\u{1B}[K" : "") + "chatcap: \(text)\n")
        }
        writer.onNotice = say
        var failure: CaptureError? = nil
        var problems = 0
        let session = try LiveSession(
            channels: channels, credentials: credentials, endpoint: connection.endpoint, settings: connection.settings,
            onLine: { bytes, message, receivedAt, _ in
                guard failure == nil else { return }
                do throws(CaptureError) { try writer.append(bytes, message: message, receivedAt: receivedAt) } catch {
                    failure = error
                }
            },
            onRecord: { record in
                switch record {
                case .joined, .connected, .capabilities(.acknowledged, _): break
                default: say(record.description)
                }
                guard failure == nil else { return }
                do throws(CaptureError) { try writer.record(record) } catch { failure = error }
            },
            onProblem: { problem in
                problems += 1
                switch problem {
                case .malformed(let line, let error): say("line \(line) is malformed (\(error)) and was not stored")
                case .skipped(let error): say("a line was too long and was skipped: \(error)")
                case .cutOff(let dropped): say("the server closed the connection mid-line: \(dropped) bytes of a partial line dropped")
                }
            })
        let started = Moment.now()
        var statusBoard = CaptureStatus(startedAt: started)
        var nextStatusMs = started.monotonicMs + (terminal ? 250 : Int64(statusInterval * 1000))
        session.onTick = {
            let now = Moment.now()
            if failure == nil {
                do throws(CaptureError) { try writer.tick(now: now) } catch { failure = error }
            }
            if failure != nil {
                session.stop.raise()
                return
            }
            guard (terminal || json) && now.monotonicMs >= nextStatusMs else { return }
            let snapshot = statusBoard.snapshot(writer, now: now)
            if terminal {
                Diagnostics.write("\r\u{1B}[K" + snapshot.line)
                nextStatusMs = now.monotonicMs + 250
            } else {
                Diagnostics.write(snapshot.json + "\n")
                nextStatusMs = now.monotonicMs + Int64(statusInterval * 1000)
            }
        }
        Interrupts.install(session.stop)
        let deadline = connection.duration.map { started.monotonicMs + Int64($0 * 1000) }
        session.run(until: deadline)
        if failure == nil {
            do throws(CaptureError) {
                try writer.note(event: "stop", text: "capture stopped after \(writer.lineCount) lines", atWallMs: Moment.now().wallMs)
            } catch { failure = error }
        }
        do throws(CaptureError) { try writer.close() } catch { if failure == nil { failure = error } }
        if terminal { Diagnostics.write("\r\u{1B}[K") }
        if let failure {
            Diagnostics.error(failure.description)
            throw ExitCode(74)
        }
        if !quiet {
            Diagnostics.note(
                "captured \(writer.lineCount) lines, \(writer.compressedByteCount) bytes written "
                    + "(\(writer.uncompressedByteCount) before compression)"
                    + (problems > 0 ? ", \(problems) unusable lines reported" : ""))
        }
        if let fatal = session.fatal {
            Diagnostics.error(fatal)
            throw ExitCode(1)
        }
    }
}
