extension InputPaths {
    /// Groups inputs that follow each other in time, so that a merge reads each group's files one after
    /// another instead of keeping them all open at once.
    ///
    /// Files in the same directory whose names start with a date `YYYY-MM-DD` (as the capture layout
    /// `DIR/<channel>/<YYYY-MM-DD>.log.gz` writes them) are chained in date order: one group per run of
    /// strictly increasing dates. Two files of the same date in one directory may overlap in time and go
    /// to different groups. Every other input is a group of its own.
    ///
    /// - Returns: groups of indices into `paths`, each group in argument order; every index appears once.
    /// - Complexity: O(`paths.count` × groups). - Allocations: the result.
    public static func sequentialGroups(_ paths: [String]) -> [[Int]] {
        var groups: [[Int]] = []
        var tails: [(directory: Substring, date: Substring)?] = []
        for (index, path) in paths.enumerated() {
            guard path != "-", let key = datedName(path) else {
                groups.append([index])
                tails.append(nil)
                continue
            }
            let slot = tails.firstIndex { tail in
                guard let tail else { return false }
                return tail.directory == key.directory && tail.date.utf8.lexicographicallyPrecedes(key.date.utf8)
            }
            if let slot {
                groups[slot].append(index)
                tails[slot] = key
            } else {
                groups.append([index])
                tails.append(key)
            }
        }
        return groups
    }

    /// The directory and the leading `YYYY-MM-DD` of the file name, or `nil` when the name does not
    /// start with a date (followed by the end or a non-digit).
    private static func datedName(_ path: String) -> (directory: Substring, date: Substring)? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0] } ?? ""
        let name = slash.map { path[path.index(after: $0)...] } ?? path[...]
        let bytes = Array(name.utf8.prefix(11))
        guard bytes.count >= 10 else { return nil }
        for (i, b) in bytes.prefix(10).enumerated() {
            let isDash = i == 4 || i == 7
            guard isDash ? b == UInt8(ascii: "-") : (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) else {
                return nil
            }
        }
        if bytes.count == 11 && bytes[10] >= UInt8(ascii: "0") && bytes[10] <= UInt8(ascii: "9") { return nil }
        return (directory, name.prefix(10))
    }
}
