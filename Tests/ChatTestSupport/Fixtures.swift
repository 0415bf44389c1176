import IRCWire

/// Locates the repository's `Fixtures/` and the shared conformance suite from this file's path.
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

    /// `../shared/conformance/ircdocs-parser-tests` beside the repository (never copied into it).
    public static var conformanceDirectory: String { root + "/../shared/conformance/ircdocs-parser-tests" }

    /// The bytes of `Fixtures/<relativePath>`.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        try FileBytes.read(directory + "/" + relativePath)
    }

    /// The names of `Fixtures/lines/*.irc`, sorted.
    public static func lineFiles() throws -> [String] {
        try FileBytes.list(directory + "/lines").filter { $0.hasSuffix(".irc") }.sorted()
    }
}
