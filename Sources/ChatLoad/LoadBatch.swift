/// The rows of one INSERT and, per file, the progress they bring once acknowledged.
struct LoadBatch {
    var bytes: [UInt8] = []
    var count = 0
    var firstAtMs: Int64 = 0
    /// Per file: the reading generation and the progress after its last row here.
    var marks: [String: (generation: Int, progress: FileProgress)] = [:]
    /// Receive times (capture's `time` tag) of the rows, for the delay figures.
    var receivedMs: [Int64] = []
    /// The compressed body, made at the first attempt and re-sent as it is.
    var body: [UInt8]? = nil
}
