import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(20))) struct InputPathsTests {
    @Test(
        "directories: capture's date-named logs and *.irc[.gz], recursively, in name order; the rest skipped and listed"
    )
    func searchesDirectories() throws {
        let dir = try InputTempDirectory()
        for name in [
            "b.log", "a.irc", "c.txt", "d.log.gz", "notes.md", "data.json", ".hidden.log", "sub/z.log",
            "sub/deeper/y.irc", ".git/config.log", "sub/.cache/x.log", "A.LOG", "e.gz", "f.irc.gz",
            "chan/2025-11-21.log.gz", "chan/2025-11-21T04.log", "chan/2025-11-21.0003.log.gz",
            "chan/2025-11-21.1.log.gz",
            "chan/2025-11-21x.log", "apt/history.log", "apt/term.log.1.gz",
        ] {
            try dir.write(name, [])
        }
        let found = try InputPaths.expansion(of: [dir.path])
        let relative = { (paths: [String]) in paths.map { String($0.dropFirst(dir.path.count + 1)) } }
        #expect(
            relative(found.paths) == [
                "a.irc", "chan/2025-11-21.0003.log.gz", "chan/2025-11-21.1.log.gz", "chan/2025-11-21.log.gz",
                "chan/2025-11-21T04.log", "f.irc.gz", "sub/deeper/y.irc",
            ])
        #expect(
            relative(found.skipped) == [
                "A.LOG", "apt/history.log", "apt/term.log.1.gz", "b.log", "c.txt", "chan/2025-11-21x.log", "d.log.gz",
                "data.json", "e.gz", "notes.md", "sub/z.log",
            ])
        #expect(found.repeated.isEmpty)
    }

    @Test("overlapping inputs: DIR DIR, DIR and DIR/sub, a file twice or through a link: each file read once")
    func overlappingInputs() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("cap/luna/2025-11-21.log.gz", [])
        let b = try dir.write("cap/pix/2025-11-21.log.gz", [])
        let cap = dir.path + "/cap"
        #expect(try InputPaths.expand([cap, cap]) == [a, b])
        let nested = try InputPaths.expansion(of: [cap, cap + "/luna"])
        #expect(nested.paths == [a, b])
        let twice = try InputPaths.expansion(of: [a, a])
        #expect(twice.paths == [a] && twice.repeated == [a])
        let link = dir.path + "/link.log.gz"
        #expect(symlink(a, link) == 0)
        #expect(try InputPaths.expansion(of: [a, link]).paths == [a])
    }

    @Test("files are taken as given, whatever their name, and argument order is kept")
    func keepsArgumentOrder() throws {
        let dir = try InputTempDirectory()
        let z = try dir.write("z.data", [])
        let a = try dir.write("logs/a.irc", [])
        let m = try dir.write("m.log", [])
        #expect(try InputPaths.expand([z, dir.path + "/logs", "-", m]) == [z, a, "-", m])
        #expect(try InputPaths.expand([dir.path + "/logs/"]) == [dir.path + "/logs/a.irc"])
    }

    @Test("standard input may be named once")
    func standardInputOnce() {
        #expect(throws: InputError.standardInputRepeated) { try InputPaths.expand(["-", "-"]) }
    }

    @Test("a missing path is notFound")
    func missing() throws {
        let dir = try InputTempDirectory()
        let path = dir.path + "/missing.log"
        #expect(throws: InputError.notFound(path: path)) { try InputPaths.expand([path]) }
    }

    @Test("a directory without logs is noLogs, with a message that says what was looked for")
    func noLogs() throws {
        let dir = try InputTempDirectory()
        try dir.write("readme.md", [])
        try dir.write(".hidden.log", [])
        #expect(throws: InputError.noLogs(directory: dir.path)) { try InputPaths.expand([dir.path]) }
        // What a directory really gives: not *.txt, not any *.log or *.gz (issue 24 item 8).
        #expect(
            InputError.noLogs(directory: "caps").description
                == "caps: directory holds no chat logs (a directory gives capture's YYYY-MM-DD….log[.gz] and "
                + "*.irc[.gz]; name a file to read it whatever its name)")
    }

    @Test("load's bookkeeping (_load/*.progress, *.lock) is skipped without a word; other files are still listed")
    func loadBookkeepingSkipped() throws {
        let dir = try InputTempDirectory()
        let log = try dir.write("luna/2025-11-21.log.gz", [])
        try dir.write("_load/127.0.0.1_8123_chat.lines.progress", [])
        try dir.write("_load/127.0.0.1_8123_chat.lines.lock", [])
        let notes = try dir.write("luna/notes.txt", [])
        let found = try InputPaths.expansion(of: [dir.path])
        #expect(found.paths == [log])
        #expect(found.skipped == [notes])
        #expect(found.repeated == [])
    }

    @Test("a directory argument already searched (DIR DIR, DIR DIR/chan) is read once and said")
    func repeatedDirectoryArgument() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("cap/luna/2025-11-21.log.gz", [])
        let b = try dir.write("cap/pix/2025-11-21.log.gz", [])
        let cap = dir.path + "/cap"
        let nested = try InputPaths.expansion(of: [cap, cap + "/luna"])
        #expect(nested.paths == [a, b])
        #expect(nested.repeated == [cap + "/luna"])
        #expect(nested.notes == ["read once, named again: \(cap)/luna"])
        let twice = try InputPaths.expansion(of: [cap, cap])
        #expect(twice.paths == [a, b] && twice.repeated == [cap])
    }

    @Test("unreadable files and directories are permissionDenied (as root too: in a child that becomes nobody)")
    func unreadable() async {
        await #expect(processExitsWith: .success) {
            try dropRootPrivileges()
            let dir = try InputTempDirectory()
            let file = try dir.write("secret.log", [])
            chmod(file, 0)
            #expect(throws: InputError.permissionDenied(path: file)) { try InputPaths.expand([file]) }
            let locked = try dir.file("locked/x.log")
            try dir.write("locked/x.log", [])
            let lockedDir = (locked as NSString).deletingLastPathComponent
            chmod(lockedDir, 0)
            defer { chmod(lockedDir, 0o755) }
            #expect(throws: InputError.permissionDenied(path: lockedDir)) { try InputPaths.expand([lockedDir]) }
        }
    }

    @Test("a symbolic link loop is searched once")
    func linkLoop() throws {
        let dir = try InputTempDirectory()
        let log = try dir.write("sub/a.irc", [])
        #expect(symlink(dir.path, dir.path + "/sub/loop") == 0)
        #expect(try InputPaths.expand([dir.path]) == [log])
    }

    @Test("dated files of one directory are read one after another; everything else is merged")
    func sequentialGroups() {
        let paths = [
            "cap/a/2025-11-20.log.gz", "cap/a/2025-11-21.log.gz", "cap/a/notes.log", "cap/b/2025-11-20.log",
            "cap/a/2025-11-21.1.log.gz", "cap/b/2025-11-22.log", "-", "2025-11-20.log", "cap/a/2025-11-2x.log",
            "cap/a/2025-11-200.log",
        ]
        #expect(InputPaths.sequentialGroups(paths) == [[0, 1], [2], [3, 5], [4], [6], [7], [8], [9]])
    }

    @Test("hourly capture files chain like day files; a day file beside hours of its day, or a repeated hour, does not")
    func hourlyGroups() {
        let paths = [
            "cap/a/2025-11-20T22.log.gz", "cap/a/2025-11-20T23.log.gz", "cap/a/2025-11-21T00.log.gz",
            "cap/a/2025-11-21T01.log.gz", "cap/b/2025-11-21T00.log.gz", "cap/b/2025-11-21T05.log",
            "cap/a/2025-11-21.log.gz", "cap/a/2025-11-21T01.1.log.gz", "cap/a/2025-11-21T1.log",
            "cap/a/2025-11-21T011.log", "cap/a/2025-11-22T00.log.gz",
        ]
        // 2025-11-21T1 and T011 are not hours: they read as the day 2025-11-21.
        #expect(
            InputPaths.sequentialGroups(paths) == [[0, 1, 2, 3, 10], [4, 5], [6], [7], [8], [9]])
    }

    @Test("size rotation's four-digit parts chain across days; earlier versions' continuations and a day file do not")
    func sizePartGroups() {
        let paths = [
            "cap/a/2025-11-20.0000.log.gz", "cap/a/2025-11-20.0001.log.gz", "cap/a/2025-11-20.0010.log.gz",
            "cap/a/2025-11-21.0000.log.gz", "cap/a/2025-11-21.0001.log.gz", "cap/a/2025-11-21.1.log.gz",
            "cap/a/2025-11-21.log.gz", "cap/a/2025-11-21.00001.log.gz", "cap/a/2025-11-22.0000.log.gz",
        ]
        #expect(InputPaths.sequentialGroups(paths) == [[0, 1, 2, 3, 4, 8], [5], [6], [7]])
    }

    @Test("a week of hourly files of 6 channels makes 6 chains of 168 files")
    func hourlyWeek() {
        var paths: [String] = []
        for channel in 0..<6 {
            for day in 1...7 {
                for hour in 0..<24 {
                    let h = hour < 10 ? "0\(hour)" : "\(hour)"
                    paths.append("cap/ch\(channel)/2025-12-0\(day)T\(h).log.gz")
                }
            }
        }
        let groups = InputPaths.sequentialGroups(paths)
        #expect(groups.count == 6)
        #expect(groups.map(\.count) == Array(repeating: 168, count: 6))
        #expect(groups.flatMap { $0 } == Array(paths.indices))
    }
}
