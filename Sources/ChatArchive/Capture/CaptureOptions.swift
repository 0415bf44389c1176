/// How a ``CaptureWriter`` names, tags and flushes its files.
public struct CaptureOptions: Sendable, Equatable {
    /// When files rotate (default: one file per channel per UTC day).
    public var rotation: CaptureRotation = .daily
    /// Store the received bytes unchanged instead of adding a `time` tag.
    public var verbatim = false
    /// Every open file is flushed (a sync flush, then `write(2)`) at least this often, so a killed
    /// process loses at most the lines of the last interval. 500 ms keeps the 1 s promise with room for
    /// a slow tick.
    public var flushIntervalMs: Int64 = 500
    /// gzip level, 0…9: 1…3 on ISA-L, 0 and 4…9 on zlib (see ``GzipWriter``).
    public var level: Int32 = CaptureOptions.defaultLevel
    /// The default level for captures: 1, ISA-L's fastest full level. On generated Twitch chat it
    /// compresses about 3.9:1 (zlib's level 1: 3.67:1) at under half the CPU per line of zlib's level 1;
    /// `--level 6` (zlib, 4.35:1) costs about 5× the CPU per line (see `make bench`).
    public static let defaultLevel: Int32 = 1
    /// Size of each compressed-output chunk (each open file fills one at a time).
    public var outputCapacity = 64 * 1024
    /// Most compressed bytes waiting for the disk before the ingest thread stops reading the socket
    /// (back-pressure; see ``CaptureWriter``).
    public var bufferLimit = 16 << 20
    /// Most files open at once (channels and `_session`). Past it, the file written to least recently
    /// is finished (a complete gzip member) and closed; a later line reopens it and appends a new member.
    public var maxOpenFiles = CaptureOptions.defaultMaxOpenFiles
    /// The default ``maxOpenFiles`` of a writer made without one: well under the usual 1,024
    /// descriptors per process. `chatcap capture` gives each channel joined a file instead, within half
    /// the descriptor limit (docs/capture.md, "Open files").
    public static let defaultMaxOpenFiles = 128
    /// Whether a flush of every open file shares its compression with a second thread (``LoopHelper``):
    /// with many channels, nearly all of capture's compressing happens at those flushes (a file's
    /// staged text is compressed when its stage fills or at a flush), and the ingest thread stops
    /// reading while it runs. The files' bytes are the same either way.
    public var flushThread = false
    /// A file not written to for this long is closed at the next flush (reopened on demand).
    public var idleCloseMs: Int64 = 300_000
    /// The channels joined (logins, any case, `#` optional): only they get files of their own; lines of
    /// any other channel go to `_session` and are counted. `nil`: every channel gets its own files.
    public var channels: [String]? = nil

    public init(rotation: CaptureRotation = .daily, verbatim: Bool = false) {
        self.rotation = rotation
        self.verbatim = verbatim
    }
}
