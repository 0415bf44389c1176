/// What the server must do after a client line, as decided by ``ServeSession``.
enum ServeAction: Sendable, Equatable {
    /// Send this line (without CR LF) to the client.
    case send(String)
    /// The login succeeded (the welcome was sent): keepalive PINGs start.
    case registered
    /// The client joined this channel (a lower-case login without `#`): play its lines.
    case joined(String)
    /// The client joined a channel the log does not have; with `refused` the JOIN was dropped
    /// (``UnknownChannelPolicy/refuse``), else a ``joined(_:)`` follows.
    case unknownChannel(String, refused: Bool)
    /// The client left this channel.
    case parted(String)
    /// The client sent a chat message to this channel: relay it, reported. `id` is the message id the
    /// sender's USERSTATE (if any, queued before this action) names.
    case said(channel: String, text: String, id: String)
    /// The client joined a channel `--refuse-join` names; it got the NOTICE.
    case refused(String)
    /// The client answered a PING.
    case pong
    /// The client sent QUIT: close after what is queued.
    case quit
}
