#if canImport(Glibc)
    import Glibc
#endif

/// Minimal file reading for tests and tools, without Foundation.
public enum FileBytes: Sendable {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The whole file at `path`.
    public static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw Failure(description: "cannot open \(path)") }
        defer { fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        if ferror(file) != 0 { throw Failure(description: "read error on \(path)") }
        return out
    }

    /// The entry names of the directory at `path` (without `.` and `..`).
    public static func list(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw Failure(description: "cannot open directory \(path)") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether a file or directory exists at `path`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
