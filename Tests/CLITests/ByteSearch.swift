import Glibc

/// Byte searches for the audits that read every line of a capture inside the test bundle, through libc's
/// `memchr` and `memcmp`. A debug build runs its own loops over `[UInt8]` and `Substring` at
/// several nanoseconds a byte, plus a retain and a release per slice: the per-line work of
/// CrashRepairCLITests' audit was 89 of its 157 CPU seconds, more than capture, serve and the Python
/// recorder together (`sa` of process accounting; perf: `check`, `CrashIdAudit.take`, `normalised` and
/// `components(separatedBy:)`).
///
/// Not IRCWire's `ByteScan`, which the product's framer uses: the test bundle builds it at -Onone like
/// everything else, where libc's are optimised whatever the build.
enum ByteSearch {
    /// The index of the first `byte` in `bytes[from ..< to]`, or `to` when there is none.
    static func first(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        guard from < to, let base = bytes.baseAddress else { return to }
        guard let hit = memchr(base + from, Int32(byte), to - from) else { return to }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// The index where `needle` (not empty) first occurs in `bytes[from...]`, or `nil`: `memchr` for
    /// its first byte, then `memcmp` (Glibc's module does not export `memmem`).
    static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var at = from
        while at + needle.count <= bytes.count {
            at = first(needle[0], in: bytes, from: at, to: bytes.count - needle.count + 1)
            guard at + needle.count <= bytes.count else { return nil }
            if equals(bytes, at..<(at + needle.count), needle) { return at }
            at += 1
        }
        return nil
    }

    /// Whether `bytes[range]` is exactly `word`.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: [UInt8]) -> Bool {
        guard range.count == word.count, range.lowerBound >= 0, range.upperBound <= bytes.count else { return false }
        guard let base = bytes.baseAddress, !word.isEmpty else { return word.isEmpty }
        return word.withUnsafeBufferPointer { memcmp(base + range.lowerBound, $0.baseAddress!, word.count) == 0 }
    }

    /// `bytes[range]` as a String (invalid UTF-8 repaired, as `String(decoding:as:)` does).
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Calls `body` with each line of `bytes` that ends in CR LF, without its CR LF, in order. What
    /// follows the last CR LF (a cut line, or nothing) is left out, as
    /// `components(separatedBy: "\r\n").dropLast()` leaves it; with `keepingCut`, a cut line is passed
    /// too, as `split(separator: "\r\n")` keeps it.
    static func forEachLine(
        in bytes: UnsafeBufferPointer<UInt8>, keepingCut: Bool = false,
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        var start = 0
        while let end = find(crlf, in: bytes, from: start) {
            try body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            start = end + 2
        }
        if keepingCut && start < bytes.count { try body(UnsafeBufferPointer(rebasing: bytes[start...])) }
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]
}
