public import ChatStore

/// Where the logs API's lines are kept: a capture directory (``DirectoryStore``) or the ClickHouse
/// table `chatcap load` fills (``ClickHouseStore``). ``LogsService`` answers every route through this
/// seam, so both stores feed the same filters (``LineFilter``) and encoders (``LogEncoder``) and give
/// the same bytes.
///
/// A store answers the few questions that have a cheap answer of its own (which channels, which days,
/// a channel's id, a login's id, a user's months) and hands out the lines of a ``LogSelection`` in the
/// directory's order: by the day and time capture received them. Its selection is at least the lines
/// asked for (a ClickHouse `WHERE` narrows on the table's columns); the service's ``LineFilter``
/// decides line by line on the stored bytes, so a store never has to decide exactly.
///
/// Errors are ``LogsError``s: a store that cannot be reached or answers an error is
/// ``LogsError/storeUnavailable(_:)`` or ``LogsError/storeFailed(_:)`` (503, 500).
public protocol LogStore: Sendable {
    /// The channels (logins), in byte order.
    func channels() throws(LogsError) -> [String]

    /// Whether `channel` (a login) has lines.
    func hasChannel(_ channel: String) throws(LogsError) -> Bool

    /// Whether `channel` has lines received on a day of `days`.
    func hasLines(_ channel: String, on days: ClosedRange<LogDay>) throws(LogsError) -> Bool

    /// The days of `channel` with lines, newest first (rustlog's `/list`).
    func days(of channel: String) throws(LogsError) -> [LogDay]

    /// The `room-id` of `channel`'s served lines (of its newest that has one); `nil` when none has one.
    func roomId(of channel: String) throws(LogsError) -> String?

    /// The id `channel`'s served lines give `login` (lowercase): the first line that gives one, looked for
    /// on `preferred` days first, then on the other days newest first; and whether any served line names
    /// the login at all.
    func userId(of login: [UInt8], in channel: String, preferring preferred: ClosedRange<LogDay>?)
        throws(LogsError) -> (id: [UInt8]?, named: Bool)

    /// The months with served lines of `selector`'s user in `channel`, newest first.
    func months(of channel: String, with selector: UserSelector) throws(LogsError) -> [LogMonth]

    /// The parts `selection` is read in, in time order: a reversed answer reads them newest first, one
    /// at a time (a capture file; a day or a user's selection of the table).
    func parts(of selection: LogSelection) throws(LogsError) -> [LogPart]

    /// A cursor over the lines of `parts`, in order.
    func cursor(_ parts: ArraySlice<LogPart>) -> any LineCursor
}

/// Which lines to read: a channel's (every channel's when `nil`) on the days capture received them, and
/// hints a store may use to read less (it may ignore them: the service filters every line again).
public struct LogSelection: Sendable, Equatable {
    /// The channel (a login); `nil`: every channel.
    public var channel: String?
    /// The days (UTC, by the time capture received a line: its file's day); `nil`: all.
    public var days: ClosedRange<LogDay>?
    /// Hint: only lines whose shown time (``StoredLine/timestamp(in:)``) is in it are wanted.
    public var window: Range<Timestamp>?
    /// Hint: only lines of these user ids (``StoredLine/userId``) are wanted; none: any.
    public var userIds: [[UInt8]]
    /// Hint: only lines about this login (lowercase) are wanted (a user known by no id).
    public var login: [UInt8]?
    /// Hint: only lines whose text holds this (ASCII lowercase; any case in the text) are wanted.
    public var search: [UInt8]?

    public init(
        channel: String?, days: ClosedRange<LogDay>? = nil, window: Range<Timestamp>? = nil,
        userIds: [[UInt8]] = [], login: [UInt8]? = nil, search: [UInt8]? = nil
    ) {
        self.channel = channel
        self.days = days
        self.window = window
        self.userIds = userIds
        self.login = login
        self.search = search
    }

    /// The selection of a filter's lines of `channel` on `days`: its user and window as hints.
    package init(channel: String?, days: ClosedRange<LogDay>?, filter: LineFilter) {
        self.init(
            channel: channel, days: days, window: filter.window, userIds: filter.user?.ids ?? [],
            login: filter.user.flatMap { $0.ids.isEmpty ? $0.login : nil }, search: filter.needle)
    }

    /// Every day.
    package static let allDays = LogDay(year: 1, month: 1, day: 1)!...LogDay(year: 9999, month: 12, day: 31)!

    /// The days a range of shown times may be found on: those it touches and one either side (files are
    /// named by receive time, the range is of `tmi-sent-ts`).
    package static func daysAround(_ range: Range<Timestamp>) -> ClosedRange<LogDay> {
        let day: Int64 = 86_400_000
        let lower = range.lowerBound.advanced(byMilliseconds: -day).civil
        let upper = range.upperBound.advanced(byMilliseconds: day - 1).civil
        let first = LogDay(year: lower.year, month: lower.month, day: lower.day) ?? allDays.lowerBound
        let last = LogDay(year: upper.year, month: upper.month, day: upper.day) ?? allDays.upperBound
        return first...max(first, last)
    }
}

/// One unit a store reads: files of a capture directory, or a selection of the table.
public enum LogPart: Sendable, Equatable {
    case files([String])
    case selection(LogSelection)
}

/// The served lines of some parts, in order, one at a time. Malformed lines and damaged files are
/// counted (``counts``) and passed over; a store that fails (ClickHouse down) ends the lines early and
/// says why in ``failure``.
///
/// Confined to one thread.
public protocol LineCursor: AnyObject {
    /// Hands the next served line to `body` (with its bytes, valid during the call) or reads past one
    /// thing it does not serve; `false` at the end (then `body` was not called).
    func next(_ body: (StoredLine, Span<UInt8>) -> Void) -> Bool
    var counts: ArchiveReader.Counts { get }
    /// Why the lines ended early, if they did.
    var failure: LogsError? { get }
}

extension LineCursor {
    /// Calls `body` with every line until it returns `false`.
    ///
    /// - Throws: the cursor's ``failure`` when it ended early.
    package func read(_ body: (StoredLine, Span<UInt8>) -> Bool) throws(LogsError) {
        var going = true
        while going, next({ line, bytes in going = body(line, bytes) }) {}
        if going, let failure { throw failure }
    }
}
