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
    public var level: Int32 = GzipWriter.defaultLevel
    /// Compressed-output buffer per open file: also the most one file can hold in memory between
    /// flushes (plus zlib's ~256 KiB state).
    public var outputCapacity = 64 * 1024

    public init(rotation: CaptureRotation = .daily, verbatim: Bool = false) {
        self.rotation = rotation
        self.verbatim = verbatim
    }
}
