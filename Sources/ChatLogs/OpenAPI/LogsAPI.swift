import ChatFormat
import ChatLogStore

/// The logs API's route table: every path ``LogsService`` answers, as an OpenAPI path template with
/// its parameters and answers. The router is installed from it (``routerPaths``) and `/openapi.json`
/// is written from it (``document``), so the document cannot name a route the server does not answer,
/// nor miss one it does; `LogsAPITests` checks each entry against ``LogsRoute`` and the answers.
///
/// Compared with rustlog's (`src/web/mod.rs`: aide's `ApiRouter` documents `/:channel_id_type/:channel…`
/// with the type as a parameter), each channel and user form has a path of its own here
/// (`/channel/{channel}`, `/channelid/{channelId}`, `…/user/{user}`, `…/userid/{userId}`), so a
/// parameter's schema says what it accepts (a login or decimal digits).
public enum LogsAPI: Sendable {
    /// What answers a path.
    public enum Answer: Sendable, Equatable {
        /// The web page (``LogsPage``).
        case page
        /// This document.
        case document
        /// A route of ``LogsRoute``.
        case route(LogsRoute.Kind)
    }

    /// One path and its GET operation.
    public struct Operation: Sendable {
        /// The OpenAPI path template, e.g. `/channel/{channel}/{year}/{month}/{day}`.
        public let path: String
        public let answer: Answer
        public let operationId: String
        let summary: String
        let description: String
        /// The parameters: path ones as objects, shared query ones as references.
        let parameters: [JSONTree]
        /// Status code → response object (or a reference), in order.
        let responses: [(String, JSONTree)]

        /// The status codes the operation can answer.
        public var statuses: [Int] { responses.compactMap { Int($0.0) } }
    }

    /// Every operation, in the document's order.
    public static let operations: [Operation] = makeOperations()

    /// The paths to install in the router: each template's text before its first parameter, exact
    /// when it has none (`/channels`), else as a prefix (`/channel/`), once each, with the answer of
    /// the first operation that has it (a prefix's paths are all routes of ``LogsRoute``).
    public static let routerPaths: [(path: String, isPrefix: Bool, answer: Answer)] = {
        var seen = Set<String>()
        var paths: [(String, Bool, Answer)] = []
        for operation in operations {
            let fixed = operation.path.prefix { $0 != "{" }
            let isPrefix = fixed.count < operation.path.count
            guard seen.insert((isPrefix ? "prefix " : "exact ") + fixed).inserted else { continue }
            paths.append((String(fixed), isPrefix, operation.answer))
        }
        return paths
    }()

    /// The channel forms of a path: by login or by `room-id`.
    private static let channelForms = [
        (segment: "channel", parameter: "channel", idSuffix: ""),
        (segment: "channelid", parameter: "channelId", idSuffix: "ByChannelId"),
    ]
    /// The user forms: by login or by `user-id`.
    private static let userForms = [
        (segment: "user", parameter: "user", idSuffix: ""),
        (segment: "userid", parameter: "userId", idSuffix: "ByUserId"),
    ]

    /// One route under a channel (and a user, when `user`): its path after them and what it documents.
    private struct Template {
        var kind: LogsRoute.Kind
        var operationId: String
        var user: Bool
        var tail: String
        var summary: String
        var description: String
        var query: [String]
        var responses: [(String, JSONTree)]
    }

    private static func makeOperations() -> [Operation] {
        var all: [Operation] = [
            Operation(
                path: "/", answer: .page, operationId: "page", summary: "The web page",
                description: "A viewer of the archive written against this API, served from the binary.",
                parameters: [], responses: [("200", response("The page.", content: ["text/html": ["type": "string"]]))]),
            Operation(
                path: "/openapi.json", answer: .document, operationId: "openapi", summary: "This document",
                description: "The OpenAPI document of every route, generated from the route table the server uses.",
                parameters: [], responses: [("200", response("The document.", content: json(["type": "object"])))]),
            Operation(
                path: "/channels", answer: .route(.channels), operationId: "getChannels",
                summary: "List logged channels",
                description: "Every channel of the archive, with the `room-id` its lines carry (empty when none does).",
                parameters: [],
                responses: [("200", response("The channels.", content: json(ref("ChannelsList"))))]
                    + storeErrors),
            Operation(
                path: "/capabilities", answer: .route(.capabilities), operationId: "getCapabilities",
                summary: "What this API can do beyond justlog's",
                description: "The same list every answer carries in its `x-rustlog-capabilities` header.",
                parameters: [],
                responses: [
                    (
                        "200",
                        response("The capabilities.", content: json(["type": "array", "items": ["type": "string"]]))
                    )
                ]),
            Operation(
                path: "/list", answer: .route(.list), operationId: "listAvailableLogs", summary: "List available logs",
                description:
                    "A channel's days, or with `user`/`userid` the months holding the user's lines, newest first.",
                parameters: ["channel", "channelid", "user", "userid"].map { ref(parameter: $0) },
                responses: [
                    ("200", response("The days or months.", content: json(ref("AvailableLogs")))),
                    ("400", ref(response: "BadRequest")), ("403", ref(response: "OptedOut")),
                    ("404", ref(response: "NotFound")),
                ] + storeErrors),
            Operation(
                path: "/namehistory/{userId}", answer: .route(.nameHistory), operationId: "getNameHistory",
                summary: "The logins a user id had",
                description: "Each login the archive's lines give this `user-id`, with the first and last time seen.",
                parameters: [pathParameter("userId")],
                responses: [
                    (
                        "200",
                        response(
                            "The logins, oldest first; empty for an unknown id.", content: json(ref("NameHistory")))
                    ),
                    ("403", ref(response: "OptedOut")), ("404", ref(response: "NotFound")),
                ] + storeErrors),
        ]
        for template in templates {
            for channel in channelForms {
                let users = template.user ? userForms.map(Optional.some) : [nil]
                for user in users {
                    var path = "/\(channel.segment)/{\(channel.parameter)}"
                    var parameters = [pathParameter(channel.parameter)]
                    if let user {
                        path += "/\(user.segment)/{\(user.parameter)}"
                        parameters.append(pathParameter(user.parameter))
                    }
                    path += template.tail
                    for name in template.tail.split(separator: "/") where name.hasPrefix("{") {
                        parameters.append(pathParameter(String(name.dropFirst().dropLast())))
                    }
                    all.append(
                        Operation(
                            path: path, answer: .route(template.kind),
                            operationId: template.operationId + channel.idSuffix + (user?.idSuffix ?? ""),
                            summary: template.summary, description: template.description,
                            parameters: parameters + template.query.map { ref(parameter: $0) },
                            responses: template.responses))
                }
            }
        }
        return all
    }

