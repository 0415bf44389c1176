public import ChatInput

/// What a reader handed out, whole: every event as text (its kind, its location with the input's
/// name, the parsed message's fields or the error) with its bytes, then the reader's counts and the
/// error that stopped it.
public struct MergeTranscript: Equatable, Sendable {
    public var events: [String] = []
    public var statistics = MergeStatistics()
    public var exhaustion: InputError? = nil

    public init() {}

    public static func entry(_ event: MergeEvent, _ bytes: Span<UInt8>) -> String {
        var copy: [UInt8] = []
        for i in bytes.indices { copy.append(bytes[i]) }
        return "\(event) | \(copy.count) bytes: \(String(decoding: copy, as: UTF8.self))"
    }

    /// The reader read on the calling thread.
    public static func direct(_ reader: MergeReader) -> MergeTranscript {
        var out = MergeTranscript()
        // swift-format-ignore: ReplaceForEachWithForLoop
        reader.forEachEvent { event, bytes in out.events.append(entry(event, bytes)) }
        out.statistics = reader.statistics
        out.exhaustion = reader.exhaustion
        return out
    }

    /// The reader read ahead by a ``ParseAhead`` stage with these blocks.
    public static func ahead(_ reader: MergeReader, blockBytes: Int, blockEvents: Int, blockCount: Int)
        -> MergeTranscript
    {
        let stage = ParseAhead(reader, blockBytes: blockBytes, blockEvents: blockEvents, blockCount: blockCount)
        var out = MergeTranscript()
        // swift-format-ignore: ReplaceForEachWithForLoop
        stage.forEachEvent { event, bytes in out.events.append(entry(event, bytes)) }
        out.statistics = stage.statistics
        out.exhaustion = stage.exhaustion
        return out
    }
}
