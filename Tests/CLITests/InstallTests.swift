import ChatTestSupport
import Foundation
import Testing

/// `--version`, and what `make install` puts under PREFIX (Scripts/install.sh): the binary, bash /
/// zsh / fish completions and the man page, generated from the same definitions as `--help`.
@Suite(.timeLimit(.minutes(20))) struct InstallTests {
    @Test("--version prints the version and exits 0")
    func version() throws {
        let run = try CLI.run(["--version"])
        #expect(run.status == 0)
        // Exactly the version the source states (Sources/chatcap/Version.swift), and a line end.
        let source = String(
            decoding: try FileBytes.read(Fixtures.root + "/Sources/chatcap/Version.swift"), as: UTF8.self)
        let version = try #require(source.firstMatch(of: /static let string = "([0-9]+\.[0-9]+\.[0-9]+)"/)?.1)
        #expect(String(decoding: run.stdout, as: UTF8.self) == "\(version)\n")
    }

    @Test("every command's usage line fits 80 columns (issue #35: dump's was 156, stats' 123)")
    func usageLines() throws {
        for command in ["replay", "dump", "stats", "tail", "serve", "watch", "capture", "load", "logs"] {
            let help = try CLI.run([command, "--help"])
            let usage = try #require(help.text.split(separator: "\n").first { $0.hasPrefix("USAGE: ") }, "\(command)")
            #expect(usage.count <= 80, "\(command): \(usage.count) columns: \(usage)")
        }
    }

    @Test("install.sh: binary, completions for bash, zsh and fish, and a man page naming every command")
    func install() throws {
        // Built next to the test bundle by `make test` (`swift build --product generate-manual`).
        let tool = (CLI.binary as NSString).deletingLastPathComponent + "/generate-manual"
        try #require(
            FileManager.default.isExecutableFile(atPath: tool),
            "\(tool) is missing: `make test` builds it (swift build --product generate-manual)")
        let dir = try InputTempDirectory()
        let prefix = dir.path + "/usr"
        let run = try CLI.shell(
            "Scripts/install.sh \(CLI.shellBinary) \(InputShell.quote(prefix)) \(InputShell.quote(tool))")
        #expect(run.status == 0, "\(run.text)\(run.stderr)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/chatcap"))
        // Installed stripped (issue #35: the installed binary kept its symbol tables).
        let sections = try CLI.shell("readelf -S \(InputShell.quote(prefix + "/bin/chatcap"))")
        #expect(sections.status == 0 && !sections.text.contains(".symtab"), "\(sections.stderr)")
        #expect(try CLI.shell("\(InputShell.quote(prefix + "/bin/chatcap")) --version").status == 0)
        let bash = prefix + "/share/bash-completion/completions/chatcap"
        let loaded = try CLI.shell("bash -c 'source \(bash) && complete -p chatcap'")
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.text.contains("chatcap"))
        let zsh = try String(contentsOfFile: prefix + "/share/zsh/site-functions/_chatcap", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef chatcap"))
        let fish = try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/chatcap.fish", encoding: .utf8)
        let commands = ["replay", "dump", "stats", "tail", "serve", "watch", "capture", "load", "logs"]
        for command in commands {
            #expect(zsh.contains(command) && fish.contains(command), "\(command)")
        }
        let page = try CLI.shell(
            "LC_ALL=C.UTF-8 MANWIDTH=100 man -l \(InputShell.quote(prefix + "/share/man/man1/chatcap.1"))")
        #expect(page.status == 0, "\(page.stderr)")
        // Each subcommand has its own section, its name at the start of an indented line.
        let lines = page.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for command in commands {
            #expect(lines.contains { $0 == command || $0.hasPrefix(command + "  ") }, "\(command)")
        }
        #expect(page.text.contains("--apply-moderation"))
        // No mdoc warning (the generator's blank lines were 7), and examples (issue #35's newcomer).
        let lint = try CLI.shell(
            "LC_ALL=C.UTF-8 groff -mdoc -ww -z \(InputShell.quote(prefix + "/share/man/man1/chatcap.1")) 2>&1")
        #expect(lint.status == 0 && lint.text.isEmpty, "\(lint.text)")
        #expect(lines.contains("EXAMPLES"), "an EXAMPLES section")
        #expect(page.text.contains("chatcap serve Fixtures/lines/privmsg.irc --port 16667 --loop &"))
    }
}
