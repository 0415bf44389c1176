public import IRCWire

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
    /// Hands the next events in merged order, each parsed line to `line` (borrowed: it must not be
    /// kept) and every other event to `event`, with the line's bytes (for `.malformed` too; an empty
    /// span otherwise), which must not be used after the call returns. It goes on until a call
    /// returns `false` (the events after it come with the next call) or the source has no more at
    /// hand: one event for a ``MergeReader``, up to a block's for a ``ParseAhead`` stage.
    ///
    /// - Returns: `false` when everything was handed out (or the source was ended), and neither
    ///   closure was called.
    /// - Complexity: O(1) per event besides reading it. - Allocations: none per line.
    func next(
        lines line: (borrowing LentLine, Span<UInt8>) -> Bool, events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool

    /// ``next(lines:events:)`` with each line's rendering: the bytes a ``LineRendering`` wrote for it
    /// where it was parsed (``ParseAhead``), or an empty span when nobody rendered it (always, for a
    /// ``MergeReader``). Lent with the line, under the same rules. Lines still to come are shown to
    /// `ahead` (their channel and bytes), ``ParseAhead/aheadDistance`` events before their turn, for
    /// a caller that prefetches what they will need: a ``ParseAhead`` stage shows the lines of its
    /// blocks; a ``MergeReader``, which holds no line ahead, none.
    ///
    /// - Complexity: as ``next(lines:events:)``. - Allocations: none per line.
    func next(
        rendered line: (borrowing LentLine, Span<UInt8>, Span<UInt8>) -> Bool,
        ahead: (ByteRange?, Span<UInt8>) -> Void,
        events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool

    /// The name of input `index` (``MergedLine/inputName``), for diagnostics about a ``LentLine``.
    func inputName(at index: Int) -> String

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

    /// ``EventSource/next(lines:events:)``: one event. With one lane (one input, or one sequence of
    /// them) a parsed line is lent as the lane builds it, with no ``MergeEvent`` around it.
    public func next(
        lines line: (borrowing LentLine, Span<UInt8>) -> Bool, events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool {
        // Closures written out at each call, not one kept in a local: that one's context would be
        // allocated on every call.
        guard single != nil else { return nextEvent { e, bytes in Self.route(e, bytes, line, event) } }
        return pullSingle { lane in
            lane.pull(lines: { l, bytes in _ = line(l, bytes) }, { e, bytes in Self.route(e, bytes, line, event) })
        }
    }

    /// A `.line` event to `line` (a line holding bare CRs, or any line with several lanes), any other
    /// to `event`.
    @inline(__always)
    private static func route(
        _ e: MergeEvent, _ bytes: Span<UInt8>, _ line: (borrowing LentLine, Span<UInt8>) -> Bool,
        _ event: (MergeEvent, Span<UInt8>) -> Bool
    ) {
        if case .line(let at, let message) = e {
            _ = line(LentLine(at, message), bytes)
        } else {
            _ = event(e, bytes)
        }
    }

    /// ``EventSource/next(rendered:ahead:events:)``: nothing is rendered here; every line comes with
    /// an empty rendering (its own bytes' first zero), and no line is read ahead, so `ahead` is never
    /// called.
    public func next(
        rendered line: (borrowing LentLine, Span<UInt8>, Span<UInt8>) -> Bool,
        ahead: (ByteRange?, Span<UInt8>) -> Void = { _, _ in },
        events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool {
        next(lines: { l, bytes in line(l, bytes, bytes.extracting(0..<0)) }, events: event)
    }

    public func inputName(at index: Int) -> String {
        paths[index] == "-" ? FileSource.standardInputName : paths[index]
    }

    /// Nothing to end: the reader reads on its caller's thread, and only when asked.
    public func finish() {}
}

extension ParseAhead: EventSource {}
