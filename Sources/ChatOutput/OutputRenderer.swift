import ChatFormat
import ChatInput
import ChatStore
import IRCWire

/// Renders lines in the output format where their ``ParseAhead`` block is parsed, as
/// ``OutputPipeline`` would write them without moderation: with the line's own time, no tombstone,
/// not a mirror (``OutputPipeline/renderer()``, which says when that holds). The owner then copies a
/// line's rendering into the sink instead of encoding it, so the encoding runs on whichever thread
/// parses the block, mostly the reader thread.
///
/// Its output holds a block's lines one after another, each ending in its newline; the JSON writer's
/// structure starts afresh at each line (``JSONWriter/beginDocument()``), its bytes stay until
/// ``reset()``.
///
/// Thread safety: belongs to one ``ParseAhead`` block, touched by whichever thread holds the block
/// (the stage's hand-off orders them).
final class OutputRenderer: LineRendering, @unchecked Sendable {  // confined to its block's holder
    private var writer: JSONWriter
    private let format: OutputFormat
    private let json: JSONOptions
    private let text: TextRenderer

    /// - Precondition: `format` is not ``OutputFormat/raw`` (raw output is the line itself).
    init(format: OutputFormat, json: JSONOptions, text: TextRenderer) {
        precondition(format != .raw, "raw output is not rendered")
        self.format = format
        self.json = json
        self.text = text
        // About a block's lines in JSON (twice their bytes, more with tags and raw); grown once if not.
        writer = JSONWriter(capacity: 2 * ParseAhead.defaultBlockBytes)
    }

    var count: Int { writer.count }

    func reset() { writer.reset() }

    /// - Complexity: O(line). - Allocations: none once the output has grown.
    func render(_ line: inout LentLine, _ bytes: Span<UInt8>) -> Bool {
        let start = writer.count
        writer.beginDocument()
        let context = LineContext(
            timestamp: OutputPipeline.ownTime(line.timeSource, line.timestamp), tombstone: nil, isMirror: false)
        OutputPipeline.encode(bytes, line.message, context, format: format, json: json, text: text, into: &writer)
        return writer.count > start
    }

    func withOutput(_ body: (Span<UInt8>) -> Void) { writer.withBytes(body) }
}
