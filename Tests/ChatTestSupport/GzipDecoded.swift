/// What gzip files say once decoded: for comparing files that must hold the same text where the
/// compressed bytes may differ (ISA-L's level 1 does not always choose the same matches for the same
/// input, see docs/capture.md), and for reading files a capture is still writing.
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

    /// The indexes at which the files `a[i]` and `b[i]` differ: in their bytes when `byteForByte`
    /// (zlib's output), else in what they decode to (``digests(_:)``).
    ///
    /// - Precondition: `a.count == b.count`.
    public static func differing(_ a: [String], _ b: [String], byteForByte: Bool) throws -> [Int] {
        precondition(a.count == b.count, "pairs of files")
        if byteForByte {
            return try a.indices.filter { try FileBytes.read(a[$0]) != FileBytes.read(b[$0]) }
        }
        let (left, right) = (try digests(a), try digests(b))
        return a.indices.filter { left[$0] != right[$0] }
    }

    /// Every byte Python's zlib decodes of the gzip files matching `pattern` (a glob; in its order),
    /// member after member, including a last member not yet finished: what a capture still writing a
    /// file has flushed so far. (`zcat` printed nothing of a capture's unfinished 10 KB file where
    /// this read 142 lines.)
    public static func decodable(_ pattern: String) throws -> [UInt8] {
        let script = """
            import glob, sys, zlib
            for path in sorted(glob.glob(sys.argv[1])):
                data = open(path, "rb").read()
                while data:
                    member = zlib.decompressobj(31)
                    sys.stdout.buffer.write(member.decompress(data))
                    data = member.unused_data
            """
        let result = try InputShell.run("python3 -c \(InputShell.quote(script)) \(InputShell.quote(pattern))")
        guard result.status == 0 else { throw InputShell.Failure(command: "python3 zlib", result: result) }
        return result.output
    }
}
