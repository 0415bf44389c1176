/// One capture file being followed.
final class TrackedFile {
    let relativePath: String
    let path: String
    let channel: String
    /// Whether it is a session file: its records go to the records table, its other lines nowhere.
    var isSession: Bool { channel == CaptureScan.sessionFolder }
    var acknowledged: FileProgress
    /// Bumped when the file is read again; rows of an older generation do not move the progress.
    var generation = 0
    var restartFromZero = false
    /// The size at the last listing; `nil` when the file was not listed (gone).
    var listedSize: UInt64?
    /// A size at which the file was found damaged: not read again until it changes.
    var damagedAtSize: UInt64?
    var reader: CaptureFileReader?
    /// Where the reader started, and the progress after the last line handed to a batch.
    var readFrom = FileProgress()
    var handed = FileProgress()
    var lastActiveMs: Int64 = 0

    /// Whether the file (not open) has something to load: listed, not empty, not at the size it was
    /// finished or found damaged at.
    var wantsOpening: Bool {
        guard let size = listedSize else { return false }
        return size > 0 && size != acknowledged.completeSize && size != damagedAtSize
    }

    init(relativePath: String, directory: String, acknowledged: FileProgress) {
        self.relativePath = relativePath
        path = directory + "/" + relativePath
        channel = String(relativePath.prefix { $0 != "/" })
        self.acknowledged = acknowledged
    }
}
