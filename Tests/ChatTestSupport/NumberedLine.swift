/// A chat line whose id and text name its sequence number `n`, so a reader can tell stale bytes from
/// the right ones (ChatStoreTests' `line`, and `make tsan`'s StressChecks): `@id=m<n>;user-id=…
/// :u…!u@u PRIVMSG #c :message <n>` and `padding` more "x"s.
public func numberedLine(_ n: UInt64, padding: Int = 0) -> [UInt8] {
    Array(
        "@id=m\(n);user-id=\(n % 7 + 1) :u\(n % 7)!u@u PRIVMSG #c :message \(n)\(String(repeating: "x", count: padding))"
            .utf8)
}
