import IRCWire

/// Recognises the lines a log holds about the client that recorded it, which serve does not send as
/// chat (it sends each client its own): that client's JOIN and PART, the names list (353, 366), its
/// USERSTATE and GLOBALUSERSTATE, and the full ROOMSTATE that answered its JOIN.
///
/// The recording client's login is learned from the lines addressed to it (the first parameter of
/// 001, 353 and 366), which a capture stores before its JOIN; a log without them still loses the
/// names list, the USERSTATEs and the ROOMSTATE after the names list, and keeps that client's JOIN as
/// another user's. ROOMSTATE changes later in the log (one setting) are chat and are sent.
///
/// One per ``LogTimeline``, fed every line of the log in order; the state of each channel (whether
/// the ROOMSTATE of the recording client's JOIN is still to come) is the caller's. Confined to the
/// server's loop thread.
struct RecordingFilter {
    /// The recording client's logins (a log may hold several sessions), lower case.
    private var logins: [[UInt8]] = []

    /// Learns the recording client's login from a line of any channel (or none).
    ///
    /// - Complexity: O(first parameter). - Allocations: only for a login not seen before.
    mutating func observe(_ message: TwitchMessage, in bytes: Span<UInt8>) {
        switch message.command {
        case .numeric(1), .names, .endOfNames:
            guard let range = message.line.param(0, in: bytes) else { return }
            remember(bytes.extracting(range.range))
        default:
            return
        }
    }

    /// Whether `message`, a line of a channel, is the recording client's own. `roomStateDue` is the
    /// channel's: set by the recording client's JOIN or names list, cleared by the ROOMSTATE after it.
    ///
    /// - Complexity: O(sender login × logins known). - Allocations: none.
    func isRecordingClientLine(_ message: TwitchMessage, in bytes: Span<UInt8>, roomStateDue: inout Bool) -> Bool {
        switch message.command {
        case .names, .endOfNames:
            roomStateDue = true
            return true
        case .userstate, .globaluserstate:
            return true
        case .join, .part:
            guard let sender = message.senderLogin(in: bytes), isRecordingClient(bytes.extracting(sender.range))
            else { return false }
            if message.command == .join { roomStateDue = true }
            return true
        case .roomstate where roomStateDue:
            roomStateDue = false
            return true
        default:
            return false
        }
    }

    private func isRecordingClient(_ login: Span<UInt8>) -> Bool {
        for known in logins where known.count == login.count {
            var same = true
            for i in 0..<known.count where known[i] != login[i].asciiLowercased {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    private mutating func remember(_ login: Span<UInt8>) {
        guard !login.isEmpty, login.count <= 64, !isRecordingClient(login) else { return }
        var copy: [UInt8] = []
        for i in login.indices { copy.append(login[i].asciiLowercased) }
        logins.append(copy)
    }
}
