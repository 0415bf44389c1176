extension InputPaths {
    /// Groups inputs that follow each other in time, so that a merge reads each group's files one after
    /// another instead of keeping them all open at once.
    ///
    /// Files in the same directory whose names start with a date `YYYY-MM-DD`, a date and hour
    /// `YYYY-MM-DDTHH`, or a date and a four-digit part `YYYY-MM-DD.NNNN.` (as capture writes them:
    /// `DIR/<channel>/<YYYY-MM-DD>.log.gz`, with hourly rotation `<YYYY-MM-DDTHH>.log.gz`, with size
    /// rotation `<YYYY-MM-DD>.0000.log.gz`, `.0001`, …) are chained in time order: one group per run of
    /// names that strictly follow each other (a later date; or, on the same date, both with an hour and a
    /// later hour, or both with a part and a later part). Files that may overlap in time — two of the
    /// same date and hour, a day file beside hour or part files of that day, or the continuations of
    /// earlier versions' size rotation (`2025-11-21.1.log.gz`, listed before their day file) — go to
    /// different groups. Every other input is a group of its own.
    ///
    /// - Returns: groups of indices into `paths`, each group in argument order; every index appears once.
    /// - Complexity: O(`paths.count` × groups of one directory). - Allocations: the result.
    public static func sequentialGroups(_ paths: [String]) -> [[Int]] {
        var groups: [[Int]] = []
        /// Per directory: the chains that may still grow, as (group, name of its last file).
        var tails: [Substring: [(group: Int, last: DatedName)]] = [:]
        for (index, path) in paths.enumerated() {
            guard path != "-", let (directory, name) = datedName(path) else {
                groups.append([index])
                continue
            }
            if let slot = tails[directory]?.firstIndex(where: { $0.last.precedes(name) }) {
                groups[tails[directory]![slot].group].append(index)
                tails[directory]![slot].last = name
            } else {
                tails[directory, default: []].append((groups.count, name))
                groups.append([index])
            }
        }
        return groups
    }

    /// The time a capture file name starts with: a UTC date, and for hourly rotation an hour or for
    /// size rotation the part of the day.
    private struct DatedName {
        var date: Substring
        var hour: Int?
        var part: Int?

        /// Whether every line of a file named `self` comes before every line of one named `next`.
        func precedes(_ next: DatedName) -> Bool {
            if date != next.date { return date.utf8.lexicographicallyPrecedes(next.date.utf8) }
            if let hour, let nextHour = next.hour { return hour < nextHour && part == nil && next.part == nil }
            if let part, let nextPart = next.part { return part < nextPart && hour == nil && next.hour == nil }
            return false
        }
    }

    /// The directory and the leading `YYYY-MM-DD` (and `THH`, or `.NNNN.`) of the file name, or `nil`
    /// when the name does not start with a date (followed by the end or a non-digit).
    private static func datedName(_ path: String) -> (directory: Substring, name: DatedName)? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0] } ?? ""
        let name = slash.map { path[path.index(after: $0)...] } ?? path[...]
        let bytes = Array(name.utf8.prefix(16))
        func isDigit(_ i: Int) -> Bool {
            i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9")
        }
        guard bytes.count >= 10 else { return nil }
        for i in 0..<10 {
            let isDash = i == 4 || i == 7
            guard isDash ? bytes[i] == UInt8(ascii: "-") : isDigit(i) else { return nil }
        }
        if isDigit(10) { return nil }
        var hour: Int? = nil
        if bytes.count > 10 && bytes[10] == UInt8(ascii: "T") && isDigit(11) && isDigit(12) && !isDigit(13) {
            hour = Int(bytes[11] - UInt8(ascii: "0")) * 10 + Int(bytes[12] - UInt8(ascii: "0"))
        }
        var part: Int? = nil
        if bytes.count == 16 && bytes[10] == UInt8(ascii: ".") && (11...14).allSatisfy(isDigit)
            && bytes[15] == UInt8(ascii: ".")
        {
            part = bytes[11...14].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        return (directory, DatedName(date: name.prefix(10), hour: hour, part: part))
    }
}
