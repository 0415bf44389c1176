@testable import ChatStore
import IRCWire

/// A chat line whose text names its sequence, so a reader can tell stale bytes from the right ones.
func line(_ n: UInt64, padding: Int = 0) -> [UInt8] {
    Array("@id=m\(n);user-id=\(n % 7 + 1) :u\(n % 7)!u@u PRIVMSG #c :message \(n)\(String(repeating: "x", count: padding))".utf8)
}

/// Appends `bytes` to `ring` the way a ChannelLog does, evicting first when full.
@discardableResult
func append(_ ring: EntryRing, _ bytes: [UInt8]) -> UInt64 {
    if ring.isFull { ring.evictOldest() }
    let message = try! TwitchMessage.parse(bytes.span)
    let meta = EntryMeta(
        parsed: message.line, command: message.command, isMirror: false, byteStart: 0, receivedAt: 0,
        sender: SenderTokens(), messageIdHash: 0, userIdHash: 0, sourceIdHash: 0, previousOfUser: .max)
    return ring.append(bytes.span, meta: meta)
}

/// The text of entry `seq` as a reader sees it, or nil when gone.
func text(_ ring: EntryRing, _ seq: UInt64, _ reader: Reader) -> String? {
    let r = ring.withEntry(seq, reader: reader) { info, bytes -> String in
        let last = info.parsed.lastParam(in: bytes)!
        var out: [UInt8] = []
        for i in last.range { out.append(bytes[i]) }
        return String(decoding: out, as: UTF8.self)
    }
    if case .found(let s) = r { return s }
    return nil
}
