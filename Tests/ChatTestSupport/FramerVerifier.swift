public import IRCWire

/// What a framer made of an input: each line's bytes and terminator, and each skipped line's error.
public struct FramedOutput: Sendable, Equatable, CustomStringConvertible {
    public enum Item: Sendable, Equatable {
        case line([UInt8], number: Int, offset: UInt64, terminator: LineTerminator)
        case skipped(FramingError)
    }
    public var items: [Item] = []

    public var lines: [[UInt8]] {
        items.compactMap { if case .line(let b, _, _, _) = $0 { b } else { nil } }
    }
    public var errors: [FramingError] {
        items.compactMap { if case .skipped(let e) = $0 { e } else { nil } }
    }
    public var description: String { "\(lines.count) lines, \(errors.count) skipped" }
}

/// Feeds the same input to a framer in many chunkings and checks that the output never changes.
public enum FramerVerifier: Sendable {
    /// Frames `input` delivered in chunks of the sizes `chunkSizes` yields, in turn (then the rest).
    public static func frame(
        _ input: [UInt8], maxLineLength: Int = LineFramer.defaultMaxLineLength, bufferCapacity: Int = 64 * 1024,
        chunks chunkSizes: () -> Int
    ) -> FramedOutput {
        var framer = LineFramer(maxLineLength: maxLineLength, bufferCapacity: bufferCapacity)
        var out = FramedOutput()
        var position = 0
        func drain(_ framer: inout LineFramer) {
            while let event = framer.nextLine() { record(event, framer, &out) }
        }
        while position < input.count {
            let size = max(1, chunkSizes())
            var wanted = min(size, input.count - position)
            while wanted > 0 {
                let n = framer.fill { free in
                    let k = min(free.count, wanted)
                    input.withUnsafeBytes { src in
                        free.baseAddress!.copyMemory(from: src.baseAddress! + position, byteCount: k)
                    }
                    return k
                }
                position += n
                wanted -= n
                drain(&framer)
            }
        }
        if let last = framer.finish() { record(last, framer, &out) }
        return out
    }

    private static func record(_ event: FramerEvent, _ framer: borrowing LineFramer, _ out: inout FramedOutput) {
        switch event {
        case .line(let line):
            let bytes = framer.withBytes(of: line) { span in
                var copy: [UInt8] = []
                copy.reserveCapacity(span.count)
                for i in span.indices { copy.append(span[i]) }
                return copy
            }
            out.items.append(.line(bytes, number: line.number, offset: line.offset, terminator: line.terminator))
        case .skipped(let error):
            out.items.append(.skipped(error))
        }
    }

    /// The chunkings every framing test uses: 1, 2, 3, 7 and 64 bytes, seeded random sizes, and all
    /// at once. Returns the output of each, labelled.
    public static func allChunkings(
        _ input: [UInt8], maxLineLength: Int = LineFramer.defaultMaxLineLength, seed: UInt64 = 42
    )
        -> [(label: String, output: FramedOutput)]
    {
        var results: [(String, FramedOutput)] = []
        for size in [1, 2, 3, 7, 64] {
            results.append(("\(size)-byte chunks", frame(input, maxLineLength: maxLineLength) { size }))
        }
        var rng = SplitMix64(seed: seed)
        results.append(
            (
                "random chunks (seed \(seed))",
                frame(input, maxLineLength: maxLineLength) {
                    Int(rng.next() % 300) + 1
                }
            ))
        results.append(("all at once", frame(input, maxLineLength: maxLineLength) { input.count }))
        return results
    }

    /// The oracle: the input split on LF, a CR before the LF removed, a final unterminated piece kept.
    public static func oracleLines(_ input: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        for b in input {
            if b == 0x0A {
                if current.last == 0x0D { current.removeLast() }
                lines.append(current)
                current = []
            } else {
                current.append(b)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

/// A small deterministic random generator for reproducible tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
