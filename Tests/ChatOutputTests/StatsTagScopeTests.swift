import ChatInput
import ChatOutput
import ChatTestSupport
import IRCWire
import Testing

/// `stats` reads its lines with only their times sorted (``TagScope/times``) and parses its rare lines
/// again whole: its counts are those of a reader that sorts every tag, on every fixture log (CAPTURE
/// records, USERNOTICEs and NOTICEs among them), read by the reader itself and through a parse-ahead
/// stage (whose blocks parse as the reader says).
@Suite struct StatsTagScopeTests {
    static func stats(_ paths: [String], _ scope: TagScope, parseAhead: Bool) throws -> String {
        let reader = try MergeReader(arguments: paths)
        reader.tagScope = scope
        let stats = StatsCollector(listLimit: 0)
        if parseAhead { stats.collect(ParseAhead(reader)) } else { stats.collect(reader) }
        return String(decoding: stats.json(), as: UTF8.self) + stats.text()
    }

    @Test("the counts of every fixture log, alone and all merged, with every tag sorted or only the times")
    func sameCounts() throws {
        let files = try Fixtures.lineFiles().map { Fixtures.directory + "/lines/" + $0 }
        #expect(files.count >= 10)
        var rare = 0
        for paths in files.map({ [$0] }) + [files] {
            let every = try Self.stats(paths, .every, parseAhead: false)
            for parseAhead in [false, true] {
                let times = try Self.stats(paths, .times, parseAhead: parseAhead)
                #expect(times == every, "\(paths.count == 1 ? paths[0] : "all"), parse-ahead \(parseAhead)")
            }
            if paths.count == 1 && (every.contains("\"usernotice\"") || every.contains("\"session\"")) { rare += 1 }
        }
        #expect(rare >= 2, "logs with lines stats parses again whole")
    }
}
