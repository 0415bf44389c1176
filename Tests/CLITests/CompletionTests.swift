import ChatTestSupport
import Foundation
import Testing

/// `chatcap --generate-completion-script bash`, sourced into bash as a user's shell does, completes
/// file names where a command reads files, directories where it wants one, and the values of
/// options that take a word from a list (issue 24 item 8).
@Suite(.timeLimit(.minutes(20))) struct CompletionTests {
    /// What bash offers for the last of `words` (an empty string: nothing typed yet), in a directory
    /// holding `a.irc`, `b.log` and `sub/`.
    static func complete(_ words: [String]) throws -> [String] {
        let dir = try InputTempDirectory()
        try dir.write("a.irc", [])
        try dir.write("b.log", [])
        try dir.write("sub/c.irc", [])
        let script = try CLI.run(["--generate-completion-script", "bash"])
        try #require(script.status == 0, "\(script.stderr)")
        let scriptPath = try dir.write("chatcap.bash", script.stdout)
        let driver = """
            source "$0"
            COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _chatcap chatcap "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", driver, scriptPath] + words
        process.currentDirectoryURL = URL(fileURLWithPath: dir.path)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    @Test(
        "inputs and file options complete file names",
        arguments: [
            (["chatcap", "replay", "a"], ["a.irc"]),
            (["chatcap", "stats", "b"], ["b.log"]),
            (["chatcap", "watch", "s"], ["sub"]),
            (["chatcap", "serve", "--tls-cert", "a"], ["a.irc"]),
            (["chatcap", "tail", "--token-file", "b"], ["b.log"]),
            (["chatcap", "capture", "c", "--channels-file", "a"], ["a.irc"]),
        ])
    func files(words: [String], expected: [String]) throws {
        #expect(try Self.complete(words) == expected)
    }

    @Test("capture --dir and load's DIR complete directories only", arguments: ["--dir", ""])
    func directories(option: String) throws {
        let words = option.isEmpty ? ["chatcap", "load", ""] : ["chatcap", "capture", option, ""]
        #expect(try Self.complete(words) == ["sub"])
    }

    @Test(
        "options that take a word from a list offer it",
        arguments: [
            (["chatcap", "serve", "--unknown-channel", ""], ["empty", "refuse"]),
            (["chatcap", "replay", "--format", ""], ["irc", "json", "raw", "text"]),
            (["chatcap", "tail", "--transport", ""], ["tcp", "websocket"]),
            (["chatcap", "capture", "--rotate", ""], ["100M", "1G", "daily", "hourly"]),
            (["chatcap", "load", "--status", ""], ["auto", "json", "none"]),
        ])
    func values(words: [String], expected: [String]) throws {
        #expect(try Self.complete(words) == expected)
    }
}
