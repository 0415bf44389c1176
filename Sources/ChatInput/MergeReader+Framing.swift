extension MergeReader {
    /// Whether ``frame(lines:events:)`` may be used: the reader has one lane (one input, or one
    /// sequence of them) and does not follow a directory. A merge of several lanes needs each line's
    /// parsed time for its order.
    var framesAlone: Bool { single != nil }

    /// The one lane's next events, framed but not parsed (``MergeLane/frame(lines:_:)``): each line
    /// to `line` with its place, every other event to `event`, with times left to be resolved in
    /// order. It goes on until a closure returns `false` (the owner stopped), the lane has nothing
    /// more, or ``framesPerCall`` events were framed. A ``ParseAhead`` stage frames this way on its
    /// reader thread and shares the parse of each block with its owner.
    ///
    /// A run per call, not one event: the call's own costs (the lane's reference count, the closures'
    /// set-up) came once per line, about 2% of a replay's samples in `swift_release` on the reader thread.
    ///
    /// - Returns: `false` when everything was handed out, or the merge stopped (``exhaustion``), and
    ///   the last call of the run found nothing more.
    /// - Precondition: ``framesAlone``.
    /// - Complexity: amortised O(bytes of the lines), plus reads. - Allocations: none per line.
    func frame(
        lines line: (PendingLine, Span<UInt8>) -> Bool, events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool {
        precondition(single != nil, "frame(lines:events:) on a reader of several lanes")
        return pullSingle { lane in
            var goOn = true
            for _ in 0..<Self.framesPerCall {
                guard lane.frame(lines: { goOn = line($0, $1) }, { goOn = event($0, $1) }) else { return false }
                if !goOn || lane.isStopped { break }
            }
            return true
        }
    }

    /// Events ``frame(lines:events:)`` frames at most in one call.
    static let framesPerCall = 64
}
