extension MergeReader {
    /// Whether ``frame(lines:events:)`` may be used: the reader has one lane (one input, or one
    /// sequence of them) and does not follow a directory. A merge of several lanes needs each line's
    /// parsed time for its order.
    var framesAlone: Bool { single != nil }

    /// The one lane's next event, framed but not parsed (``MergeLane/frame(lines:_:)``): a line to
    /// `line` with its place, every other event to `event`, with times left to be resolved in order.
    /// A ``ParseAhead`` stage frames this way on its reader thread and shares the parse of each block
    /// with its owner.
    ///
    /// - Returns: `false` when everything was handed out, or the merge stopped (``exhaustion``), and
    ///   neither closure was called.
    /// - Precondition: ``framesAlone``.
    /// - Complexity: amortised O(bytes of the line), plus reads. - Allocations: none per line.
    func frame(
        lines line: (PendingLine, Span<UInt8>) -> Void, events event: (MergeEvent, Span<UInt8>) -> Void
    ) -> Bool {
        guard let single else { preconditionFailure("frame(lines:events:) on a reader of several lanes") }
        return pullSingle(single) { lane in lane.frame(lines: line, event) }
    }
}
