import ChatInput

/// The served lines of capture files in order, through ChatInput's merge (``MergeReader``: gzip through
/// ISA-L; the files form one lane, read one after the other). Malformed lines, over-long ones and
/// damaged files are counted and passed over, never a failure.
///
/// Memory: one file open at a time, its framer's and inflater's buffers (about 200 KiB).
final class DirectoryCursor: LineCursor {
    private let reader: MergeReader?
    private(set) var counts = ArchiveReader.Counts()
    var failure: LogsError? { nil }

    init(paths: [String]) {
        reader = paths.isEmpty ? nil : MergeReader(paths: paths, groups: [Array(paths.indices)])
    }

    /// - Complexity: amortised O(bytes of the line). - Allocations: none per line.
    func next(_ body: (StoredLine, Span<UInt8>) -> Void) -> Bool {
        guard let reader else { return false }
        return reader.next { event, bytes in
            if let line = counts.take(event) { body(line, bytes) }
        }
    }
}

@available(*, unavailable)
extension DirectoryCursor: Sendable {}
