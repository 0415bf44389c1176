import ArgumentParser
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// A `--channels-file`: one channel login per line (with or without a leading `#`). Blank lines are
/// ignored, and so are comments: a line that starts with `# ` (or is just `#`), and anything after
/// ` #` on a line.
enum ChannelsFile {
    /// The logins `text` lists, in order.
    ///
    /// - Throws: `ValidationError` naming `name:line` for a line that is not a channel login.
    static func parse(_ text: String, name: String) throws -> [String] {
        var logins: [String] = []
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let comment = line.firstRange(of: " #") ?? line.firstRange(of: "\t#") {
                line = line[..<comment.lowerBound]
            }
            line = line.drop { $0 == " " || $0 == "\t" }
            while let last = line.last, last == " " || last == "\t" || last == "\r" { line = line.dropLast() }
            if line.isEmpty || line.hasPrefix("# ") || line == "#" || line.hasPrefix("#\t") { continue }
            let login = Login.normalize(String(line))
            guard Login.isValid(login) else {
                throw ValidationError("\(name):\(number + 1): '\(line)' is not a channel login (letters, digits and _)")
            }
            logins.append(login)
        }
        return logins
    }

    /// Reads and parses the file at `path`.
    ///
    /// - Throws: `ValidationError` when it cannot be read or a line is not a login.
    static func read(_ path: String) throws -> [String] {
        guard let file = fopen(path, "r") else {
            throw ValidationError("--channels-file: cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        if ferror(file) != 0 { throw ValidationError("--channels-file: cannot read \(path)") }
        return try parse(String(decoding: bytes, as: UTF8.self), name: path)
    }
}
