import ChatInput

/// Reads capture files through ChatInput's merge (``MergeReader``: gzip through ISA-L, lines in time
/// order across a day's hourly or size-rotated files) and hands each served line (``StoredLine``) to
/// its caller, counting what it could not serve.
///
/// A malformed line, an over-long one or a damaged file is counted in ``counts`` and skipped, never
/// a failure of the answer: the lines around it are still served.
///
/// Memory: one file open at a time (the files of one channel form one lane of the merge), its
/// framer's and inflater's buffers (about 200 KiB). Confined to the calling thread.
public struct ArchiveReader: ~Copyable {
    /// What a read skipped.
    public struct Counts: Sendable, Equatable {
        /// Lines handed out that parsed (served or not).
        public var lines = 0
        /// Lines the parser rejected, and over-long lines.
        public var malformed = 0
        /// Files that could not be opened or ended in damage.
        public var failedFiles = 0

        package init() {}

        /// Counts one event of the merge and gives the line it carries when that line is served.
        ///
        /// - Complexity: O(1). - Allocations: none.
        mutating func take(_ event: MergeEvent) -> StoredLine? {
            switch event {
            case .line(let at, let message):
                lines += 1
                let line = StoredLine(message: message, received: at.timestamp)
                return line.isServed ? line : nil
            case .malformed, .skipped:
                malformed += 1
            case .inputFailed:
                failedFiles += 1
            case .bareCarriageReturns:
                break
            }
            return nil
        }

        /// Adds what another read counted.
        package mutating func add(_ other: Counts) {
            lines += other.lines
            malformed += other.malformed
            failedFiles += other.failedFiles
        }
    }

    public private(set) var counts = Counts()

    public init() {}

    /// Calls `body` with every served line of `paths` in time order, until it returns `false`.
    ///
    /// - Complexity: O(bytes of the files read). - Allocations: the reader's buffers, once per call.
    public mutating func read(_ paths: [String], _ body: (StoredLine, Span<UInt8>) -> Bool) {
        guard !paths.isEmpty else { return }
        let cursor = DirectoryCursor(paths: paths)
        try? cursor.read(body)  // a directory cursor never fails
        counts.add(cursor.counts)
    }
}

@available(*, unavailable)
extension ArchiveReader: Sendable {}
