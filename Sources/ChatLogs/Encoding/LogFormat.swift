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
}
