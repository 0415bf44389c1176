/// The Prometheus text exposition format (version 0.0.4), as `GET /metrics` answers it: each
/// family's `# HELP` and `# TYPE` lines, then its samples, one a line.
///
/// ```swift
/// var text = PrometheusText()
/// text.counter("chatcap_received_lines_total", help: "Lines received.", value: 42)
/// text.histogram("chatcap_lag_seconds", help: "…", bounds: [0.1, 1], counts: [3, 1, 0], sum: 0.7)
/// // text.bytes: "# HELP chatcap_received_lines_total Lines received.\n# TYPE … counter\n…"
/// ```
///
/// Names are the caller's (Prometheus' conventions: `_total` for counters, base units such as
/// `_seconds` and `_bytes`); HELP text and label values are escaped as the format asks (`\\`, `\n`,
/// and in label values `\"`). Built on the scrape's connection thread, once per scrape.
public struct PrometheusText: Sendable {
    /// The `Content-Type` of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// What a family is.
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The exposition so far (UTF-8).
    public private(set) var bytes: [UInt8] = []

    public init() { bytes.reserveCapacity(4096) }

    /// Starts family `name`: its HELP and TYPE lines. Its samples follow (``sample(_:labels:value:)``).
    public mutating func family(_ name: String, kind: Kind, help: String) {
        append("# HELP \(name) ")
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\n# TYPE \(name) \(kind.rawValue)\n")
    }

    /// One sample line: `name{label="value",…} value`.
    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], value: Double) {
        sample(name, labels: labels.map { ($0.key, $0.value) }, value: Self.format(value))
    }

    /// One sample line with an integer value (written exactly, however large).
    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], value: UInt64) {
        sample(name, labels: labels.map { ($0.key, $0.value) }, value: String(value))
    }

    /// One sample line with labels built at run time.
    public mutating func sample(_ name: String, labels: [(String, String)], value: UInt64) {
        sample(name, labels: labels, value: String(value))
    }

    /// A family of one counter sample.
    public mutating func counter(_ name: String, help: String, value: UInt64) {
        family(name, kind: .counter, help: help)
        sample(name, value: value)
    }

    /// A family of one counter sample with a fractional value (e.g. seconds).
    public mutating func counter(_ name: String, help: String, value: Double) {
        family(name, kind: .counter, help: help)
        sample(name, value: value)
    }

    /// A family of one gauge sample.
    public mutating func gauge(_ name: String, help: String, value: Double) {
        family(name, kind: .gauge, help: help)
        sample(name, value: value)
    }

    /// A histogram family: `name_bucket{le=…}` for each bound and `+Inf` (cumulative), `name_sum`
    /// and `name_count`.
    ///
    /// - Parameters:
    ///   - bounds: the buckets' upper bounds, ascending.
    ///   - counts: observations per bucket, not cumulative: one per bound, then those above the last.
    ///   - sum: the sum of the observations.
    /// - Precondition: `counts.count == bounds.count + 1`.
    public mutating func histogram(_ name: String, help: String, bounds: [Double], counts: [UInt64], sum: Double) {
        precondition(counts.count == bounds.count + 1, "a count per bound and one above the last")
        family(name, kind: .histogram, help: help)
        var cumulative: UInt64 = 0
        for (bound, count) in zip(bounds, counts) {
            cumulative &+= count
            sample(name + "_bucket", labels: [("le", Self.format(bound))], value: String(cumulative))
        }
        cumulative &+= counts[bounds.count]
        sample(name + "_bucket", labels: [("le", "+Inf")], value: String(cumulative))
        sample(name + "_sum", labels: [], value: Self.format(sum))
        sample(name + "_count", labels: [], value: String(cumulative))
    }

    /// A float as the format writes it: `+Inf`, `-Inf`, `NaN`, integers without a fraction, others
    /// as Swift's shortest round-tripping text (which Go's ParseFloat reads).
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private mutating func sample(_ name: String, labels: [(String, String)], value: String) {
        append(name)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            for (index, (key, text)) in labels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(key)
                append("=\"")
                for byte in text.utf8 {
                    switch byte {
                    case UInt8(ascii: "\\"): append("\\\\")
                    case UInt8(ascii: "\""): append("\\\"")
                    case UInt8(ascii: "\n"): append("\\n")
                    default: bytes.append(byte)
                    }
                }
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
        append(value)
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
}
