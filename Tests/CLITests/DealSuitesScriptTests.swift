import ChatTestSupport
import Foundation
import Testing

/// Scripts/deal_suites.py, which deals the process-driving suites to `make test`'s side-by-side parts
/// (Scripts/run_tests.sh): by their times alone, longest first, each to the part with the least so far.
@Suite(.timeLimit(.minutes(20))) struct DealSuitesScriptTests {
    /// The script's lines for `suites` dealt to `shards` with `weights` (`seconds suite` lines; `nil`:
    /// no weights file).
    static func deal(_ suites: [String], shards: Int, weights: String?) throws -> [String] {
        let dir = try CLITempDirectory.make("deal-\(UUID().uuidString.prefix(8))")
        defer { CLITempDirectory.remove(dir) }
        if let weights { try weights.write(toFile: "\(dir)/weights", atomically: true, encoding: .utf8) }
        let run = try CLI.shell(
            "printf '\(suites.map { "\($0)\\n" }.joined())' | python3 Scripts/deal_suites.py \(shards) \(dir)/weights")
        try #require(run.status == 0, "\(run.stderr)")
        return String(decoding: run.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    @Test("longest first, each to the least loaded part; an unknown suite weighs the median")
    func longestFirst() throws {
        // Known: 50, 30, 10 (median 30); D and E unknown.
        let lines = try Self.deal(["A", "B", "C", "D", "E"], shards: 3, weights: "10 A\n50 B\n30 C\n")
        #expect(lines == ["50 B", "60 C E", "40 D A"])
    }

    @Test("one long suite and many short ones: the short ones fill the other parts")
    func evensOut() throws {
        let weights = "300 Long\n" + (1...12).map { "50 S\($0)\n" }.joined()
        let lines = try Self.deal(["Long"] + (1...12).map { "S\($0)" }, shards: 3, weights: weights)
        let totals = lines.map { Int($0.split(separator: " ")[0])! }
        #expect(totals == [300, 300, 300], "\(lines)")
        // Every suite exactly once.
        let dealt = lines.flatMap { $0.split(separator: " ").dropFirst().map(String.init) }
        #expect(dealt.sorted() == (["Long"] + (1...12).map { "S\($0)" }).sorted())
    }

    @Test("without a weights file every suite weighs the same: dealt in name order, evenly")
    func noWeights() throws {
        let lines = try Self.deal(["E", "D", "C", "B", "A"], shards: 2, weights: nil)
        #expect(lines == ["180 A C E", "120 B D"])
        let more = try Self.deal(["A"], shards: 3, weights: nil)
        #expect(more == ["60 A", "0", "0"])
    }
}
