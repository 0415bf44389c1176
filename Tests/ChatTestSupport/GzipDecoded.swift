/// What gzip files say once decoded: for comparing files that must hold the same text where the
/// compressed bytes may differ (ISA-L's level 1 does not always choose the same matches for the same
/// input, see docs/capture.md).
public enum GzipDecoded: Sendable {
    /// The MD5 of each file's decoded bytes, in the order of `paths`, from one shell; every file is
    /// checked with `gzip -t` first.
    ///
    /// - Throws: ``InputShell/Failure`` when a file does not decode (or a tool is missing).
    public static func digests(_ paths: [String]) throws -> [String] {
        if paths.isEmpty { return [] }
        let quoted = paths.map(InputShell.quote).joined(separator: " ")
        let command = "gzip -t -- \(quoted) && for f in \(quoted); do zcat -- \"$f\" | md5sum; done"
        let result = try InputShell.run(command)
        guard result.status == 0 else { throw InputShell.Failure(command: "gzip -t, zcat | md5sum", result: result) }
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n")
        guard lines.count == paths.count else {
            throw InputShell.Failure(
                command: "zcat | md5sum: \(lines.count) digests for \(paths.count) files", result: result)
        }
        return lines.map { String($0.prefix { $0 != " " }) }
    }
}
