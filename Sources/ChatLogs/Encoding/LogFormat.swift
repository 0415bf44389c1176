import ChatLogStore

/// The response types of a logs answer, as rustlog chooses them from the query
/// (`src/web/schema.rs`, `LogsParams::response_type`: `raw`, then `jsonBasic`, then `json`, then
/// `ndjson`, else text), with the content types of `src/web/responders/logs/mod.rs`.
public enum LogFormat: Sendable, Equatable, CaseIterable {
    /// `[2025-11-21 04:26:41] #channel user: text`, CRLF after each line (`text_stream.rs`).
    case text
    /// `{"messages":[…]}` of full messages (`json_stream.rs`, `FullMessage`).
    case json
    /// `{"messages":[…]}` of basic messages (`BasicMessage`: no username, channel, raw or type).
    case jsonBasic
    /// One basic message per line, CRLF after each (`ndjson_stream.rs` serialises `BasicMessage`).
    case ndjson
    /// The IRC lines as the server sent them, CRLF after each.
    case raw

    /// The `Content-Type` of an answer.
    public var contentType: String {
        switch self {
        case .text, .raw: "text/plain; charset=utf-8"
        case .json, .jsonBasic: "application/json"
        case .ndjson: "application/x-ndjson"
        }
    }

    /// Whether the answer wraps its lines in `{"messages":[` … `]}`, separated by commas.
    var isJSONArray: Bool { self == .json || self == .jsonBasic }

    /// What a JSON answer writes before its line `index` (from 0): the array's opening before the first,
    /// a comma before each other; nothing for the other formats.
    ///
    /// - Allocations: none (shared constants).
    func separator(before index: Int) -> [UInt8] {
        guard isJSONArray else { return [] }
        return index == 0 ? Self.messagesOpen : Self.comma
    }

    /// What a JSON answer of `lines` lines ends with once it opened its array (``separator(before:)``):
    /// `]}`; nothing for the other formats or an answer without a line.
    func end(after lines: Int) -> [UInt8] { isJSONArray && lines > 0 ? Self.messagesClose : [] }

    static let messagesOpen: [UInt8] = Array(#"{"messages":["#.utf8)
    static let messagesClose: [UInt8] = Array("]}".utf8)
    private static let comma: [UInt8] = [UInt8(ascii: ",")]
}
