/// What a line is, by its verb: the commands Twitch sends, numerics, and everything else.
///
/// Any verb we do not know is ``unknown``: a generic line, never an error.
public enum TwitchCommand: Sendable, Equatable, Hashable {
    case privmsg, usernotice, clearchat, clearmsg, roomstate, userstate, globaluserstate
    case notice, whisper, join, part, cap, ping, pong, reconnect, hosttarget
    /// RPL_NAMREPLY (353).
    case names
    /// RPL_ENDOFNAMES (366).
    case endOfNames
    /// Any other three-digit reply (001–004, 372, 375, 376, …).
    case numeric(UInt16)
    /// `CAPTURE`: a record of chatcap's own that `capture` stores among the lines it received
    /// (`:chatcap CAPTURE <event> <target> :<text>`, see `CaptureWriter+Records.swift`). Twitch never
    /// sends it. Its ``TwitchMessage/channel`` is `nil` (the target is read by the record's view), so
    /// nothing that routes chat by channel (the store's rings, `serve`) takes it for chat.
    case capture
    /// A verb Twitch does not document.
    case unknown

    /// Classifies the verb of `line`.
    ///
    /// - Complexity: O(verb length). - Allocations: none.
    public init(_ line: ParsedLine, in bytes: Span<UInt8>) {
        let verb = line.verbRange
        if verb.count == 3, let code = Self.numericCode(verb, in: bytes) {
            switch code {
            case 353: self = .names
            case 366: self = .endOfNames
            default: self = .numeric(code)
            }
            return
        }
        let v = bytes.extracting(verb.range)
        switch v.count {
        case 3 where v.equals("CAP"): self = .cap
        case 4 where v.equals("JOIN"): self = .join
        case 4 where v.equals("PART"): self = .part
        case 4 where v.equals("PING"): self = .ping
        case 4 where v.equals("PONG"): self = .pong
        case 6 where v.equals("NOTICE"): self = .notice
        case 7 where v.equals("PRIVMSG"): self = .privmsg
        case 7 where v.equals("WHISPER"): self = .whisper
        case 7 where v.equals("CAPTURE"): self = .capture
        case 8 where v.equals("CLEARMSG"): self = .clearmsg
        case 9 where v.equals("CLEARCHAT"): self = .clearchat
        case 9 where v.equals("ROOMSTATE"): self = .roomstate
        case 9 where v.equals("USERSTATE"): self = .userstate
        case 9 where v.equals("RECONNECT"): self = .reconnect
        case 10 where v.equals("USERNOTICE"): self = .usernotice
        case 10 where v.equals("HOSTTARGET"): self = .hosttarget
        case 15 where v.equals("GLOBALUSERSTATE"): self = .globaluserstate
        default: self = .unknown
        }
    }

    private static func numericCode(_ verb: ByteRange, in bytes: Span<UInt8>) -> UInt16? {
        var code: UInt16 = 0
        for i in verb.range {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            code = code * 10 + UInt16(d)
        }
        return code
    }

    /// The name used for this command in output (`privmsg`, `numeric`, …). A `CAPTURE` record is a
    /// `session` record here; the encoders name a readable gap record `gap`.
    public var name: StaticString {
        switch self {
        case .privmsg: "privmsg"
        case .usernotice: "usernotice"
        case .clearchat: "clearchat"
        case .clearmsg: "clearmsg"
        case .roomstate: "roomstate"
        case .userstate: "userstate"
        case .globaluserstate: "globaluserstate"
        case .notice: "notice"
        case .whisper: "whisper"
        case .join: "join"
        case .part: "part"
        case .cap: "cap"
        case .ping: "ping"
        case .pong: "pong"
        case .reconnect: "reconnect"
        case .hosttarget: "hosttarget"
        case .names, .endOfNames, .numeric: "numeric"
        case .capture: "session"
        case .unknown: "unknown"
        }
    }
}

extension TwitchCommand {
    /// Equal commands: the same case, and for ``numeric(_:)`` the same code.
    ///
    /// Written out and inlinable, where the derived `==` was a call in every other module (it is not
    /// inlined across modules): `message.command == .privmsg` in the store's append cost 34
    /// instructions a line of `replay --format json`. Inlined against a case known when the program
    /// is written, it is one comparison of the case.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    public static func == (a: TwitchCommand, b: TwitchCommand) -> Bool {
        if case .numeric(let x) = a, case .numeric(let y) = b { return x == y }
        return a.caseIndex == b.caseIndex
    }

    /// The case's place in the declaration, from 0 (a numeric's code left out). Exhaustive, without
    /// a `default`: a new case cannot be left out of ``==(_:_:)``.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    var caseIndex: UInt8 {
        switch self {
        case .privmsg: 0
        case .usernotice: 1
        case .clearchat: 2
        case .clearmsg: 3
        case .roomstate: 4
        case .userstate: 5
        case .globaluserstate: 6
        case .notice: 7
        case .whisper: 8
        case .join: 9
        case .part: 10
        case .cap: 11
        case .ping: 12
        case .pong: 13
        case .reconnect: 14
        case .hosttarget: 15
        case .names: 16
        case .endOfNames: 17
        case .numeric: 18
        case .capture: 19
        case .unknown: 20
        }
    }
}
