/// The kind of a USERNOTICE (`msg-id`): every kind Twitch documents, and ``unknown(_:)`` for the rest.
public enum UserNoticeKind: Sendable, Equatable {
    case sub, resub, subgift, submysterygift, giftpaidupgrade, rewardgift, anongiftpaidupgrade
    case anonsubgift, anonsubmysterygift, raid, unraid, ritual, bitsbadgetier, announcement
    case communitypayforward, standardpayforward, primepaidupgrade, extendsub, charitydonation
    case viewermilestone, sharedchatnotice, onetapgiftredeemed
    /// A msg-id Twitch has not documented (its raw value), or no msg-id at all (`nil`).
    case unknown(TagValue?)

    static let known: [UserNoticeKind] = [
        .sub, .resub, .subgift, .submysterygift, .giftpaidupgrade, .rewardgift, .anongiftpaidupgrade,
        .anonsubgift, .anonsubmysterygift, .raid, .unraid, .ritual, .bitsbadgetier, .announcement,
        .communitypayforward, .standardpayforward, .primepaidupgrade, .extendsub, .charitydonation,
        .viewermilestone, .sharedchatnotice, .onetapgiftredeemed,
    ]

    /// Reads `msg-id`.
    ///
    /// - Complexity: O(number of kinds × msg-id length), a handful of short compares. - Allocations: none.
    public init(msgId: TagValue?, in bytes: Span<UInt8>) {
        guard let msgId else {
            self = .unknown(nil)
            return
        }
        for kind in Self.known where bytes.equals(kind.name!, at: msgId.raw) {
            self = kind
            return
        }
        self = .unknown(msgId)
    }

    /// The documented msg-id, or `nil` for ``unknown(_:)``.
    public var name: StaticString? {
        switch self {
        case .sub: "sub"
        case .resub: "resub"
        case .subgift: "subgift"
        case .submysterygift: "submysterygift"
        case .giftpaidupgrade: "giftpaidupgrade"
        case .rewardgift: "rewardgift"
        case .anongiftpaidupgrade: "anongiftpaidupgrade"
        case .anonsubgift: "anonsubgift"
        case .anonsubmysterygift: "anonsubmysterygift"
        case .raid: "raid"
        case .unraid: "unraid"
        case .ritual: "ritual"
        case .bitsbadgetier: "bitsbadgetier"
        case .announcement: "announcement"
        case .communitypayforward: "communitypayforward"
        case .standardpayforward: "standardpayforward"
        case .primepaidupgrade: "primepaidupgrade"
        case .extendsub: "extendsub"
        case .charitydonation: "charitydonation"
        case .viewermilestone: "viewermilestone"
        case .sharedchatnotice: "sharedchatnotice"
        case .onetapgiftredeemed: "onetapgiftredeemed"
        case .unknown: nil
        }
    }
}

/// A USERNOTICE: a sub, raid, announcement… with Twitch's `system-msg` and an optional user message.
public struct UserNotice: Sendable, Equatable {
    public var channel: ByteRange
    public var kind: UserNoticeKind
    /// What the user typed with it, if anything.
    public var text: ByteRange?
    /// Twitch's own description (`system-msg`, tag-escaped).
    public var systemMessage: TagValue?
    /// The user's login (`login` tag).
    public var login: TagValue?
}

extension TwitchMessage {
    /// The USERNOTICE view, or `nil` for other commands.
    ///
    /// - Complexity: O(msg-id length). - Allocations: none.
    public func userNotice(in bytes: Span<UInt8>) -> UserNotice? {
        guard command == .usernotice, let channel else { return nil }
        return UserNotice(
            channel: channel, kind: UserNoticeKind(msgId: tags[.msgId], in: bytes), text: text(in: bytes),
            systemMessage: tags[.systemMsg], login: tags[.login])
    }
}
