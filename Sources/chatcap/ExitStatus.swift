import ArgumentParser

/// The exit statuses chatcap uses, named as in sysexits(3): the one table of them.
///
/// `0` is ``ExitCode/success``; every failure is one of these. `--help` of each command says which
/// it uses and when (`Chatcap`'s discussion, ``ConnectionOptions/exitStatusHelp``, `load`'s).
enum ExitStatus: Int32, CaseIterable {
    /// EX_USAGE: a usage error or an unusable token file (ArgumentParser's own validation failure too).
    case usage = 64
    /// EX_DATAERR: malformed input with `--strict`, no valid line at all, lines lost, or rows refused.
    case dataErr = 65
    /// EX_NOINPUT: an input, a directory or a `--ca-file` cannot be opened or holds nothing to read.
    case noInput = 66
    /// EX_UNAVAILABLE: a live command stopped without ever having reached the server's chat, or (tail,
    /// capture) without any channel joined.
    case unavailable = 69
    /// EX_SOFTWARE: a live session gave up for a reason of its own.
    case software = 70
    /// EX_IOERR: an output, a capture file or a progress file could not be written.
    case ioErr = 74
    /// EX_TEMPFAIL: try again later (another `load` of the same directory and table is running).
    case tempFail = 75
    /// EX_PROTOCOL: the server's TLS certificate failed verification.
    case `protocol` = 76
    /// EX_NOPERM: the server or ClickHouse refused the credentials.
    case noPerm = 77
    /// EX_CONFIG: ClickHouse's table, database or a column does not exist.
    case config = 78
}

extension ExitCode {
    /// The exit code of a named status: `throw ExitCode(.noInput)`.
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}
