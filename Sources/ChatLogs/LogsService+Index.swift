import ChatStore

extension LogsService {
    /// The files to read for `selector`'s user in `month`: the user's part of the month's index for the
    /// days before today (built first when missing or stale), then the files of today and later as
    /// they are; `nil` to read the month's files themselves (no index wanted, a user known by more than
    /// one id or by login only, nothing before today, or an index that cannot be built here).
    ///
    /// - Complexity: O(1) file checks when the index is current; a read of the month's covered files
    ///   when it is built.
    func indexedPaths(
        _ channel: String, _ month: LogMonth, _ files: [LogArchive.File], _ selector: UserSelector
    ) -> [String]? {
        guard usesIndex, selector.ids.count == 1 else { return nil }
        let t = now().civil
        guard let today = LogDay(year: t.year, month: t.month, day: t.day) else { return nil }
        let covered = files.filter { $0.day < today }
        guard !covered.isEmpty else { return nil }
        let index = MonthIndex(archive: archive, channel: channel, month: month)
        if !index.isCurrent(for: covered) {
            guard index.build(from: covered) else { return nil }
        }
        return [index.shardPath(for: selector.ids[0])] + files.filter { $0.day >= today }.map(\.path)
    }
}
