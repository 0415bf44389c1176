/// Recorded chat handed out one event at a time, in merged order, on the caller's thread: a
/// ``MergeReader`` read there, or a ``ParseAhead`` stage that reads one on a thread of its own. The
/// commands and the output pipeline take either through this one path.
///
/// Generic code over it stays specialised on the per-line path: call it with the concrete type, or
/// give the generic function `@_specialize` clauses for both (an unspecialised generic call across
/// modules costs its metadata on every event).
///
/// Thread safety: the conforming types are confined to one thread (the owner's).
public protocol EventSource: AnyObject {
    /// Hands the next event in merged order to `body`, with a line's bytes for `.line` and
    /// `.malformed` (an empty span otherwise); the bytes must not be used after `body` returns.
    ///
    /// - Returns: `false` when everything was handed out (or the source was ended), and `body` was
    ///   not called.
    /// - Complexity: O(1) per event besides reading it. - Allocations: none per line.
    func next(_ body: (MergeEvent, Span<UInt8>) -> Void) -> Bool

    /// Ends the source: no event is read after it returns (a ``ParseAhead`` stage's thread is ended
    /// and joined; a ``MergeReader`` has nothing to end). Later calls do nothing.
    func finish()

    /// The error that stopped the merge early (``MergeReader/exhaustion``).
    var exhaustion: InputError? { get }

    /// What was handed out so far (``MergeReader/statistics``).
    var statistics: MergeStatistics { get }
}

extension MergeReader: EventSource {
    /// ``next(_:)`` for a `body` that does not throw: the same events, through code specialised here
    /// (the generic one is not specialised in other modules).
    public func next(_ body: (MergeEvent, Span<UInt8>) -> Void) -> Bool {
        nextEvent(body)
    }

    /// Nothing to end: the reader reads on its caller's thread, and only when asked.
    public func finish() {}
}

extension ParseAhead: EventSource {}
