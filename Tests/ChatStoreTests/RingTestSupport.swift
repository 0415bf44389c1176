import ChatTestSupport
import IRCWire

@testable import ChatStore

/// A chat line whose text names its sequence, so a reader can tell stale bytes from the right ones
/// (ChatTestSupport's ``numberedLine(_:padding:)``).
func line(_ n: UInt64, padding: Int = 0) -> [UInt8] { numberedLine(n, padding: padding) }

/// Appends `bytes` to `ring` the way a ChannelLog does, evicting first when full.
@discardableResult
func append(_ ring: EntryRing, _ bytes: [UInt8], sender: SenderTokens = SenderTokens()) -> UInt64 {
    if ring.isFull { ring.evictOldest() }
    return ring.append(bytes.span, meta: meta(bytes), sender: sender)
}

/// Plain metadata for `bytes` (parsed; no sender, indexes or moderation).
func meta(_ bytes: [UInt8]) -> EntryMeta {
    let message = try! TwitchMessage.parse(bytes.span)
    return EntryMeta(
        parsed: message.line, command: message.command, isMirror: false, hasSourceId: false, byteStart: 0,
        receivedAt: 0)
}

/// The text of entry `seq` as a reader sees it, or nil when gone.
func text(_ ring: EntryRing, _ seq: UInt64, _ reader: Reader) -> String? {
    let r = ring.withEntry(seq, reader: reader) { info, bytes in string(bytes, info.parsed.lastParam(in: bytes)!) }
    if case .found(let s) = r { return s }
    return nil
}
