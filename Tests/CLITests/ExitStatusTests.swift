import ChatTestSupport
import Foundation
import Testing

/// Exit statuses are named once, in `Sources/chatcap/ExitStatus.swift` (sysexits names), and used
/// by name everywhere: a bare `ExitCode(74)` is a number a reader must look up (issue 27 item 4).
@Suite struct ExitStatusTests {
    /// Every `ExitCode(<digits>)` in `Sources`, as `file:line`.
    static func literalExitCodes() throws -> [String] {
        let sources = Fixtures.root + "/Sources"
        let files = try #require(FileManager.default.enumerator(atPath: sources)).compactMap { $0 as? String }
        var found: [String] = []
        for file in files.sorted() where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(/ExitCode\(\s*[0-9]/) {
                found.append("Sources/\(file):\(number + 1)")
            }
        }
        return found
    }

    @Test("no exit status is a bare number in Sources: each is an ExitStatus name")
    func noLiteralExitCodes() throws {
        #expect(try Self.literalExitCodes() == [])
    }

    @Test("ExitStatus holds the sysexits values chatcap documents, under their sysexits names")
    func sysexitsNames() throws {
        let text = try String(contentsOfFile: Fixtures.root + "/Sources/chatcap/ExitStatus.swift", encoding: .utf8)
        let cases = text.matches(of: /case `?(\w+)`? = ([0-9]+)/).map { "\($0.output.1)=\($0.output.2)" }
        #expect(
            cases == [
                "usage=64", "dataErr=65", "noInput=66", "unavailable=69", "software=70", "ioErr=74", "tempFail=75",
                "protocol=76", "noPerm=77", "config=78",
            ])
    }
}
