#if canImport(Glibc)
    import Glibc
#endif

/// A small text file the user names (a channels list, an opt-out list), read whole.
enum TextFile {
    /// Why it could not be read: the system's words (`No such file or directory`), or a read error.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The file at `path` as text (invalid UTF-8 repaired).
    ///
    /// - Throws: ``Failure`` when it cannot be opened or read.
    static func read(_ path: String) throws(Failure) -> String {
        guard let file = fopen(path, "r") else { throw Failure(description: String(cString: strerror(errno))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        if ferror(file) != 0 { throw Failure(description: "read error") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
