package import IRCWire
import TwitchSession

/// `--dedupe`: drops a line already seen within a time window, so that two captures of one channel
/// (two hosts capturing redundantly) merge into one stream without doubles.
///
/// A line with a Twitch message id (`id` tag) is recognised by its channel and id: a second line
/// with both, from any input, is a repeat. A line without an id (CLEARCHAT, CLEARMSG, JOIN, PART,
/// NOTICE, ROOMSTATE, …) is recognised by its **content**: a hash of the line without the tags that
/// say when or how it was received (``LineFingerprint/contentHash(_:in:)``: capture's `time`, and the `historical`,
/// `rm-received-ts` and `rm-deleted` a recent-messages service adds), so that two hosts' copies of one
/// CLEARCHAT hash alike while two CLEARCHATs of different users, or of one user at different
/// `tmi-sent-ts`, do not. Such a line is a repeat only when the input that kept it is another one:
/// the same input showing the same line again (a JOIN after a PART, a second PING) saw it happen
/// twice. chatcap's own records (`:chatcap CAPTURE …`) describe their host's session and always pass.
///
/// Remembers a 64-bit hash per kept line, in a table and in a FIFO by time; hashes older than the
/// window (on the newest line time seen) are forgotten. Two different lines with the same 64-bit hash
/// would drop one wrongly: about one in 10^19 per pair.
///
/// Not thread-safe: the pipeline's owner thread only.
package struct RepeatFilter {
    /// What ``check(_:in:at:input:)`` found.
    package enum Verdict: Equatable {
        /// Not seen within the window (now remembered), or a line that is never a repeat.
        case new
        /// A message id already seen in the channel.
        case repeatedId
        /// A line without an id already kept from another input.
        case repeatedLine
    }

    package let windowMs: Int64
    /// Hash → the input that kept the line (`-1` for ids: any input's copy is a repeat).
    private var seen: [UInt64: Int] = [:]
    private var order: [(hash: UInt64, at: Int64)] = []
    private var head = 0
    private var newest = Int64.min

    package init(windowMs: Int64) { self.windowMs = windowMs }

    /// Whether the line repeats one seen within the window (then it is dropped); remembers it if not.
    ///
    /// - Parameters:
    ///   - time: the line's merge time (its own, or inherited from the line before it).
    ///   - input: the line's input (``MergedLine/inputIndex``).
    /// - Complexity: O(id bytes) amortised for a line with an id, O(line bytes) for one without.
    /// - Allocations: amortised none (the table and the FIFO are reused).
    package mutating func check(_ message: TwitchMessage, in bytes: Span<UInt8>, at time: Int64?, input: Int)
        -> Verdict
    {
        guard message.command != .capture else { return .new }
        if let time, time > newest { newest = time }
        forgetOld()
        if let id = message.tags[.id], !id.raw.isEmpty {
            var fnv = FNV1a64()
            fnv.add(UInt8(ascii: "i"))  // ids and line hashes never meet
            if let channel = message.channel { fnv.add(bytes, channel.range) }
            fnv.add(UInt8(ascii: "#"))  // between channel and id
            fnv.add(bytes, id.raw.range)
            return remember(fnv.value, owner: -1, at: time) ? .new : .repeatedId
        }
        let hash = LineFingerprint.contentHash(message.line, in: bytes)
        if let owner = seen[hash] {
            return owner == input ? .new : .repeatedLine
        }
        _ = remember(hash, owner: input, at: time)
        return .new
    }

    /// Remembers `hash`; `false` if it was already remembered.
    private mutating func remember(_ hash: UInt64, owner: Int, at time: Int64?) -> Bool {
        guard seen.updateValue(owner, forKey: hash) == nil else { return false }
        if head > 4096 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        order.append((hash, time ?? newest))
        return true
    }

    private mutating func forgetOld() {
        guard newest != Int64.min else { return }
        while head < order.count, order[head].at < newest - windowMs {
            seen.removeValue(forKey: order[head].hash)
            head += 1
        }
    }
}
