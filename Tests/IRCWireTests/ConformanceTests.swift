import ChatTestSupport
import IRCWire
import Testing
import Yams

/// The public ircdocs parser suite, read from `Fixtures/conformance/ircdocs-parser-tests` at test time.
@Suite struct ConformanceTests {
    struct SplitCase: Sendable, CustomTestStringConvertible {
        var input: String
        var atoms: Atoms
        var testDescription: String { input }
    }

    struct JoinCase: Sendable, CustomTestStringConvertible {
        var desc: String
        var atoms: Atoms
        var matches: [String]
        var testDescription: String { desc }
    }

    static func load(_ file: String) throws -> [[String: Any]] {
        let bytes = try FileBytes.read(Fixtures.conformanceDirectory + "/" + file)
        let root = try Yams.load(yaml: String(decoding: bytes, as: UTF8.self)) as? [String: Any]
        return try #require(root?["tests"] as? [[String: Any]], "no tests in \(file)")
    }

    static func atoms(_ dict: [String: Any]) -> Atoms {
        let tags = (dict["tags"] as? [String: Any])?.mapValues { "\($0)" }
        return Atoms(
            tags: tags, source: dict["source"] as? String, verb: dict["verb"] as? String ?? "",
            params: (dict["params"] as? [Any])?.map { "\($0)" } ?? [])
    }

    static let splitCases: [SplitCase] =
        (try? load("msg-split.yaml").map {
            SplitCase(input: $0["input"] as? String ?? "", atoms: atoms($0["atoms"] as? [String: Any] ?? [:]))
        }) ?? []

    static let joinCases: [JoinCase] =
        (try? load("msg-join.yaml").map {
            JoinCase(
                desc: $0["desc"] as? String ?? "", atoms: atoms($0["atoms"] as? [String: Any] ?? [:]),
                matches: ($0["matches"] as? [String]) ?? [])
        }) ?? []

    @Test("the suite is there and complete") func suiteLoaded() throws {
        // Fails loudly (instead of passing on zero cases) when the suite's files are missing or cut short.
        #expect(Self.splitCases.count == 35)
        #expect(Self.joinCases.count == 18)
    }

    @Test("msg-split: every line splits into the expected atoms", arguments: splitCases)
    func split(_ c: SplitCase) throws {
        let parsed = try Atoms.parse(Array(c.input.utf8))
        #expect(parsed == c.atoms)
    }

    @Test("msg-join: every atom set serialises to one of the accepted lines", arguments: joinCases)
    func join(_ c: JoinCase) throws {
        // The YAML's tag dictionaries are unordered; the suite accepts either order where it matters.
        let tags = (c.atoms.tags ?? [:]).sorted { $0.key < $1.key }.map { OutgoingTag($0.key, $0.value) }
        let message = OutgoingMessage(tags: tags, source: c.atoms.source, verb: c.atoms.verb, params: c.atoms.params)
        var out: [UInt8] = []
        try message.serialize(into: &out)
        let line = String(decoding: out, as: UTF8.self)
        #expect(c.matches.contains(line), "\(line) is none of \(c.matches)")
        // And what we write parses back to the same atoms.
        #expect(
            try Atoms.parse(out)
                == Atoms(tags: c.atoms.tags, source: c.atoms.source, verb: c.atoms.verb, params: c.atoms.params))
    }
}
