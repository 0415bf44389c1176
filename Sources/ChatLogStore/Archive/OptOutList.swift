/// Who has opted out of the archive being served: Twitch user ids and logins, channels or users alike
/// (rustlog keeps one opt-out set for both, `check_opted_out` in `src/app.rs`).
///
/// Read from a file of one entry per line — a login or a numeric id; blank lines and `#` comments
/// are ignored, logins are lowered — so an operator can keep it by hand and reload it (`SIGHUP`).
public struct OptOutList: Sendable, Equatable {
    public private(set) var ids: Set<String> = []
    public private(set) var logins: Set<String> = []

    public init() {}

    /// Why a file could not be read as a list.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var text: String
        public var description: String { "line \(line): '\(text)' is neither a login nor a numeric user id" }

        public init(line: Int, text: String) {
            self.line = line
            self.text = text
        }
    }

    /// The list that `text` holds.
    ///
    /// - Throws: ``ParseError`` naming the first entry that is neither a login nor an id.
    /// - Complexity: O(`text` length). - Allocations: the sets.
    public init(parsing text: String) throws(ParseError) {
        var number = 0
        // Split on every line end: "\r\n" is one Character, so splitting on "\n" alone would miss it.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            var entry = raw
            if let hash = entry.firstIndex(of: "#") { entry = entry[..<hash] }
            let trimmed = entry.trimmingWhitespace
            if trimmed.isEmpty { continue }
            if LogName.isId(trimmed) {
                ids.insert(String(trimmed))
            } else if let login = LogName.login(trimmed) {
                logins.insert(login)
            } else {
                throw ParseError(line: number, text: String(trimmed))
            }
        }
    }

    public var isEmpty: Bool { ids.isEmpty && logins.isEmpty }

    /// Whether `login` (lowercase) or `id` is on the list.
    public func contains(login: String?, id: String?) -> Bool {
        if let login, logins.contains(login) { return true }
        if let id, ids.contains(id) { return true }
        return false
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and CRs.
    fileprivate var trimmingWhitespace: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s = s.dropLast() }
        return s
    }
}
