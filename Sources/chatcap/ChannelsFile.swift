import ArgumentParser
import TwitchSession

/// A `--channels-file` on disk: read, then parsed by ``ChannelList`` (TwitchSession).
enum ChannelsFile {
    /// Reads and parses the file at `path`.
    ///
    /// - Throws: `ValidationError` when it cannot be read or a line is not a login.
    static func read(_ path: String) throws -> [String] {
        let text: String
        do throws(TextFile.Failure) { text = try TextFile.read(path) } catch {
            throw ValidationError("--channels-file: cannot read \(path): \(error)")
        }
        do throws(ChannelList.LineError) {
            return try ChannelList.parse(text)
        } catch {
            throw ValidationError(error.description(in: path))
        }
    }
}
