public import ChatStore
import IRCWire

/// The logs API's lines in a capture directory (``LogArchive``): a channel's folder, its files by day,
/// read through ChatInput's merge (``DirectoryCursor``). Every question lists the folders again, so
/// what a running capture writes is seen at the next request.
///
/// A user's month (a selection of one user id and exactly one month) reads the user's part of the
/// month's index (``MonthIndex``) for the days before today when ``usesIndex``.
///
/// Immutable; any thread may use it.
public struct DirectoryStore: LogStore {
    public let archive: LogArchive
    /// Whether a user's month may use and build the month's index, written in the archive's hidden
    /// `.chatcap-index` folder.
    public let usesIndex: Bool
    /// The wall clock (the index covers the days before today).
    let now: @Sendable () -> Timestamp

    public init(archive: LogArchive, usesIndex: Bool = true, now: @escaping @Sendable () -> Timestamp) {
        self.archive = archive
        self.usesIndex = usesIndex
        self.now = now
    }

    /// The channel folders; none when the root cannot be read.
    ///
    /// - Complexity: O(entries of the root) and one `stat` each.
    public func channels() -> [String] { (try? archive.channels()) ?? [] }

    public func hasChannel(_ channel: String) -> Bool { archive.hasChannel(channel) }

    public func hasLines(_ channel: String, on days: ClosedRange<LogDay>) -> Bool {
        archive.files(of: channel).contains { days.contains($0.day) }
    }

    public func days(of channel: String) -> [LogDay] { archive.days(of: channel) }

    /// From the channel's newest file that has a served line.
    ///
    /// - Complexity: the lines of the channel's files, newest first, up to the first served one.
    public func roomId(of channel: String) -> String? {
        var found: String? = nil
        var reader = ArchiveReader()
        for file in archive.files(of: channel).reversed() {
            reader.read([file.path]) { line, bytes in
                guard let id = line.roomId else { return true }
                found = String(decoding: bytes, in: id.raw)
                return false
            }
            if found != nil { break }
        }
        return found
    }

    /// - Complexity: the files of `preferred`, then the channel's other files newest first, up to the
    ///   first line that gives an id.
    public func userId(of login: [UInt8], in channel: String, preferring preferred: ClosedRange<LogDay>?) -> (
        id: [UInt8]?, named: Bool
    ) {
        let files = archive.files(of: channel)
        var id: [UInt8]? = nil
        var named = false
        var reader = ArchiveReader()
        func look(_ paths: [String]) {
            reader.read(paths) { line, bytes in
                if let user = line.userLogin(in: bytes), bytes.equals(lowercased: login, at: user.range) {
                    named = true
                }
                id = UserSelector.id(of: login, in: line, bytes)
                return id == nil  // a login names one account: its first id is the user's
            }
        }
        if let preferred { look(files.filter { preferred.contains($0.day) }.map(\.path)) }
        if id == nil {
            for file in files.reversed() where !(preferred?.contains(file.day) ?? false) {
                look([file.path])
                if id != nil { break }
            }
        }
        return (id, named)
    }

    /// - Complexity: per month, its files newest first up to the user's first line.
    public func months(of channel: String, with selector: UserSelector) -> [LogMonth] {
        var found: [LogMonth] = []
        var reader = ArchiveReader()
        for (month, files) in Self.byMonth(archive.files(of: channel)).reversed() {
            for file in files.reversed() {
                var hit = false
                reader.read([file.path]) { line, bytes in
                    hit = selector.matches(line, in: bytes)
                    return !hit
                }
                if hit {
                    found.append(month)
                    break
                }
            }
        }
        return found
    }

    /// One part per file of the selection's days (every channel's, in byte order, without a channel);
    /// a user's month with the index: the user's part of it, then the files of today and later.
    ///
    /// - Complexity: O(entries of the folders listed); building the index when it is stale reads the month.
    public func parts(of selection: LogSelection) -> [LogPart] {
        let channels = selection.channel.map { [$0] } ?? channels()
        var parts: [LogPart] = []
        for channel in channels {
            var files = archive.files(of: channel)
            if let days = selection.days { files = files.filter { days.contains($0.day) } }
            let paths = indexedPaths(channel, files, selection) ?? files.map(\.path)
            parts += paths.map { .files([$0]) }
        }
        return parts
    }

    public func cursor(_ parts: ArraySlice<LogPart>) -> any LineCursor {
        var paths: [String] = []
        for case .files(let files) in parts { paths += files }
        return DirectoryCursor(paths: paths)
    }

    /// The files to read for a selection of one user: for each month the selection's days hold whole
    /// (every month when it has no days: a search), the user's part of the month's index for the days
    /// before today (built first when missing or stale), then the month's files of today and later as
    /// they are; other months' files themselves. `nil` to read the files themselves (no index wanted, not
    /// one user id, or no whole month with days before today whose index is current or can be built).
    ///
    /// - Complexity: O(1) file checks a month whose index is current; a read of the month's covered files
    ///   when it is built.
    func indexedPaths(_ channel: String, _ files: [LogArchive.File], _ selection: LogSelection) -> [String]? {
        guard usesIndex, selection.userIds.count == 1, let today = today() else { return nil }
        var paths: [String] = []
        var indexed = false
        for (month, group) in Self.byMonth(files) {
            let covered = group.filter { $0.day < today }
            let index = MonthIndex(archive: archive, channel: channel, month: month)
            if !covered.isEmpty, Self.holdsWhole(month, selection.days), index.ensureCurrent(for: covered) != .failed {
                paths.append(index.shardPath(for: selection.userIds[0]))
                paths += group.filter { $0.day >= today }.map(\.path)
                indexed = true
            } else {
                paths += group.map(\.path)
            }
        }
        return indexed ? paths : nil
    }

    /// Builds the month index of every channel's months with days before today that lack a current one,
    /// newest month first, while `going()` says so (asked between months and while a month is read), so
    /// that a user's first request of a month finds it built (``LogsRun`` calls it in the background).
    ///
    /// - Returns: how many indexes it built.
    /// - Complexity: O(files) checks; a read of each month it builds.
    public func indexAhead(while going: () -> Bool) -> Int {
        guard usesIndex, let today = today() else { return 0 }
        var built = 0
        for channel in channels() {
            for (month, group) in Self.byMonth(archive.files(of: channel).filter { $0.day < today }).reversed() {
                guard going() else { return built }
                let index = MonthIndex(archive: archive, channel: channel, month: month)
                if index.ensureCurrent(for: group, while: going) == .built { built += 1 }
            }
        }
        return built
    }

    /// Today, UTC, by the wall clock.
    private func today() -> LogDay? {
        let t = now().civil
        return LogDay(year: t.year, month: t.month, day: t.day)
    }

    /// `files` (in day order) grouped by month, in order.
    private static func byMonth(_ files: [LogArchive.File]) -> [(LogMonth, [LogArchive.File])] {
        var groups: [(LogMonth, [LogArchive.File])] = []
        for file in files {
            let month = file.day.logMonth
            if groups.last?.0 == month {
                groups[groups.count - 1].1.append(file)
            } else {
                groups.append((month, [file]))
            }
        }
        return groups
    }

    /// Whether `days` (all days when `nil`) hold every day of `month`.
    private static func holdsWhole(_ month: LogMonth, _ days: ClosedRange<LogDay>?) -> Bool {
        guard let days else { return true }
        guard let first = LogDay(year: month.year, month: month.month, day: 1),
            let last = LogDay(
                year: month.year, month: month.month,
                day: LogDay.daysIn(month: month.month, year: month.year))
        else { return false }
        return days.lowerBound <= first && last <= days.upperBound
    }
}
