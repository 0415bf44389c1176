public import ChatArchive
public import ChatLive
import ChatMemory
public import ChatPosix
import ChatStore
public import TwitchSession

/// One run of `capture`: the previous run examined, the writer, the live session feeding it (and the
/// HTTP service beside it), the channel list reloaded on SIGHUP, the status line or JSON, systemd's
/// notifications, and the end: the stop record, the files closed, the summary.
///
/// The command builds the ``Settings`` from its options and maps the ``Result`` to an exit status;
/// everything between is here.
public final class CaptureRun {
    /// How the status is shown on stderr: a line on a terminal, JSON objects, or nothing.
    public typealias StatusMode = StatusDriver.Mode

    public struct Settings {
        public var connection: LiveConnection
        /// The channels named, before `--shard` kept its share (for the messages that count them).
        public var named: [String]
        public var shard: ChannelShard?
        public var directory: String
        /// The writer's options; their channels are set to ``LiveConnection/channels``.
        public var options: CaptureOptions
        public var status: StatusMode = .none
        /// `--quiet`: no notes (errors still).
        public var quiet = false
        /// Between JSON status objects and systemd STATUS= updates.
        public var statusIntervalMs: Int64 = 10_000
        /// The terminal's width in columns, asked at each status line.
        public var columns: () -> Int = { 80 }
        /// `--opt-out`: the lines not written (nor served), the file read again on SIGHUP.
        public var optOut: CaptureOptOut?

        public init(
            connection: LiveConnection, named: [String], directory: String, options: CaptureOptions
        ) {
            self.connection = connection
            self.named = named
            self.directory = directory
            self.options = options
        }
    }

    /// How the run ended, for the command's exit status.
    public enum Result {
        /// A stop signal came while the previous run's files were read: nothing was written.
        case stoppedBeforeStart
        /// The files could not be opened or the start recorded.
        case notStarted(CaptureError)
        /// The session ran and ended.
        case ended(Ending)
    }

    /// What the command needs to choose the exit status (and what ``CaptureRun/report(_:)`` says).
    public struct Ending {
        public var session: LiveSession
        public var ending: LiveSession.Ending
        /// The first write error: the run stopped at it.
        public var failure: CaptureError?
        /// Channels joined at least once.
        public var joined: Set<String>
        public var writer: CaptureWriter
    }

    let settings: Settings
    let console: RunConsole
    let stop: StopFlag
    let http: LiveHTTPService?
    let service: ServiceNotifier?
    let reload: ChannelReload?
    /// Lines too long or cut off (not stored).
    private var unusable = 0
    var unusableLines: Int { unusable }

    /// - Parameters:
    ///   - stop: raised by SIGINT/SIGTERM (``Interrupts``).
    ///   - http: `--http-port`'s service, started by the command.
    ///   - service: systemd's notifier under `NOTIFY_SOCKET`.
    ///   - reload: `--channels-file`'s reload, its SIGHUP handler installed by the run.
    public init(
        _ settings: Settings, console: RunConsole, stop: StopFlag, http: LiveHTTPService?,
        service: ServiceNotifier?, reload: ChannelReload?
    ) {
        self.settings = settings
        self.console = console
        self.stop = stop
        self.http = http
        self.service = service
        self.reload = reload
    }

    private var quiet: Bool { settings.quiet }
    private var terminal: Bool { settings.status == .line }

    /// A note that clears the status line first.
    private func say(_ text: String) {
        guard !quiet else { return }
        console.write((terminal ? StatusDriver.clearLine : "") + "chatcap: \(text)\n")
    }

    /// Runs until `--duration`, a stop signal, a write error or a fatal session error.
    ///
    /// - Throws: what the session's set-up throws (the event loop, the TLS context).
    public func run() throws -> Result {
        let channels = settings.connection.channels
        let shard = settings.shard
        let directory = settings.directory
        var options = settings.options
        options.channels = channels
        let writer: CaptureWriter
        let previous: CapturePreviousRun?
        do throws(CaptureError) {
            writer = try CaptureWriter(directory: directory, options: options)
            // The hole since the previous run (and a run that ended without stop) are records too. Reading
            // a busy capture's newest files can take seconds: a stop signal meanwhile ends the run here,
            // before it wrote anything (the next run reads them again).
            do throws(CapturePreviousRun.Interrupted) {
                previous = try CapturePreviousRun.examine(directory: directory, channels: channels) {
                    self.stop.isRaised
                }
            } catch {
                if !quiet { console.note("stopped while reading the previous run's files; nothing was written") }
                try writer.close()
                return .stoppedBeforeStart
            }
            let now = Moment.now().wall
            if let previous { try writer.recordPreviousRun(previous, at: now) }
            try writer.recordStart("capture\(shard.map { " (shard \($0))" } ?? "")", channels: channels, at: now)
        } catch {
            return .notStarted(error)
        }
        writer.onNotice = { [unowned self] in self.say($0) }
        if let previous, !previous.endedWithStop { say(Self.previousRunNote(previous, directory: directory)) }
        let session = try makeSession(writer: writer, previous: previous)
        return .ended(drive(session, writer: writer))
    }

