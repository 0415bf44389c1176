/// One shard of a channel list, `K/N`: the channels whose shard number is `K`, so that `N` capture
/// hosts given the same list each join a disjoint part of it and together all of it.
///
/// A channel's shard number is `crc32(login) % N + 1`, where `login` is the channel's login in lower
/// case without `#` (``Login/normalize(_:)``), as UTF-8 bytes, and `crc32` is the CRC-32 of zlib, gzip
/// and PNG (IEEE 802.3, reflected polynomial `0xEDB88320`, initial value and final xor `0xFFFFFFFF`;
/// ``ChannelShard/crc32(_:)``). Any tool computes it, e.g. Python: `zlib.crc32(b"login") % N + 1`;
/// see docs/scale.md.
public struct ChannelShard: Sendable, Equatable, CustomStringConvertible {
    /// The largest `N` accepted.
    public static let maximumCount = 4096

    /// `K`, from 1 to ``count``.
    public let index: Int
    /// `N`, from 1 to ``maximumCount``.
    public let count: Int

    /// The shard `index`/`count`, or `nil` unless `1 <= index <= count <= maximumCount`.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maximumCount, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N` (decimal digits only, e.g. `2/5`), or `nil` when it is not a valid shard.
    public init?(argument text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }),
            let index = Int(parts[0]), let count = Int(parts[1])
        else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether `channel` (a login, any case, with or without `#`) belongs to this shard.
    ///
    /// - Complexity: O(login length). - Allocations: the normalised login.
    public func contains(_ channel: String) -> Bool {
        Self.shardIndex(of: channel, count: count) == index
    }

    /// The channels of `channels` that belong to this shard, in their order.
    public func filter(_ channels: [String]) -> [String] { channels.filter(contains) }

    /// The shard number (1…`count`) of `channel` among `count` shards.
    ///
    /// - Precondition: `count >= 1`.
    public static func shardIndex(of channel: String, count: Int) -> Int {
        precondition(count >= 1, "a shard count is at least 1")
        return Int(crc32(Array(Login.normalize(channel).utf8)) % UInt32(count)) + 1
    }

    /// The CRC-32 of `bytes` (zlib's `crc32`, Python's `zlib.crc32`): `crc32("123456789") == 0xCBF43926`.
    ///
    /// - Complexity: O(`bytes.count`), bit by bit: logins are at most 25 bytes. - Allocations: none.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
