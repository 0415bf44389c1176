#if canImport(Glibc)
    import Glibc
#endif

/// A small text file the user names (a channels list, an opt-out list), read whole.
public enum TextFile: Sendable {
    /// Why it could not be read: the system's words (`No such file or directory`), or a read error.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The file at `path` as text (invalid UTF-8 repaired).
    ///
    /// - Throws: ``Failure`` when it cannot be opened or read.
    public static func read(_ path: String) throws(Failure) -> String {
        guard let file = unsafe fopen(path, "r") else { throw Failure(description: Errno.text(errno)) }
        defer { unsafe fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // SAFETY: `chunk` holds `chunk.count` bytes, the most fread writes; `file` is open until the defer.
            let n = unsafe fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        if unsafe ferror(file) != 0 { throw Failure(description: "read error") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