    /// The first write error, kept by the handlers: the loop stops at its next tick.
    private var failure: CaptureError? {
        get { firstFailure.error }
        set { firstFailure.error = newValue }
    }
    /// Where ``failure`` lives: a box the per-line handler captures itself, so that a line does not
    /// reach it through `[unowned self]` (an atomic retain and release of the run per access).
    private final class FirstFailure { var error: CaptureError? }
    private let firstFailure = FirstFailure()
    private var joined = Set<String>()

    private func makeSession(writer: CaptureWriter, previous: CapturePreviousRun?) throws -> LiveSession {
        let http = self.http
        let connection = settings.connection
        let optOut = settings.optOut
        let session = try LiveSession(
            channels: connection.channels, credentials: connection.credentials, endpoint: connection.endpoint,
            settings: connection.settings, stop: stop,
            onLine: { [firstFailure] bytes, message, receivedAt, _ in
                if let optOut, optOut.withholds(bytes, message) { return }
                http?.line(bytes, message, receivedAt: receivedAt)
                guard firstFailure.error == nil else { return }
                do throws(CaptureError) { try writer.append(bytes, message: message, receivedAt: receivedAt) } catch {
                    firstFailure.error = error
                }
            },
            onRecord: { [unowned self] record in
                http?.record(record)
                if case .joined(let channel, _) = record { joined.insert(channel) }
                switch record {
                case .joined, .connected, .capabilities(.acknowledged, _): break
                default: say(record.description)
                }
                guard failure == nil else { return }
                do throws(CaptureError) { try writer.record(record) } catch { failure = error }
            },
            onProblem: { [unowned self] problem in
                http?.problem(problem)
                let event: String
                switch problem {
                case .malformed:
                    say("\(problem); stored as received in _session")
                    return
                case .skipped: event = "skipped"
                case .cutOff: event = "cut-off"
                case .backfillFailed, .backfillMisdated:
                    say("\(problem)")
                    return
                }
                unusable += 1
                say("\(problem)")
                guard failure == nil else { return }
                do throws(CaptureError) {
                    try writer.note(event: event, text: "\(problem)", at: Moment.now().wall)
                } catch {
                    failure = error
                }
            })
        session.recentMessages = connection.recentMessages
        // The hole since the previous run ends when each channel is joined, as a reconnect's does (and
        // is backfilled with --recent-messages): nothing said before the JOIN reaches us.
        if let previous {
            // Each from its own last stored line when it got nothing in the run's last moments (quiet, or
            // rejoining when the run died), else from the run's.
            for channel in previous.channels {
                session.openGaps(
                    [channel], from: previous.lastLine(of: channel), reason: .notRunning(previous.gapReason))
            }
        }
        session.onMalformedLine = { [unowned self] bytes, receivedAt in
            http?.malformed(bytes)
            guard failure == nil else { return }
            do throws(CaptureError) { try writer.appendUnparsed(bytes, receivedAt: receivedAt) } catch {
                failure = error
            }
        }
        return session
    }

