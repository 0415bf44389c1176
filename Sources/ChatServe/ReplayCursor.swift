import ChatInput
import ChatStore
import IRCWire

/// A position in the log: hands out the log's lines in merged time order, one at a time, and starts
/// over on ``rewind()``. Each ``LogTimeline`` has one.
///
/// Over files it owns a ``MergeReader`` of its own (opened lazily, reopened on rewind), so each
/// timeline reads at its own pace and never holds more than the reader's buffers; over a
/// ``MemoryLog`` it is just an index.
///
/// Malformed and over-long lines are skipped and counted in ``skippedLines``; an input that fails
/// part-way is passed to `onFailure` and the reader goes on with the next input; so is the warning
/// about an input whose lines hold bare CRs (``MergeEvent/bareCarriageReturns(_:count:)``).
///
/// Confined to the server's loop thread.
final class ReplayCursor {
    private enum Source {
        case files(paths: [String], reader: MergeReader?)
        case memory(MemoryLog, next: Int)
    }

    private var source: Source
    private let onFailure: (String) -> Void
    /// Lines passed over because they are malformed or too long, over all passes.
    private(set) var skippedLines = 0

    init(paths: [String], onFailure: @escaping (String) -> Void) {
        source = .files(paths: paths, reader: nil)
        self.onFailure = onFailure
    }

    init(memory: MemoryLog, onFailure: @escaping (String) -> Void) {
        source = .memory(memory, next: 0)
        self.onFailure = onFailure
    }

    /// Hands the next parsed line to `body`: its time (milliseconds since 1970, when known: its own or
    /// the one it inherits from the line before, see ``ChatArchive/MergedLine/timestamp``), the line
    /// as Twitch chat, and its bytes (without terminator, valid only during `body`).
    ///
    /// - Returns: `false` at the end of the log (`body` was not called).
    /// - Complexity: amortised O(bytes of the line and of skipped lines before it), plus reads; a line
    ///   of a ``MemoryLog`` is parsed again (O(line), no allocation).
    /// - Allocations: none per line; a pass over files opens each input's buffers.
    func next(_ body: (_ time: Int64?, _ message: TwitchMessage, _ bytes: Span<UInt8>) -> Void) -> Bool {
        switch source {
        case .memory(let log, let index):
            guard index < log.entries.count else { return false }
            source = .memory(log, next: index + 1)
            log.withLine(index) { entry, bytes in
                // Every stored line parsed when it was loaded.
                guard let message = try? TwitchMessage.parse(bytes) else { return }
                body(entry.time, message, bytes)
            }
            return true
        case .files(let paths, let existing):
            let reader = existing ?? MergeReader(paths: paths)
            if existing == nil { source = .files(paths: paths, reader: reader) }
            var delivered = false
            while !delivered {
                let more = reader.next { event, bytes in
                    switch event {
                    case .line(let at, let message):
                        delivered = true
                        body(at.timestamp?.milliseconds, message, bytes)
                    case .malformed, .skipped:
                        skippedLines += 1
                    case .inputFailed(_, let error, _):
                        onFailure("\(error)")
                    case .bareCarriageReturns:
                        onFailure(event.diagnostic)
                    }
                }
                if !more { return false }
            }
            return true
        }
    }

    /// Goes back to the start of the log (reopening files on the next ``next(_:)``).
    func rewind() {
        switch source {
        case .memory(let log, _): source = .memory(log, next: 0)
        case .files(let paths, _): source = .files(paths: paths, reader: nil)
        }
    }
}

@available(*, unavailable)
extension ReplayCursor: Sendable {}

extension ParsedLine {
    /// Where the line starts without its `@tags ` prefix and the spaces after it (0 when it has no
    /// tags): taken from the parser's offsets, so stripping tags needs no second scan.
    var untaggedStart: Int {
        guard hasTags else { return 0 }
        // A source starts with the `:` just before `sourceRange`; without one the verb comes next.
        return hasSource ? Int(sourceRange.lower) - 1 : Int(verbRange.lower)
    }
}
