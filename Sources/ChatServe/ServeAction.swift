/// What the server must do after a client line, as decided by ``ServeSession``.
enum ServeAction: Sendable, Equatable {
    /// Send this line (without CR LF) to the client.
    case send(String)
    /// The client joined this channel (a lower-case login without `#`): replay its lines.
    case joined(String)
    /// The client left this channel.
    case parted(String)
    /// The client sent a chat message; the server only reports it.
    case said(channel: String, text: String)
    /// The client joined a channel `--refuse-join` names; it got the NOTICE.
    case refused(String)
    /// The client sent QUIT: close after what is queued.
    case quit
}
