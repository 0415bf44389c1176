public import ChatHTTP
public import ChatLogs
public import ChatLogStore
public import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// `chatcap logs` once its store and listener are up: it answers until SIGINT or SIGTERM, and on
/// SIGHUP reads its `--opt-out` file again (``reload(_:into:console:)``); the listener stops last.
///
/// The opt-out list is read here too (``readOptOut(_:)``), so that the first read at start and every
/// reload say a bad file the same way.
public enum LogsRun {
    /// Why an opt-out file could not be used: it cannot be read, or a line of it is not a login or id.
    public struct OptOutFailure: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The list in the file at `path`.
    ///
    /// - Throws: ``OptOutFailure`` naming the option and the file.
    public static func readOptOut(_ path: String) throws(OptOutFailure) -> OptOutList {
        let text: String
        do throws(TextFile.Failure) { text = try TextFile.read(path) } catch {
            throw OptOutFailure(description: "cannot read --opt-out \(path): \(error)")
        }
        do {
            return try OptOutList(parsing: text)
        } catch {
            throw OptOutFailure(description: "--opt-out \(path): \(error)")
        }
    }

    /// SIGHUP: the file at `path` again, put in force in `service`; a file that cannot be read or
    /// parsed keeps the list in force, and says why.
    public static func reload(_ path: String, into service: LogsService, console: RunConsole) {
        do throws(OptOutFailure) {
            let list = try readOptOut(path)
            service.setOptOut(list)
            console.note("opt-out reloaded: \(list.logins.count) logins, \(list.ids.count) ids")
        } catch {
            console.warning("\(error); the opt-out list in force stays")
        }
    }

    /// Answers on `listener` until `stop` is raised (``Interrupts`` raises it), then stops it. With
    /// `optOutFile`, a SIGHUP (``Hangups``, installed by the caller before the first read) reloads it
    /// into `service`. Looks every `pollMs` milliseconds.
    public static func serve(
        _ listener: HTTPListener, service: LogsService, optOutFile: String?, stop: StopFlag, console: RunConsole,
        pollMs: UInt32 = 50
    ) {
        while !stop.isRaised {
            usleep(pollMs * 1_000)
            if let optOutFile, Hangups.take() { reload(optOutFile, into: service, console: console) }
        }
        listener.stop()
    }
}
