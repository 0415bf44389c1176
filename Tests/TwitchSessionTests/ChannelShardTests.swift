import Testing
import TwitchSession

@Suite struct ChannelShardTests {
    @Test("CRC-32 is zlib's: the check value and Python's zlib.crc32 of logins")
    func crc() {
        #expect(ChannelShard.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(ChannelShard.crc32([]) == 0)
        // python3 -c 'import zlib; print(hex(zlib.crc32(b"pixelharbor")))'
        #expect(ChannelShard.crc32(Array("pixelharbor".utf8)) == 0xB1CF_E6CD)
        #expect(ChannelShard.crc32(Array("quartzquill".utf8)) == 0x01A1_CB30)
    }

    @Test("a channel's shard is crc32(lower-case login without #) % N + 1, the same as Python computes")
    func assignment() {
        // python3 -c 'import zlib; print(zlib.crc32(b"lunafrost") % 2 + 1)' and so on.
        let expected: [(String, Int, Int)] = [
            ("pixelharbor", 2, 1), ("lunafrost", 1, 2), ("grimfang_tv", 2, 1), ("velvetspeedruns", 2, 2),
            ("ottertech", 2, 2), ("mossyforge", 1, 2), ("quartzquill", 1, 3), ("tidewatcher", 1, 1),
        ]
        for (login, ofTwo, ofThree) in expected {
            #expect(ChannelShard.shardIndex(of: login, count: 2) == ofTwo, "\(login)")
            #expect(ChannelShard.shardIndex(of: login, count: 3) == ofThree, "\(login)")
            #expect(ChannelShard.shardIndex(of: "#" + login.uppercased(), count: 3) == ofThree, "\(login)")
            #expect(ChannelShard.shardIndex(of: login, count: 1) == 1)
        }
    }

    @Test("the shards of a list are disjoint and together the whole list")
    func partition() {
        let channels = (0..<500).map { "channel_\($0)" }
        for n in [1, 2, 3, 7, 64] {
            let parts = (1...n).map { ChannelShard(index: $0, count: n)!.filter(channels) }
            #expect(parts.reduce(0) { $0 + $1.count } == channels.count)
            #expect(Set(parts.joined()) == Set(channels))
            if n <= 7 {
                #expect(parts.allSatisfy { $0.count > 500 / n / 2 }, "roughly balanced: \(parts.map(\.count))")
            }
        }
    }

    @Test("K/N parses only for 1 <= K <= N <= 4096")
    func parse() {
        #expect(ChannelShard(argument: "1/2") == ChannelShard(index: 1, count: 2))
        #expect(ChannelShard(argument: "4096/4096")?.description == "4096/4096")
        #expect(ChannelShard(argument: "1/1")?.count == 1)
        for bad in ["0/2", "3/2", "1/0", "1/4097", "1", "/2", "1/", "a/b", "-1/2", "1/2/3", " 1/2", "+1/2", "1//2", ""]
        {
            #expect(ChannelShard(argument: bad) == nil, "\(bad)")
        }
    }
}
