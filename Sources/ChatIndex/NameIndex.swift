/// Names (short byte strings such as channel logins) → 64-bit values, found in O(1) whatever the
/// number of names: capture's lanes (login → lane) and stats' keys are this index (the store's
/// channels have a ``ChannelIndex``, whose slots hold the names themselves).
///
/// A name's key is a hash of its bytes (of its ASCII-lowercased bytes when ``Matching/asciiCaseInsensitive``),
/// looked up in a ``HashIndex``. The index keeps no names: two names may share a hash, so a value
/// found is only a candidate, and the caller confirms it against the name it stands for (the log's or
/// the lane's own name) with the `isName` closure of ``value(for:where:)``. A candidate that is not
/// confirmed moves the lookup to the name's next probe key (`key &* φ | 2`), where ``insert(_:for:)``
/// put a later name with the same hash; the first probe key without a value ends the search. Names
/// are never removed, so the probe sequence of every stored name stays unbroken.
///
/// ```
///  name ─hash─► key k0 ─► HashIndex[k0] = v₁   isName(v₁)? yes → v₁
///                                               no  → k1 = k0 &* φ | 2 ─► HashIndex[k1] = v₂ …
///                                                     no value at kᵢ → not stored (insert uses kᵢ)
/// ```
///
/// Keys: `1` for the empty name, `hash | 2` for any other (never 0, which marks an empty slot).
///
/// Owner-only (one thread), like the ``HashIndex`` it holds.
/// - Allocations: one table at init; one per doubling of the table in ``insert(_:for:)``; none
///   otherwise.
@safe
public struct NameIndex: ~Copyable {
    /// How names compare: what a confirming `isName` closure must agree with.
    public enum Matching: Sendable, Equatable {
        /// Byte for byte (the store's channels).
        case exact
        /// ASCII letters in either case name the same thing (capture's logins): the key hashes the
        /// lowercased bytes, so `#Foo` and `#foo` find the same value.
        case asciiCaseInsensitive
    }

    public let matching: Matching
    @usableFromInline var table: HashIndex

    /// - Parameter minimumCapacity: names the first table holds (it has at least 4/3 as many slots).
    package init(matching: Matching, minimumCapacity: Int = 64) {
        self.matching = matching
        table = HashIndex(minimumCapacity: minimumCapacity)
    }

    /// Names stored.
    package var count: Int { table.count }

    /// Bytes of the table (for memory accounting).
    package var reservedBytes: Int { table.reservedBytes }

    /// The first probe key of `name`.
    ///
    /// - Complexity: O(`name.count` / 8). - Allocations: none.
    @inlinable
    @inline(__always)
    package func key(for name: Span<UInt8>) -> UInt64 {
        if name.isEmpty { return 1 }
        return
            (matching == .exact
            ? hashBytes(name, 0..<name.count) : hashBytes(name, 0..<name.count, lowercasingASCII: true)) | 2
    }

    /// The probe key after `key`, for a name whose earlier probes hold other names' values.
    @inlinable
    @inline(__always)
    static func nextProbe(after key: UInt64) -> UInt64 { key &* 0x9E37_79B9_7F4A_7C15 | 2 }

    /// The value stored for `name`: the first candidate under its probe keys that `isName` confirms
    /// (`isName(value)` says whether `value` stands for `name`, as ``matching`` compares), or `nil`.
    ///
    /// - Complexity: O(`name.count` / 8) for the key, then O(1) expected probes, each one `isName`
    ///   call (one per name sharing the hash; almost always only the one that matches).
    /// - Allocations: none.
    @inlinable
    @inline(__always)
    package func value(for name: Span<UInt8>, where isName: (UInt64) -> Bool) -> UInt64? {
        value(forKey: key(for: name), where: isName)
    }

    /// ``value(for:where:)`` from a first probe key the caller computed (``key(for:)``); tests
    /// give every name the same key to exercise the probes.
    ///
    /// - Complexity: O(1) expected probes. - Allocations: none.
    @inlinable
    @inline(__always)
    package func value(forKey key: UInt64, where isName: (UInt64) -> Bool) -> UInt64? {
        var probe = key
        while let value = table.value(for: probe) {
            if isName(value) { return value }
            probe = Self.nextProbe(after: probe)
        }
        return nil
    }

    /// Stores `value` for `name`, which must not be stored yet (``value(for:where:)`` just said
    /// `nil`): under its first free probe key.
    ///
    /// - Complexity: amortised O(1) expected. - Allocations: one per doubling of the table.
    package mutating func insert(_ value: UInt64, for name: Span<UInt8>) {
        insert(value, forKey: key(for: name))
    }

    /// ``insert(_:for:)`` under a first probe key the caller computed (the one its lookup used).
    ///
    /// - Complexity: amortised O(1) expected. - Allocations: one per doubling of the table.
    package mutating func insert(_ value: UInt64, forKey key: UInt64) {
        precondition(key != 0, "key 0 is reserved")
        var probe = key
        while table.value(for: probe) != nil { probe = Self.nextProbe(after: probe) }
        table.insert(value, for: probe)
    }
}

@available(*, unavailable)
extension NameIndex: Sendable {}
