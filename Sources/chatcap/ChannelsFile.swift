import ArgumentParser
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// A `--channels-file` on disk: read, then parsed by ``ChannelList`` (TwitchSession).
enum ChannelsFile {
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
        do throws(ChannelList.LineError) {
            return try ChannelList.parse(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw ValidationError(error.description(in: path))
        }
    }
}
