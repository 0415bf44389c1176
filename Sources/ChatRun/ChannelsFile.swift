import ChatPosix
public import TwitchSession

/// A `--channels-file` on disk: read (``TextFile``), then parsed by ``ChannelList`` (TwitchSession).
public enum ChannelsFile: Sendable {
    /// Why the file gives no list: it cannot be read, or a line is not a login (with its number).
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case invalidLine(path: String, ChannelList.LineError)

        /// `--channels-file: cannot read F: <why>`, or `F:3: 'x y' is not a channel login (…)`.
        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "--channels-file: cannot read \(path): \(reason)"
            case .invalidLine(let path, let error): error.description(in: path)
            }
        }
    }

    /// The logins the file at `path` lists, normalised, in order.
    ///
    /// - Throws: ``Failure`` when it cannot be read or a line is not a login.
    public static func read(_ path: String) throws(Failure) -> [String] {
        let text: String
        do throws(TextFile.Failure) { text = try TextFile.read(path) } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        do throws(ChannelList.LineError) {
            return try ChannelList.parse(text)
        } catch {
            throw .invalidLine(path: path, error)
        }
    }
}
