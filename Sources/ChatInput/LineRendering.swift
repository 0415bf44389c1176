/// Output made from a parsed line where its block is parsed, on whichever thread parses it
/// (``ParseAhead``): the owner then copies the bytes out instead of encoding the line itself.
///
/// A ``ParseAhead`` stage made with a renderer factory gives each of its blocks a renderer of its
/// own. The block renders each line it parses (or, for a merge of several lanes, each line as it
/// is appended) into the renderer's output, one line after another, and lends the line with its
/// bytes there (``ParseAhead/next(rendered:ahead:events:)``). What a renderer writes for a line may depend on that
/// line alone (its bytes, its message, its own time), never on the lines around it or on the owner's
/// state (the store): the owner decides whether to use it.
///
/// ```
///  block:  [ line 0 ][ line 1 ][ line 2 ] …          the lines' bytes
///  output: [ out 0     ][ out 1 ][ out 2       ] …   what render(_:_:) appended for each
/// ```
///
/// Thread safety: a renderer belongs to its block, and is touched by whichever thread holds the block
/// (the reader thread or the owner; the stage's hand-off orders them), one at a time.
public protocol LineRendering: AnyObject {
    /// Bytes of output written since the last ``reset()``.
    var count: Int { get }

    /// Forgets the output, keeping its storage: the block is filled again.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func reset()

    /// Appends the output of `line` (parsed from `bytes`). Its time is the line's own, or none yet:
    /// a time inherited from the line before is known only when the line is lent, in order (a block of
    /// a merge of several lanes has it already; ``LentLine/timeSource`` tells which).
    ///
    /// `inout` though it changes nothing: the block hands over the line where it keeps it, where a
    /// borrowed line read from the block's memory was copied (its 370 bytes) for the call.
    ///
    /// - Returns: whether it rendered the line; `false` (nothing appended) leaves it to the owner. A
    ///   rendered line is never empty: the owner takes an empty rendering for none.
    /// - Complexity: O(line). - Allocations: none once the output has grown.
    func render(_ line: inout LentLine, _ bytes: Span<UInt8>) -> Bool

    /// Lends the output written since the last ``reset()``.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func withOutput(_ body: (Span<UInt8>) -> Void)
}
