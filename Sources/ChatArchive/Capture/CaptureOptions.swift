/// How a ``CaptureWriter`` names, tags and flushes its files.
public struct CaptureOptions: Sendable, Equatable {
    /// When files rotate (default: one file per channel per UTC day).
    public var rotation: CaptureRotation = .daily
    /// Store the received bytes unchanged instead of adding a `time` tag.
    public var verbatim = false
    /// Every open file is flushed (`Z_SYNC_FLUSH`, then `write(2)`) at least this often, so a killed
    /// process loses at most the lines of the last interval. 500 ms keeps the 1 s promise with room for
    /// a slow tick.
    public var flushIntervalMs: Int64 = 500
    /// zlib level, 0…9.
    public var level: Int32 = CaptureOptions.defaultLevel
    /// The default level for captures: 1, zlib's fastest. On generated Twitch chat it compresses
    /// 3.7:1 at about twice the speed of level 6 (4.35:1), which keeps one core ahead of 200,000 lines/s;
    /// `--level` trades speed for size (see `make bench`).
    public static let defaultLevel: Int32 = 1
    /// Size of each compressed-output chunk (each open file fills one at a time).
    public var outputCapacity = 64 * 1024
    /// Most compressed bytes waiting for the disk before the ingest thread stops reading the socket
    /// (back-pressure; see ``CaptureWriter``).
    public var bufferLimit = 16 << 20

    public init(rotation: CaptureRotation = .daily, verbatim: Bool = false) {
        self.rotation = rotation
        self.verbatim = verbatim
    }
}
