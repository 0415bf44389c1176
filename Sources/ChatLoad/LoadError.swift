public import ChatInput
import ChatPosix

/// Why `load` stopped, or why one INSERT failed. Every case reads as a message on its own, with the
/// ClickHouse URL's credentials redacted.
public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `--clickhouse` URL cannot be used.
    case badURL(String)
    /// ClickHouse could not be reached or did not answer (connection refused, timeout, reset…): retried.
    case unreachable(url: String, reason: String)
    /// ClickHouse answered with an error. `code` is ClickHouse's exception code when it said one.
    case rejected(url: String, httpStatus: Int, code: Int?, message: String)
    /// The capture directory or a file in it cannot be read.
    case input(InputError)
    /// The progress under `DIR/_load/` cannot be read or written.
    case progress(path: String, reason: String)
    /// Another `load` of the same directory into the same table holds the lock.
    case busy(path: String)
    /// libcurl could not start.
    case http(String)
    /// The table lacks what `load` sends (``TableCheck``): `advice` says what to do.
    case schema(table: String, advice: String)
    /// ClickHouse stayed unreachable or busy longer than ``LoadOptions/giveUpAfterMs`` (`--once`);
    /// `reason` is the last failure.
    case gaveUp(seconds: Double, reason: String)

    public var description: String {
        switch self {
        case .badURL(let reason): "--clickhouse: \(reason)"
        case .unreachable(let url, let reason): "ClickHouse at \(url) unreachable: \(reason)"
        case .rejected(let url, let status, let code, let message):
            "ClickHouse at \(url) refused the INSERT (HTTP \(status)\(code.map { ", code \($0)" } ?? "")): \(message)"
        case .input(let error): error.description
        case .progress(let path, let reason): "\(path): \(reason)"
        case .busy(let path): "another load holds \(path) (same directory, same table): not starting a second one"
        case .http(let reason): "libcurl: \(reason)"
        case .schema(let table, let advice): "\(table) \(advice)"
        case .gaveUp(let seconds, let reason):
            "gave up after \((seconds * 10).rounded() / 10) s without ClickHouse (\(reason)); what was acknowledged is saved, "
                + "the next load goes on from there"
        }
    }

    /// Whether retrying the same INSERT later can succeed: the server is unreachable, or it answered
    /// with an error that passes (overload, timeouts, a replica not ready, HTTP 5xx without a code).
    /// Authentication, unknown tables or columns and rows it cannot parse do not pass by waiting.
    public var isTemporary: Bool {
        switch self {
        case .unreachable: return true
        case .rejected(_, let status, let code, _):
            if let code { return !Self.permanentCodes.contains(code) }
            return status >= 500 || status == 408 || status == 429
        default: return false
        }
    }

    /// Whether ClickHouse refused our credentials (exit 77).
    public var isAuthentication: Bool {
        guard case .rejected(_, let status, let code, _) = self else { return false }
        return status == 401 || status == 403 || code.map(Self.authenticationCodes.contains) == true
    }

    /// ClickHouse exception codes that retrying cannot fix: 192 UNKNOWN_USER, 193 WRONG_PASSWORD,
    /// 194 REQUIRED_PASSWORD, 195 IP_ADDRESS_NOT_ALLOWED, 497 ACCESS_DENIED, 516 AUTHENTICATION_FAILED.
    static let authenticationCodes: Set<Int> = [192, 193, 194, 195, 497, 516]
    /// …plus 60 UNKNOWN_TABLE, 81 UNKNOWN_DATABASE, 16 NO_SUCH_COLUMN_IN_TABLE, 47 UNKNOWN_IDENTIFIER,
    /// 62 SYNTAX_ERROR, 164 READONLY (a read-only user; a read-only replica answers 242), 53 TYPE_MISMATCH and
    /// the input parse errors 6, 26, 27, 38, 41, 69, 72, 117, 130.
    static let permanentCodes: Set<Int> = authenticationCodes.union([
        60, 81, 16, 47, 62, 164, 53, 6, 26, 27, 38, 41, 69, 72, 117, 130,
    ])
}
