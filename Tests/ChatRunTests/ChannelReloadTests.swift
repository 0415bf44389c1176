import ChatRun
import ChatTestSupport
import Testing
import TwitchSession

/// The channel list read again from `--channels-file`: what is joined, parted and kept, and what is said.
@Suite struct ChannelReloadTests {
    static func reload(
        _ directory: InputTempDirectory, _ text: String, arguments: [String] = [], shard: ChannelShard? = nil,
        inForce: [String]
    ) throws -> ChannelReload {
        let path = try directory.write("channels.txt", Array(text.utf8))
        return ChannelReload(path: path, arguments: arguments, shard: shard, channels: inForce)
    }

    @Test("channels added and removed are named, the unchanged ones are neither, and the new list is in force")
    func addedRemovedUnchanged() throws {
        let directory = try InputTempDirectory()
        let reload = try Self.reload(directory, "alpha\n#Beta\ngamma\n", inForce: ["alpha", "delta", "beta"])
        let outcome = reload.reload()
        #expect(outcome == .changed(added: ["gamma"], removed: ["delta"], count: 3))
        #expect(reload.channels == ["alpha", "beta", "gamma"])
        #expect(
            reload.describe(outcome)
                == "channel list reloaded from \(reload.path): joining #gamma, parting #delta; 3 channels")
        // Read again unchanged: nothing to join or part.
        let again = reload.reload()
        #expect(again == .changed(added: [], removed: [], count: 3))
        #expect(reload.describe(again) == "channel list reloaded from \(reload.path): no change; 3 channels")
    }

    @Test("the channels named on the command line stay, whatever the file says")
    func argumentsStay() throws {
        let directory = try InputTempDirectory()
        let reload = try Self.reload(directory, "beta\n", arguments: ["#Alpha"], inForce: ["alpha", "gamma"])
        #expect(reload.reload() == .changed(added: ["beta"], removed: ["gamma"], count: 2))
        #expect(reload.channels == ["alpha", "beta"])
    }

    @Test("an invalid line keeps the list in force and is reported with its line number")
    func invalidLine() throws {
        let directory = try InputTempDirectory()
        let reload = try Self.reload(directory, "alpha\n\nnot a login\n", inForce: ["alpha", "beta"])
        let outcome = reload.reload()
        guard case .kept(let reason, let count) = outcome else {
            Issue.record("expected the list kept, got \(outcome)")
            return
        }
        #expect(count == 2)
        #expect(reason.hasPrefix("\(reload.path):3: 'not a login' is not a channel login ("))
        #expect(reload.channels == ["alpha", "beta"])
        #expect(
            reload.describe(outcome)
                == "channel list not reloaded from \(reload.path): \(reason); keeping the 2 channels in force")
    }

    @Test("a file written on Windows (CR LF) reads as one written here, comments and blank lines ignored")
    func crlf() throws {
        let directory = try InputTempDirectory()
        let reload = try Self.reload(
            directory, "# list\r\nalpha\r\n\r\nbeta # note\r\n", inForce: ["alpha"])
        #expect(reload.reload() == .changed(added: ["beta"], removed: [], count: 2))
    }

    @Test("a missing file, an empty list and a shard keeping none keep the list in force, each saying why")
    func keptReasons() throws {
        let directory = try InputTempDirectory()
        let missing = ChannelReload(
            path: directory.path + "/gone.txt", arguments: [], shard: nil, channels: ["alpha"])
        guard case .kept(let why, 1) = missing.reload() else {
            Issue.record("a missing file must keep the list")
            return
        }
        #expect(why == "--channels-file: cannot read \(directory.path)/gone.txt: No such file or directory")
        let empty = try Self.reload(directory, "# nothing\n", inForce: ["alpha"])
        #expect(empty.reload() == .kept(reason: "\(empty.path) lists no channel", count: 1))
        // crc32("alpha") % 2 == 0: shard 2/2 keeps none of it (and keeps "beta", % 2 == 1).
        let shard = try #require(ChannelShard(argument: "2/2"))
        let sharded = try Self.reload(directory, "alpha\n", shard: shard, inForce: ["beta"])
        #expect(sharded.reload() == .kept(reason: "shard 2/2 keeps none of the 1 channels listed", count: 1))
        let both = try Self.reload(directory, "alpha\nbeta\n", shard: shard, inForce: ["beta"])
        #expect(both.reload() == .changed(added: [], removed: [], count: 1))
    }

    @Test("a long change is cut at the byte bound: … and N more")
    func longChange() throws {
        let directory = try InputTempDirectory()
        let names = (0..<2_000).map { "channel\($0)" }
        let reload = try Self.reload(directory, names.joined(separator: "\n"), inForce: [])
        let text = reload.describe(reload.reload())
        #expect(text.utf8.count < ChannelReload.listedBytes + 200)
        #expect(text.contains(" more; 2000 channels"))
    }

    @Test("with a watch interval, a change is applied once the file stayed the same for one more look")
    func watchSettles() throws {
        let directory = try InputTempDirectory()
        let path = try directory.write("channels.txt", Array("alpha\n".utf8))
        let reload = ChannelReload(path: path, arguments: [], shard: nil, channels: ["alpha"], watchIntervalMs: 100)
        #expect(reload.poll(nowMs: 0) == nil)
        try directory.write("channels.txt", Array("alpha\nbeta\n".utf8))
        #expect(reload.poll(nowMs: 100) == nil)  // changed since the last look: not settled yet
        #expect(reload.poll(nowMs: 150) == nil)  // between looks
        #expect(reload.poll(nowMs: 200) == .changed(added: ["beta"], removed: [], count: 2))
        #expect(reload.poll(nowMs: 300) == nil)  // read already
    }
}
