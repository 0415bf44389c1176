/// The text of a channels file (`--channels-file`): one channel login per line, with or without a
/// leading `#`. Blank lines are ignored, and so are comments: a line that starts with `# ` (or is just
/// `#`), and anything after ` #` on a line. Lines may end in LF, CR LF or CR (a file written on
/// Windows reads like one written here).
public enum ChannelList: Sendable {
    /// A line that is not a channel login.
    public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line's number, from 1.
        public var line: Int
        /// The line as read, without comment and surrounding blanks.
        public var text: String
        /// Why it is not a login.
        public var reason: String

        public init(line: Int, text: String, reason: String) {
            self.line = line
            self.text = text
            self.reason = reason
        }

        /// `name:line: 'text' is not a channel login (reason)`.
        public func description(in name: String) -> String {
            "\(name):\(line): '\(text)' is not a channel login (\(reason))"
        }

        public var description: String { "line \(line): '\(text)' is not a channel login (\(reason))" }
    }

    /// The logins `text` lists, normalised (``Login/normalize(_:)``), in order.
    ///
    /// - Throws: ``LineError`` for the first line that is not a login.
    /// - Complexity: O(`text` length). - Allocations: the logins.
    public static func parse(_ text: String) throws(LineError) -> [String] {
        var logins: [String] = []
        // `\.isNewline` and not "\n": Swift reads CR LF as one Character, which "\n" never matches.
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .enumerated()
        {
            var line = Substring(rawLine)
            if let comment = line.firstRange(of: " #") ?? line.firstRange(of: "\t#") {
                line = line[..<comment.lowerBound]
            }
            line = line.drop { $0 == " " || $0 == "\t" }
            while let last = line.last, last == " " || last == "\t" { line = line.dropLast() }
            if line.isEmpty || line.hasPrefix("# ") || line == "#" || line.hasPrefix("#\t") { continue }
            let login = Login.normalize(line)
            guard Login.isValid(login) else {
                throw LineError(line: number + 1, text: String(line), reason: Login.whyInvalid(login))
            }
            logins.append(login)
        }
        return logins
    }
}
