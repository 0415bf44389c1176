public import ChatFormat
import ChatLogStore

extension LogsAPI {
    /// The OpenAPI 3.0 document of ``operations``, as `/openapi.json` serves it.
    public static let tree: JSONTree = makeDocument()
    /// ``tree``'s JSON text.
    public static let document: [UInt8] = tree.bytes

    private static func makeDocument() -> JSONTree {
        var paths: [(String, JSONTree)] = []
        for operation in operations {
            var get: [(String, JSONTree)] = [
                ("operationId", .string(operation.operationId)), ("summary", .string(operation.summary)),
                ("description", .string(operation.description)),
            ]
            if !operation.parameters.isEmpty { get.append(("parameters", .array(operation.parameters))) }
            get.append(("responses", .object(operation.responses)))
            paths.append((operation.path, ["get": .object(get)]))
        }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "chatcap logs",
                "version": "1.0",
                "description": .string(
                    "The rustlog/justlog logs API over a chatcap capture directory or its ClickHouse table. "
                        + "Every answer carries `x-rustlog-capabilities` and `Access-Control-Allow-Origin: *`; "
                        + "HEAD is answered as GET, an OPTIONS preflight with CORS headers; `Accept-Encoding: gzip` gets a gzip "
                        + "body. A trailing `/` "
                        + "is ignored. Logs answers are text by default, `?json` (full messages), `?jsonBasic`, "
                        + "`?ndjson` (basic messages, one a line) or `?raw` (the IRC lines)."),
            ],
            "paths": .object(paths),
            "components": [
                "schemas": schemas, "parameters": .object(parameters), "responses": responses,
                "headers": [
                    "Capabilities": [
                        "description": "What the API can do beyond justlog's: `arbitrary-range-query`.",
                        "schema": ["type": "string"],
                    ],
                    "CacheControl": [
                        "description": "`no-cache` while the range is still going on, else `public, max-age=36000`.",
                        "schema": ["type": "string"],
                    ],
                ],
            ],
        ]
    }

    // MARK: Building blocks

    static func ref(_ schema: String) -> JSONTree { ["$ref": .string("#/components/schemas/" + schema)] }
    static func ref(parameter: String) -> JSONTree { ["$ref": .string("#/components/parameters/" + parameter)] }
    static func ref(response: String) -> JSONTree { ["$ref": .string("#/components/responses/" + response)] }
    static func json(_ schema: JSONTree) -> [(String, JSONTree)] { [("application/json", ["schema": schema])] }

    /// A response object; `headers` are names of `#/components/headers`.
    static func response(
        _ description: String, content: [(String, JSONTree)] = [], headers: [(String, String)] = []
    ) -> JSONTree {
        var members: [(String, JSONTree)] = [("description", .string(description))]
        if !headers.isEmpty {
            members.append(
                ("headers", .object(headers.map { ($0.0, ["$ref": .string("#/components/headers/" + $0.1)]) })))
        }
        if !content.isEmpty { members.append(("content", .object(content))) }
        return .object(members)
    }

    static func response(_ description: String, content: [String: JSONTree]) -> JSONTree {
        response(description, content: content.sorted { $0.key < $1.key }.map { ($0.key, ["schema": $0.value]) })
    }

    /// A path parameter: a login, an id (decimal digits), or a date's part.
    static func pathParameter(_ name: String) -> JSONTree {
        let schema: JSONTree
        let description: String
        switch name {
        case "channel", "user":
            schema = ["type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_]{0,24}$"]
            description = "A Twitch login (any case)."
        case "year", "month", "day":
            schema = ["type": "integer", "minimum": 0]
            description = "The UTC \(name) (leading zeros allowed)."
        default:
            schema = ["type": "string", "pattern": "^[0-9]{1,20}$"]
            description = "A Twitch id (`room-id` of a channel's lines, `user-id` of a user's)."
        }
        return [
            "name": .string(name), "in": "path", "required": true, "description": .string(description),
            "schema": schema,
        ]
    }

    /// The query parameters, by name.
    private static var parameters: [(String, JSONTree)] {
        func flag(_ name: String, _ description: String) -> (String, JSONTree) {
            (
                name,
                [
                    "name": .string(name), "in": "query", "required": false, "allowEmptyValue": true,
                    "description": .string(description + " True when present, whatever its value."),
                    "schema": ["type": "string"],
                ]
            )
        }
        func query(_ name: String, _ description: String, _ schema: JSONTree, required: Bool = false)
            -> (String, JSONTree)
        {
            (
                name,
                [
                    "name": .string(name), "in": "query", "required": .bool(required),
                    "description": .string(description), "schema": schema,
                ]
            )
        }
        let login: JSONTree = ["type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_]{0,24}$"]
        let id: JSONTree = ["type": "string", "pattern": "^[0-9]{1,20}$"]
        return [
            flag("json", "Full messages as JSON: `{\"messages\":[…]}`."),
            flag("jsonBasic", "Basic messages as JSON (no username, channel, raw, type)."),
            flag("ndjson", "Basic messages, one JSON object a line."),
            flag("raw", "The IRC lines as the server sent them."),
            flag("reverse", "Newest first."),
            query("limit", "At most this many lines.", ["type": "integer", "minimum": 0]),
            query("offset", "Skip this many lines first.", ["type": "integer", "minimum": 0]),
            query("from", "With `to`: the range's start (RFC 3339).", ["type": "string", "format": "date-time"]),
            query(
                "to", "With `from`: the range's end, excluded (RFC 3339).", ["type": "string", "format": "date-time"]),
            query("q", "The text to look for.", ["type": "string"], required: true),
            query("channel", "The channel by login (this or `channelid` is required).", login),
            query("channelid", "The channel by id.", id),
            query("user", "A user by login: their months instead of the channel's days.", login),
            query("userid", "A user by id.", id),
        ]
    }

    private static let errorText: [(String, JSONTree)] = [("text/plain", ["schema": ["type": "string"]])]

    private static var responses: JSONTree {
        [
            "Logs": response(
                "The lines, streamed, oldest first (`reverse`: newest first). Text: `[YYYY-MM-DD HH:MM:SS] "
                    + "#channel user: text` CRLF; `raw`: the IRC lines CRLF; `ndjson`: one basic message a line.",
                content: [
                    ("text/plain", ["schema": ["type": "string"]]),
                    ("application/json", ["schema": ref("Messages")]),
                    ("application/x-ndjson", ["schema": ["type": "string"]]),
                ],
                headers: [("Cache-Control", "CacheControl"), ("x-rustlog-capabilities", "Capabilities")]),
            "Latest": [
                "description": "See Other: the latest day (a channel) or month (a user) with lines, the query carried.",
                "headers": ["Location": ["schema": ["type": "string"]]],
            ],
            "BadRequest": response(
                "`Invalid param: …`, `Int parse error: …` or `Failed to deserialize query string: …`.",
                content: errorText),
            "OptedOut": response("The channel or user has opted out of being logged.", content: errorText),
            "NotFound": response(
                "`Not found`: no such channel, user, day or month, or nothing in it.", content: errorText),
            "StoreError": response("`Store error: …`: the store answered an error.", content: errorText),
            "Unavailable": response(
                "`Store unavailable: …` (ClickHouse cannot be reached) or `Server busy: …` (too many connections).",
                content: errorText),
        ]
    }

    private static var schemas: JSONTree {
        let string: JSONTree = ["type": "string"]
        return [
            "ChannelsList": [
                "type": "object", "required": ["channels"],
                "properties": [
                    "channels": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["name", "userID"],
                            "properties": ["name": string, "userID": string],
                        ],
                    ]
                ],
            ],
            "AvailableLogs": [
                "type": "object", "required": ["availableLogs"],
                "properties": [
                    "availableLogs": [
                        "type": "array",
                        "items": [
                            "type": "object", "required": ["year", "month"],
                            "properties": ["year": string, "month": string, "day": string],
                        ],
                    ]
                ],
            ],
            "NameHistory": [
                "type": "array",
                "items": [
                    "type": "object", "required": ["user_login", "last_timestamp", "first_timestamp"],
                    "properties": [
                        "user_login": string, "last_timestamp": ["type": "string", "format": "date-time"],
                        "first_timestamp": ["type": "string", "format": "date-time"],
                    ],
                ],
            ],
            "UserLogsStats": [
                "type": "object", "required": ["userId", "userLogin", "messageCount"],
                "properties": [
                    "userId": string, "userLogin": ["type": "string", "nullable": true],
                    "messageCount": ["type": "integer"],
                ],
            ],
            "ChannelLogsStats": [
                "type": "object", "required": ["messageCount", "topChatters"],
                "properties": [
                    "messageCount": ["type": "integer"],
                    "topChatters": ["type": "array", "items": ref("UserLogsStats")],
                ],
            ],
            "Messages": [
                "type": "object", "required": ["messages"],
                "properties": ["messages": ["type": "array", "items": ref("Message")]],
            ],
            "Message": [
                "type": "object",
                "description": .string(
                    "A basic message (`jsonBasic`, `ndjson`), or with `json` a full one (also "
                        + "`username`, `channel`, `raw`, `type`)."),
                "required": ["text", "displayName", "timestamp", "id", "tags"],
                "properties": [
                    "text": string, "displayName": string, "timestamp": ["type": "string", "format": "date-time"],
                    "id": string, "tags": ["type": "object", "additionalProperties": string],
                    "username": string, "channel": string, "raw": string,
                    "type": ["type": "integer", "description": "rustlog's message type code."],
                ],
            ],
        ]
    }
}
