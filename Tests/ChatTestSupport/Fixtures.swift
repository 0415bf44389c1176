import IRCWire

/// Locates the repository's `Fixtures/` (and the conformance suite kept in it) from this file's path.
public enum Fixtures: Sendable {
    /// The repository root (two levels above `Tests/ChatTestSupport`).
    public static let root: String = {
        var path = #filePath
        for _ in 0..<3 {
            if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) }
        }
        return path
    }()

    /// `Fixtures/` in the repository.
    public static var directory: String { root + "/Fixtures" }

    /// `Fixtures/conformance/ircdocs-parser-tests`: the ircdocs parser suite, kept in the repository
    /// (CC0; its `SOURCE.md` names the upstream commit), so a fresh clone needs nothing beside it.
    public static var conformanceDirectory: String { directory + "/conformance/ircdocs-parser-tests" }

    /// The bytes of `Fixtures/<relativePath>`.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        try FileBytes.read(directory + "/" + relativePath)
    }

    /// The names of `Fixtures/lines/*.irc`, sorted.
    public static func lineFiles() throws -> [String] {
        try FileBytes.list(directory + "/lines").filter { $0.hasSuffix(".irc") }.sorted()
    }
}
