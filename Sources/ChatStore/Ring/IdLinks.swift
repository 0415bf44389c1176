/// Moderation's index, kept in a ring's ``SlotTable``: for each entry, 32-bit fingerprints of its
/// message-id and user-id hashes and, for each, how far back the previous entry of the same bucket
/// is; for each bucket, the low 32 bits of its newest entry's sequence number. A CLEARMSG or a ban
/// walks one bucket's chain from its newest entry back while the entries are live, instead of
/// passing over the ring.
///
/// ```
///  heads (2 × buckets UInt32):  [ message buckets … | user buckets … ]   newest seq of each, low 32 bits
///                                        │
///  slot of seq 41: [msg fp | user fp | back 9 | back 3]  ─► seq 32 ─► seq 17 ─► … (stops at the first
///                                                                     entry evicted or not of the bucket)
/// ```
/// Nothing is done on eviction: a chain runs from newer to older entries, so the walk stops at the
/// first evicted one. A bucket's head and the links are 32 bits: the newest entry of a bucket is
/// the newest sequence number at or below the ring's last with those low bits; when that entry is
/// not live, or is not of the bucket (its fingerprint's bucket differs, or it has none: the bucket's
/// newest entry was evicted 2^32 appends ago, or the bucket was never used), the chain is empty.
/// Proof that no live entry is then missed: an entry of the bucket appended after the newest one
/// would be the newest; live entries span fewer than 2^32 sequence numbers (a table that large would
/// take hundreds of GB), so the newest entry of a bucket that still has a live one is found.
/// The same holds for a link: it names the bucket's newest entry when the entry was appended.
///
/// Buckets: the power of two at or above an eighth of the slots (4 to 8 live entries each when the
/// ring is full, 4.9 at 2,500), 1 to 2 bytes per slot for both tables. Growing the slot table builds
/// the chains again from the live entries (O(live), as the copy it is part of).
/// Owner-only, like the ``SlotTable/ids`` column it lives in.
struct IdLinks {
    /// Fingerprint of the `id` hash (0: none; then the entry is in no message chain).
    var message: UInt32
    /// Fingerprint of the `user-id` hash (0: none).
    var user: UInt32
    /// Sequence numbers back to the previous entry of the same message bucket (0: none).
    var previousMessage: UInt32
    /// Sequence numbers back to the previous entry of the same user bucket (0: none).
    var previousUser: UInt32

    /// A hash's fingerprint: its two halves folded; 0 only for the hash 0 ("none").
    @inline(__always)
    static func fingerprint(_ hash: UInt64) -> UInt32 {
        guard hash != 0 else { return 0 }
        let f = UInt32(truncatingIfNeeded: hash ^ hash >> 32)
        return f == 0 ? 1 : f
    }
}

extension SlotTable {
    /// log2 of the buckets of a table of `count` slots: the power of two at or above `count / 8`.
    /// An eighth, not a quarter: the heads are zeroed, so every one costs memory whether moderation
    /// ever uses it or not (at 10,000 channels, a quarter cost 0.8 MB more peak RSS in
    /// channels_bench), and a chain visits 4 to 8 entries of a full ring instead of 2 to 4.
    @inline(__always)
    static func bucketBits(_ count: Int) -> Int {
        let eighth = count >> 3
        return eighth <= 1 ? 0 : Int.bitWidth - (eighth - 1).leadingZeroBitCount
    }

    /// The bucket of fingerprint `f` among `1 << bits` (its top bits after a multiplicative hash).
    @inline(__always)
    static func bucket(_ f: UInt32, _ bits: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(f) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
    }

    /// Records entry `seq`'s fingerprints in slot `s` and makes it the newest entry of its buckets.
    ///
    /// - Complexity: O(1): two bucket heads read and written. - Allocations: none.
    @inline(__always)
    func link(_ seq: UInt64, message: UInt32, user: UInt32, slot s: Int) {
        let bits = Self.bucketBits(count)
        let low = UInt32(truncatingIfNeeded: seq)
        var links = IdLinks(message: message, user: user, previousMessage: 0, previousUser: 0)
        // SAFETY: buckets are below `1 << bits` (message) and `2 << bits` (user), the heads' count;
        // `s < count`.
        if message != 0 {
            let b = Self.bucket(message, bits)
            links.previousMessage = unsafe low &- heads[b]
            unsafe heads[b] = low
        }
        if user != 0 {
            let b = (1 << bits) + Self.bucket(user, bits)
            links.previousUser = unsafe low &- heads[b]
            unsafe heads[b] = low
        }
        unsafe (ids + s).initialize(to: links)
    }

    /// Calls `body` with every entry of `live` whose `id` (or, with `user`, `user-id`) hash has the
    /// fingerprint of `hash`, newest first: every entry with that hash, and any other sharing its
    /// fingerprint (the caller confirms on the bytes).
    ///
    /// - Returns: the entries visited: those of the bucket still live (the ones found, and about
    ///   `live / buckets` others on average, 4.9 in a full ring of 2,500).
    /// - Complexity: O(entries visited). - Allocations: none.
    func forEachLinked(_ hash: UInt64, user: Bool, live: Range<UInt64>, _ body: (UInt64) -> Void) -> Int {
        let f = IdLinks.fingerprint(hash)
        guard f != 0, !live.isEmpty else { return 0 }
        let bits = Self.bucketBits(count)
        let b = Self.bucket(f, bits)
        let last = live.upperBound - 1
        // SAFETY: `b < 1 << bits`, the user bucket below `2 << bits`: the heads' count.
        let head = unsafe heads[user ? (1 << bits) + b : b]
        var back = UInt64(UInt32(truncatingIfNeeded: last) &- head)
        var seq = last
        var visited = 0
        while back <= seq - live.lowerBound {
            seq -= back
            // SAFETY: `slot` is below `count`; `seq` is live, so its slot holds its links.
            let links = unsafe ids[slot(seq)]
            let tag = user ? links.user : links.message
            guard tag != 0, Self.bucket(tag, bits) == b else { break }
            visited += 1
            if tag == f { body(seq) }
            back = UInt64(user ? links.previousUser : links.previousMessage)
            if back == 0 { break }
        }
        return visited
    }
}
