import ArgumentParser
import ChatFormat
import TwitchSession

/// Options that would do nothing in the combination given are usage errors (exit 64) naming both,
/// never silently ignored. (Issue 13 item 10; `--color` stays accepted with every format: scripts
/// pass `--color never` whatever they ask for.)
enum NoOpChecks {
    /// `--with-tags`/`--with-raw` shape json only; `--apply-moderation` marks nothing in raw output.
    static func output(_ output: OutputOptions, _ filters: FilterOptions) throws {
        if output.format != .json {
            if output.withTags {
                throw ValidationError("--with-tags adds to --format json only (not \(output.format))")
            }
            if output.withRaw { throw ValidationError("--with-raw adds to --format json only (not \(output.format))") }
        }
        if filters.applyModeration && output.format == .raw {
            throw ValidationError(
                "--apply-moderation shows its marks in text, json or irc output; --format raw writes lines unchanged")
        }
        if filters.moderationWindow != nil && !filters.applyModeration {
            throw ValidationError("--moderation-window applies only with --apply-moderation")
        }
    }

    /// `--status-interval` paces the JSON status objects of `--status json` and, for capture under
    /// systemd (`serviceStatus`: `NOTIFY_SOCKET` set), the `STATUS=` notifications.
    static func statusInterval(_ interval: Double?, json: Bool, serviceStatus: Bool? = nil) throws {
        guard interval != nil, !json, serviceStatus != true else { return }
        throw ValidationError(
            "--status-interval paces --status json only (the terminal line redraws 4 times a second)"
                + (serviceStatus == nil ? "" : ", and systemd's STATUS= when NOTIFY_SOCKET is set"))
    }

    /// The connection options `watch` of files would ignore (they matter only live), by name: those
    /// given a value other than their default. (`--host`, `--port`, `--plain`, `--ca-file`,
    /// `--insecure` and `--transport` mean watching live; `--duration` has its own message.)
    static func liveOnly(_ connection: ConnectionOptions) -> [String] {
        guard let d = try? ConnectionOptions.parse([]) else { return [] }
        let c = connection
        let given: [(String, Bool)] = [
            ("--token-file", c.tokenFile != nil), ("--login", c.login != nil), ("--retry-tls", c.retryTls),
            ("--idle-timeout", c.idleTimeout != d.idleTimeout), ("--pong-timeout", c.pongTimeout != d.pongTimeout),
            ("--reconnect-base", c.reconnectBase != d.reconnectBase),
            ("--reconnect-max", c.reconnectMax != d.reconnectMax),
            ("--healthy-after", c.healthyAfter != d.healthyAfter), ("--join-rate", c.joinRate != nil),
            ("--channels-per-connection", c.channelsPerConnection != d.channelsPerConnection),
            ("--connect-interval", c.connectInterval != d.connectInterval),
        ]
        return given.filter(\.1).map(\.0)
    }

    /// `--login` names the account of an OAuth token; without one the login is anonymous anyway.
    static func login(_ connection: ConnectionOptions) throws {
        guard connection.login != nil, connection.tokenFile == nil,
            Environment.value(Credentials.tokenEnvironmentVariable) == nil
        else { return }
        throw ValidationError(
            "--login needs an OAuth token (--token-file or \(Credentials.tokenEnvironmentVariable)); without one the login is anonymous"
        )
    }
}