    /// The query parameters of a logs answer (``LogsQuery``).
    private static let logsQuery = ["json", "jsonBasic", "ndjson", "raw", "reverse", "limit", "offset"]
    private static let rangeQuery = ["from", "to"]
    /// What a logs route can refuse.
    private static let logsErrors: [(String, JSONTree)] =
        [
            ("400", ref(response: "BadRequest")), ("403", ref(response: "OptedOut")),
            ("404", ref(response: "NotFound")),
        ] + storeErrors
    /// What any route reading the store can answer when the store fails or the server is busy.
    private static let storeErrors: [(String, JSONTree)] = [
        ("500", ref(response: "StoreError")), ("503", ref(response: "Unavailable")),
    ]

    private static let templates: [Template] = [
        Template(
            kind: .channelLatest, operationId: "getChannelLogs", user: false, tail: "",
            summary: "Get channel logs",
            description: "Without `from` and `to`: 303 to the latest day with lines, the query carried over. "
                + "With both: the channel's lines whose time is in [from, to).",
            query: logsQuery + rangeQuery,
            responses: [("200", ref(response: "Logs")), ("303", ref(response: "Latest"))] + logsErrors),
        Template(
            kind: .channelDay, operationId: "getChannelLogsByDate", user: false, tail: "/{year}/{month}/{day}",
            summary: "Get channel logs from the given day", description: "The channel's lines of that UTC day.",
            query: logsQuery, responses: [("200", ref(response: "Logs"))] + logsErrors),
        Template(
            kind: .channelRandom, operationId: "getRandomChannelLine", user: false, tail: "/random",
            summary: "Get a random line from the channel's logs", description: "Each line as likely as any other.",
            query: logsQuery, responses: [("200", ref(response: "Logs"))] + logsErrors),
        Template(
            kind: .channelStats, operationId: "getChannelStats", user: false, tail: "/stats",
            summary: "Get channel stats", description: "Lines (in [from, to) when given) and the five top chatters.",
            query: rangeQuery,
            responses: [("200", response("The stats.", content: json(ref("ChannelLogsStats"))))] + logsErrors),
        Template(
            kind: .userLatest, operationId: "getUserLogs", user: true, tail: "",
            summary: "Get user logs",
            description: "Without `from` and `to`: 303 to the latest month with the user's lines, the query "
                + "carried over. With both: the user's lines in the channel whose time is in [from, to).",
            query: logsQuery + rangeQuery,
            responses: [("200", ref(response: "Logs")), ("303", ref(response: "Latest"))] + logsErrors),
        Template(
            kind: .userMonth, operationId: "getUserLogsByDate", user: true, tail: "/{year}/{month}",
            summary: "Get user logs in a channel from the given month",
            description: "The user's lines in the channel's days of that month (a login keeps its earlier names).",
            query: logsQuery, responses: [("200", ref(response: "Logs"))] + logsErrors),
        Template(
            kind: .userRandom, operationId: "getRandomUserLine", user: true, tail: "/random",
            summary: "Get a random line from the user's logs in a channel", description: "Each as likely as any other.",
            query: logsQuery, responses: [("200", ref(response: "Logs"))] + logsErrors),
        Template(
            kind: .userSearch, operationId: "searchUserLogs", user: true, tail: "/search",
            summary: "Search the user's logs in a channel",
            description:
                "The user's lines whose text holds `q` (ASCII letters in any case), in all of the channel's days.",
            query: ["q"] + logsQuery, responses: [("200", ref(response: "Logs"))] + logsErrors),
        Template(
            kind: .userStats, operationId: "getUserStats", user: true, tail: "/stats",
            summary: "Get user stats", description: "The user's line count in the channel (in [from, to) when given).",
            query: rangeQuery,
            responses: [("200", response("The stats.", content: json(ref("UserLogsStats"))))] + logsErrors),
    ]
}
