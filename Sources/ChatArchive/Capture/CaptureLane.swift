import ChatGzip
import ChatIndex
import ChatStore
import IRCWire
import TwitchSession

/// One destination directory of a capture (a channel, or `_session`): its open file and its counters.
///
/// Owned by its ``CaptureWriter``; confined to the writer's thread.
final class CaptureLane {
    /// Lowercase login bytes (or `_session`), compared against each line's channel.
    let key: [UInt8]
    /// `key`'s length and its words (``ChannelIndex/words(of:lowercasingASCII:)``): a line's channel is
    /// compared with these, in the lane's own first cache line, not with `key`'s storage (one cache
    /// miss fewer per line at 10,000 channels, where the lane of the line before is almost never the
    /// line's).
    private let keyCount: Int
    private let keyWords: InlineArray<4, UInt64>
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
        keyWords = ChannelIndex.words(of: key.span)
        name = String(decoding: key, as: UTF8.self)
        self.directory = directory
    }

    /// Bytes of the open file on disk (what size rotation compares with its limit).
    var fileBytes: UInt64 { existingBytes + (writer?.compressedByteCount ?? 0) }

    var uncompressedBytes: UInt64 { closedUncompressed + (writer?.uncompressedByteCount ?? 0) }

    /// Whether `channel` (bytes of a login, any case), whose lowercased words are `words`
    /// (``ChannelIndex/words(of:lowercasingASCII:)``), names this lane. A name of up to
    /// ``ChannelIndex/inlineBytes`` bytes is compared by its words; only a longer one reads `key`.
    ///
    /// - Complexity: O(1) up to 32 bytes, else O(`key.count`). - Allocations: none.
    @inline(__always)
    func matches(_ channel: Span<UInt8>, words: InlineArray<4, UInt64>) -> Bool {
        if channel.count != keyCount { return false }
        if keyCount <= ChannelIndex.inlineBytes { return ChannelIndex.sameWords(words, keyWords) }
        return channel.equals(lowercased: key, at: channel.indices)
    }

    /// Whether `channel` can name a directory: a ``Login`` that does not start with `_` (Twitch logins
    /// never do, which keeps `_session` apart).
    static func isDirectoryName(_ channel: Span<UInt8>) -> Bool {
        Login.isValid(channel) && channel[0] != UInt8(ascii: "_")
    }
}

@available(*, unavailable)
extension CaptureLane: Sendable {}