    /// The loop's ticks (files, reload, status, systemd, HTTP), the run, and the files closed.
    private func drive(_ session: LiveSession, writer: CaptureWriter) -> Ending {
        let http = self.http
        let service = self.service
        // SIGHUP re-reads --channels-file (``ChannelReload/tick(now:session:writer:say:)``) and the --opt-out file.
        let optOut = settings.optOut
        reload?.install()
        if optOut != nil { Hangups.install() }
        let started = Moment.now()
        var statusBoard = CaptureStatus(startedAt: started)
        var serviceBoard = CaptureStatus(startedAt: started)
        let serviceTick = { [unowned self] (now: Moment) in
            service?.tick(nowMs: now.monotonicMs, ready: session.joinsSettled) {
                // The list in force: a reload (SIGHUP) may have changed it.
                let list = session.channels
                return "\(list.count { self.joined.contains($0) }) of \(list.count) channels joined; "
                    + serviceBoard.snapshot(writer, now: now, unusableLines: self.unusable).summary
            }
        }
        let console = self.console
        let status = StatusDriver(
            mode: settings.status, intervalMs: settings.statusIntervalMs, startedMs: started.monotonicMs,
            columns: settings.columns, write: { console.write($0) })
        let showStatus = { [unowned self] (now: Moment) in
            let snapshot = {
                var snapshot = statusBoard.snapshot(writer, now: now, unusableLines: self.unusable)
                snapshot.budgetTrimmedEntries = http?.budget?.trimmedEntries
                return snapshot
            }
            status.tick(nowMs: now.monotonicMs, line: { snapshot().line(width: $0) }, json: { snapshot().json })
        }
        // Once every JOIN has its outcome, said once (the terminal's status line shows the joins as they
        // come; under systemd or with stderr in a file, this line is the only word of them).
        var joinsSaid = false
        let count = settings.connection.distinctChannels.count
        session.onTick = { [unowned self] in
            let now = Moment.now()
            if !joinsSaid && session.joinsSettled {
                joinsSaid = true
                say(
                    "\(joined.count) of \(count) channel\(count == 1 ? "" : "s") joined in "
                        + "\(Double(now.monotonicMs - started.monotonicMs) / 1000) s over \(session.connectionCount) "
                        + "connection\(session.connectionCount == 1 ? "" : "s")")
            }
            if failure == nil {
                do throws(CaptureError) { try writer.tick(now: now) } catch { failure = error }
            }
            let hangup = reload != nil || optOut != nil ? Hangups.take() : false
            if failure == nil, let reload {
                do throws(CaptureError) {
                    try reload.tick(now: Moment.now(), session: session, writer: writer, signalled: hangup) {
                        self.say($0)
                    }
                } catch { failure = error }
            }
            if failure == nil, hangup, let optOut {
                let (text, list) = optOut.reload()
                if let list { http?.setOptOut(list) }
                say(text)
                do throws(CaptureError) {
                    try writer.note(event: list == nil ? "reload-failed" : "reload", text: text, at: Moment.now().wall)
                } catch { failure = error }
            }
            if failure != nil {
                session.stop.raise()
                return
            }
            serviceTick(now)
            showStatus(now)
            http?.publish(session, now: now) { Self.httpFigures(writer) }
        }
        // While the disk is behind, the loop (and its ticks) is stopped; the status keeps its pace, and
        // so does the watchdog: waiting for the disk is back-pressure, not a stuck loop.
        writer.onStalled = {
            let now = Moment.now()
            serviceTick(now)
            showStatus(now)
            http?.publish(session, now: now) { Self.httpFigures(writer) }
        }
        let ending = session.run(until: settings.connection.deadline(from: started.monotonicMs))
        // Why the run ended, since a planned end and a failure look alike on the session's records.
        switch ending {
        case .deadline: say("stopped: --duration \(settings.connection.durationText) reached")
        case .stopped where failure == nil: say("stopped: SIGINT or SIGTERM")
        default: break
        }
        let lines = writer.lineCount
        service?.stopping(status: "stopping: closing files after \(lines) line\(lines == 1 ? "" : "s")")
        if failure == nil {
            do throws(CaptureError) {
                try writer.note(
                    event: "stop", text: "capture stopped after \(lines) line\(lines == 1 ? "" : "s")",
                    at: Moment.now().wall)
            } catch { failure = error }
        }
        do throws(CaptureError) { try writer.close() } catch { if failure == nil { failure = error } }
        http?.stop(session) { Self.httpFigures(writer) }
        status.finish()
        if settings.status == .json {
            finalStatus = { statusBoard.snapshot(writer, now: $0, unusableLines: self.unusable) }
        }
        return Ending(session: session, ending: ending, failure: failure, joined: joined, writer: writer)
    }

    /// `--status json`'s last object, taken after the files are closed.
    var finalStatus: ((Moment) -> CaptureStatus.Snapshot)? = nil
}

@available(*, unavailable)
extension CaptureRun: Sendable {}

// Not Sendable: the settings hold a closure and the opt-out list, the result and its ending the session
// and the writer; all are the ingest thread's.
@available(*, unavailable)
extension CaptureRun.Settings: Sendable {}
@available(*, unavailable)
extension CaptureRun.Result: Sendable {}
@available(*, unavailable)
extension CaptureRun.Ending: Sendable {}
