public import ChatHTTP
public import ChatLogStore
public import ChatLogs
public import ChatPosix
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// `chatcap logs` once its store and listener are up: it answers until SIGINT or SIGTERM, and on
/// SIGHUP reads its `--opt-out` file again (``reload(_:into:console:)``); the listener stops last.
///
/// The opt-out list is read here too (``readOptOut(_:)``), so that the first read at start and every
/// reload say a bad file the same way.
public enum LogsRun: Sendable {
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
        let (list, text) = reread(path)
        if let list {
            service.setOptOut(list)
            console.note(text)
        } else {
            console.warning(text)
        }
    }

    /// The file at `path` read again for a reload (logs' and capture's): the new list, or `nil` when the
    /// list in force stays; and what to say either way.
    static func reread(_ path: String) -> (list: OptOutList?, text: String) {
        do throws(OptOutFailure) {
            let list = try readOptOut(path)
            return (list, "opt-out reloaded: \(list.logins.count) logins, \(list.ids.count) ids")
        } catch {
            return (nil, "\(error); the opt-out list in force stays")
        }
    }

    /// Answers on `listener` until `stop` is raised (``Interrupts`` raises it), then stops it. With
    /// `optOutFile`, a SIGHUP (``Hangups``, installed by the caller before the first read) reloads it
    /// into `service`. Looks every `pollMs` milliseconds.
    ///
    /// With `indexing` (a directory store that uses its month index), a thread of its own builds the
    /// month indexes ahead (``DirectoryStore/indexAhead(while:)``) at start and then every
    /// `indexEverySeconds`, so that a user's first request of a month finds its index; it says what it
    /// built, and stops (mid-month too) with the run.
    public static func serve(
        _ listener: HTTPListener, service: LogsService, optOutFile: String?, stop: StopFlag, console: RunConsole,
        indexing: DirectoryStore? = nil, indexEverySeconds: Int = 60, pollMs: UInt32 = 50
    ) {
        let indexer = indexing.map { store in
            PosixThread { indexAhead(store, every: indexEverySeconds, stop: stop, console: console, pollMs: pollMs) }
        }
        while !stop.isRaised {
            usleep(pollMs * 1_000)
            if let optOutFile, Hangups.take() { reload(optOutFile, into: service, console: console) }
        }
        indexer?.join()
        listener.stop()
    }

    /// The month indexes of `store` built ahead until `stop` is raised: now, then every `seconds`.
    static func indexAhead(
        _ store: DirectoryStore, every seconds: Int, stop: StopFlag, console: RunConsole, pollMs: UInt32
    ) {
        while !stop.isRaised {
            let started = Moment.monotonicMilliseconds()
            let built = store.indexAhead(while: { !stop.isRaised })
            if built > 0 {
                let elapsed = Moment.monotonicMilliseconds() - started
                console.note("month index: built \(built) in \(elapsed / 1000).\(elapsed % 1000 / 100) s")
            }
            var waited = 0
            while !stop.isRaised && waited < seconds * 1_000 {
                usleep(pollMs * 1_000)
                waited += Int(pollMs)
            }
        }
    }
}
