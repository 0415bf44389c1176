import ChatGzip
import IRCWire
import TwitchSession

/// One destination directory of a capture (a channel, or `_session`): its open file and its counters.
///
/// Owned by its ``CaptureWriter``; confined to the writer's thread.
final class CaptureLane {
    /// Lowercase login bytes (or `_session`), compared against each line's channel.
    let key: [UInt8]
    /// `key`'s length and its bytes as ``pack(_:)`` packs them: a line's channel is compared with these,
    /// in the lane's own first cache line, not with `key`'s storage (one cache miss fewer per line at
    /// 10,000 channels, where the lane of the line before is almost never the line's).
    private let keyCount: Int
    private let packedKey: PackedName?
    let name: String
    let directory: String
    var writer: GzipWriter? = nil
    /// Period (see ``CaptureRotation/period(ofWallMs:)``) and continuation index of the open file.
    var period: Int64 = .min
    var index = 0
    /// The latest period this lane has had a file of in this run: a file of an earlier one may still
    /// be closing on the writer thread (``CaptureWriter/openFile(of:period:index:)`` waits for it).
    var newestPeriod: Int64 = .min
    /// Bytes the open file had before this writer appended to it.
    var existingBytes: UInt64 = 0
    /// Written to since the last flush.
    var dirty = false
    /// Taken off the channel list at run time (``CaptureWriter/retire(channels:)``): its file
    /// is finished, and its lines go to `_session` as unjoined until it is admitted again.
    var isParted = false
    /// The writer's use count and the wall time at this lane's last write (see
    /// ``CaptureWriter/closeLeastRecentlyWritten(besides:)``, idle closing in ``CaptureWriter/tick(now:)``).
    var lastUse: UInt64 = 0
    var lastWallMs: Int64 = 0
    /// The file this capture closed last (its period, index and, when known, the size at which it ends
    /// in a finished member), while no file is open: a later line reopens it.
    var closedFile: (period: Int64, index: Int, size: UInt64?)? = nil
    /// Counters over the whole capture.
    var lines: UInt64 = 0
    /// Chat messages among them (PRIVMSG and USERNOTICE).
    var messages: UInt64 = 0
    var closedUncompressed: UInt64 = 0
    var lagSumMs: Int64 = 0
    var lagCount: Int64 = 0

    init(key: [UInt8], directory: String) {
        self.key = key
        keyCount = key.count
        packedKey = Self.pack(key.span)
        name = String(decoding: key, as: UTF8.self)
        self.directory = directory
    }

    /// Bytes of the open file on disk (what size rotation compares with its limit).
    var fileBytes: UInt64 { existingBytes + (writer?.compressedByteCount ?? 0) }

    var uncompressedBytes: UInt64 { closedUncompressed + (writer?.uncompressedByteCount ?? 0) }

    /// Whether `channel` (bytes of a login, any case), packed as `packed` (``pack(_:)``), names this lane.
    /// A name of up to 32 bytes is compared as packed; only a longer one reads `key` itself.
    ///
    /// - Complexity: O(1) up to 32 bytes, else O(`key.count`). - Allocations: none.
    @inline(__always)
    func matches(_ channel: Span<UInt8>, packed: PackedName?) -> Bool {
        if channel.count != keyCount { return false }
        if let packed, let packedKey { return packed == packedKey }
        return channel.equals(lowercased: key, at: channel.indices)
    }

    /// The first 32 bytes of `name`, ASCII-lowercased and zero-padded, or `nil` when it is longer (a
    /// login has at most 25). Two names of the same length up to 32 bytes name the same lane exactly
    /// when their packs are equal.
    ///
    /// - Complexity: O(`name.count`). - Allocations: none.
    @inline(__always)
    static func pack(_ name: Span<UInt8>) -> PackedName? {
        guard name.count <= MemoryLayout<PackedName>.size else { return nil }
        var packed = PackedName()
        unsafe withUnsafeMutableBytes(of: &packed) { raw in
            for i in name.indices {
                let byte = name[i]
                // SAFETY: `i < name.count <= 32`, the size of `packed`.
                unsafe raw[i] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
        }
        return packed
    }

    /// A name's first 32 bytes as four words (``pack(_:)``): compared in four word compares. (A
    /// `SIMD32<UInt8>` filled byte by byte cost a quarter of capture's time.)
    struct PackedName: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        static func == (a: PackedName, b: PackedName) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
        }
    }

    /// Whether `channel` can name a directory: a ``Login`` that does not start with `_` (Twitch logins
    /// never do, which keeps `_session` apart).
    static func isDirectoryName(_ channel: Span<UInt8>) -> Bool {
        Login.isValid(channel) && channel[0] != UInt8(ascii: "_")
    }
}

@available(*, unavailable)
extension CaptureLane: Sendable {}
