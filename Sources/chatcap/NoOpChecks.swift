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
