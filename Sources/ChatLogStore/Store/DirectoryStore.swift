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
        var byMonth: [(LogMonth, [String])] = []
        for file in archive.files(of: channel).reversed() {
            let month = file.day.logMonth
            if byMonth.last?.0 == month {
                byMonth[byMonth.count - 1].1.append(file.path)
            } else {
                byMonth.append((month, [file.path]))
            }
        }
        var found: [LogMonth] = []
        var reader = ArchiveReader()
        for (month, paths) in byMonth {
            for path in paths {
                var hit = false
                reader.read([path]) { line, bytes in
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

    /// The files to read for a selection of one user's month: the user's part of the month's index for
    /// the days before today (built first when missing or stale), then the files of today and later as
    /// they are; `nil` to read the month's files themselves (no index wanted, not one user id and exactly
    /// one month, nothing before today, or an index that cannot be built here).
    ///
    /// - Complexity: O(1) file checks when the index is current; a read of the month's covered files
    ///   when it is built.
    func indexedPaths(_ channel: String, _ files: [LogArchive.File], _ selection: LogSelection) -> [String]? {
        guard usesIndex, selection.userIds.count == 1, let days = selection.days,
            days.lowerBound.day == 1, days.lowerBound.logMonth == days.upperBound.logMonth,
            days.upperBound.day == LogDay.daysIn(month: days.upperBound.month, year: days.upperBound.year)
        else { return nil }
        let t = now().civil
        guard let today = LogDay(year: t.year, month: t.month, day: t.day) else { return nil }
        let covered = files.filter { $0.day < today }
        guard !covered.isEmpty else { return nil }
        let index = MonthIndex(archive: archive, channel: channel, month: days.lowerBound.logMonth)
        if !index.isCurrent(for: covered) {
            guard index.build(from: covered) else { return nil }
        }
        return [index.shardPath(for: selection.userIds[0])] + files.filter { $0.day >= today }.map(\.path)
    }
}
