import ChatTestSupport
import IRCWire
import Testing

@Suite(.timeLimit(.minutes(20))) struct LineFramerTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test("CRLF and bare LF both end lines; the terminator is reported")
    func terminators() {
        let out = FramerVerifier.frame(Self.bytes("a\r\nb\nc\r\n"), chunks: { 1 })
        #expect(
            out.items == [
                .line(Self.bytes("a"), number: 1, offset: 0, terminator: .crlf),
                .line(Self.bytes("b"), number: 2, offset: 3, terminator: .lf),
                .line(Self.bytes("c"), number: 3, offset: 5, terminator: .crlf),
            ])
    }

    @Test("a final line without terminator is handed out by finish()")
    func unterminatedTail() {
        let out = FramerVerifier.frame(Self.bytes("a\r\npartial"), chunks: { 3 })
        #expect(out.lines == [Self.bytes("a"), Self.bytes("partial")])
        #expect(out.items.last == .line(Self.bytes("partial"), number: 2, offset: 3, terminator: .none))
    }

    @Test("empty lines are lines (the parser rejects them, the framer does not hide them)")
    func emptyLines() {
        let out = FramerVerifier.frame(Self.bytes("\r\n\n\r\nx\n"), chunks: { 2 })
        #expect(out.lines == [[], [], [], Self.bytes("x")])
    }

    @Test("a lone CR inside a line is kept; only CR before LF is a terminator")
    func loneCarriageReturn() {
        let out = FramerVerifier.frame(Self.bytes("a\rb\r\n\r\r\n"), chunks: { 1 })
        #expect(out.lines == [Self.bytes("a\rb"), Self.bytes("\r")])
    }

    @Test("an over-long line is skipped with its position and framing resynchronises", arguments: [1, 7, 64, 5000])
    func overLong(chunk: Int) {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 20_000)
        let input = Self.bytes("ok1\r\n") + long + Self.bytes("\r\nok2\r\n")
        let out = FramerVerifier.frame(input, chunks: { chunk })
        #expect(out.lines == [Self.bytes("ok1"), Self.bytes("ok2")])
        #expect(out.errors == [FramingError(lineNumber: 2, offset: 5, length: 20_000, limit: 16_384)])
        #expect(out.items.last == .line(Self.bytes("ok2"), number: 3, offset: 20_007, terminator: .crlf))
    }

    @Test(
        "an over-long line made of CR-ended lines is skipped with the count of its CRs, in every chunking",
        arguments: [1, 7, 64, 4096, 100_000])
    func overLongCarriageReturns(chunk: Int) {
        // 1,000 lines of 20 bytes each ended by CR alone (20,000 bytes), then CRLF, then a CR-ended
        // line at the end of the stream that is over-long too.
        let crLines = Array(repeating: Self.bytes("PRIVMSG #c :abcdefg\r"), count: 1_000).flatMap { $0 }
        let input = Self.bytes("ok1\r\n") + crLines + Self.bytes("\r\n") + crLines + Self.bytes("x")
        let out = FramerVerifier.frame(input, chunks: { chunk })
        #expect(out.lines == [Self.bytes("ok1")])
        #expect(
            out.errors == [
                FramingError(lineNumber: 2, offset: 5, length: 20_000, limit: 16_384, carriageReturns: 1_000),
                FramingError(lineNumber: 3, offset: 20_007, length: 20_001, limit: 16_384, carriageReturns: 1_000),
            ])
    }

    @Test("carriageReturns(in:) counts the CRs inside a line, not the CR of its CRLF")
    func carriageReturnsInLine() {
        var framer = LineFramer()
        var counts: [Int] = []
        framer.feed(Self.bytes("a\rb\rc\r\nplain\r\n\r\r\nlf only\n").span) { event, framer in
            guard case .line(let line) = event else { return }
            counts.append(framer.carriageReturns(in: line))
        }
        #expect(counts == [2, 0, 1, 0])
    }

    @Test(
        "carriageReturns(in:) is the line's count of CRs in every chunking: CRs at every offset, CRLF split across reads, CTCP and other control bytes, a CR at the end of the stream",
        arguments: [1, 2, 3, 5, 31, 32, 33, 64, 4096, 1_000_000])
    func carriageReturnsEveryChunking(chunk: Int) {
        // Lines of every length 0 ..< 100 holding CRs (alone, doubled, right before the terminator),
        // CTCP's 0x01, tabs, NULs, VT and FF; ended by LF or CRLF; then a last line with no terminator
        // whose final byte is a CR.
        var input: [UInt8] = []
        var rng = SplitMix64(seed: 39)
        for length in 0..<100 {
            var body = (0..<length).map { _ in UInt8(0x41 + rng.next() % 26) }
            for _ in 0..<(length / 8) {
                let controls: [UInt8] = [0x0D, 0x0D, 0x01, 0x09, 0x00, 0x0B, 0x0C]
                body[Int(rng.next() % UInt64(length))] = controls[Int(rng.next() % UInt64(controls.count))]
            }
            input += body + (rng.next() % 2 == 0 ? [0x0A] : [0x0D, 0x0A])
        }
        input += Self.bytes("tail\r\rend\r")
        var counts: [Int] = []
        var expected: [Int] = []
        var framer = LineFramer()
        func drain(_ framer: inout LineFramer, _ event: FramerEvent?) {
            guard case .line(let line) = event else { return }
            counts.append(framer.carriageReturns(in: line))
            expected.append(
                framer.withBytes(of: line) { bytes in
                    var n = 0
                    for i in 0..<bytes.count where bytes[i] == 0x0D { n += 1 }
                    return n
                })
        }
        var taken = 0
        while taken < input.count {
            taken += unsafe framer.fill { free in
                let n = min(free.count, chunk, input.count - taken)
                unsafe input.withUnsafeBytes {
                    unsafe free.baseAddress!.copyMemory(from: $0.baseAddress! + taken, byteCount: n)
                }
                return n
            }
            while let event = framer.nextLine() { drain(&framer, event) }
        }
        drain(&framer, framer.finish())
        #expect(counts.count == 101)
        #expect(counts == expected)
        #expect(counts.last == 3)  // `tail\r\rend\r`: the final CR ends no line
        #expect(counts.reduce(0, +) > 50)
    }

    @Test("carriageReturns(in:) of a line handed out before the last one counts its bytes")
    func carriageReturnsOfEarlierLine() {
        var framer = LineFramer()
        var lines: [FramedLine] = []
        framer.feed(Self.bytes("a\rb\rc\nplain\nd\re\n").span) { event, framer in
            guard case .line(let line) = event else { return }
            lines.append(line)
            if lines.count == 3 {
                #expect(lines.map { framer.carriageReturns(in: $0) } == [2, 0, 1])
            }
        }
        #expect(lines.count == 3)
    }

    @Test("a line of exactly the limit passes; one byte more is skipped", arguments: [1, 3, 64, 100_000])
    func limitBoundary(chunk: Int) {
        let exact = [UInt8](repeating: UInt8(ascii: "a"), count: 100)
        let over = [UInt8](repeating: UInt8(ascii: "b"), count: 101)
        let input = exact + Self.bytes("\r\n") + over + Self.bytes("\n") + exact
        let out = FramerVerifier.frame(input, maxLineLength: 100, chunks: { chunk })
        #expect(out.lines == [exact, exact])
        #expect(out.errors.map(\.length) == [101])
    }

    @Test("an over-long line at end of stream is reported by finish()")
    func overLongAtEnd() {
        let input = Self.bytes("x\n") + [UInt8](repeating: 0x41, count: 30_000)
        let out = FramerVerifier.frame(input, chunks: { 4096 })
        #expect(out.lines == [Self.bytes("x")])
        #expect(out.errors == [FramingError(lineNumber: 2, offset: 2, length: 30_000, limit: 16_384)])
    }

    @Test("drip-fed generated input gives the oracle's lines in every chunking", arguments: [1, 2, 3])
    func dripFedGenerated(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var input: [UInt8] = []
        for _ in 0..<400 {
            let length = Int(rng.next() % 600)
            for _ in 0..<length {
                // Printable bytes and the odd lone CR; LF only as a terminator.
                let r = rng.next() % 100
                input.append(r == 0 ? 0x0D : UInt8(0x20 + rng.next() % 0x5F))
            }
            input += rng.next() % 3 == 0 ? [0x0A] : [0x0D, 0x0A]
        }
        let expected = FramerVerifier.oracleLines(input)
        for (label, output) in FramerVerifier.allChunkings(input, seed: seed) {
            #expect(output.lines == expected, "\(label)")
            #expect(output.errors.isEmpty, "\(label)")
        }
    }

    @Test("every fixture frames identically in every chunking", arguments: try Fixtures.lineFiles())
    func dripFedFixtures(file: String) throws {
        let input = try Fixtures.bytes("lines/" + file)
        let all = FramerVerifier.allChunkings(input)
        let reference = all.last!.output
        // And it is the oracle's: every line, the over-long ones skipped with an error each.
        let oracle = FramerVerifier.oracleLines(input)
        let limit = LineFramer.defaultMaxLineLength
        #expect(reference.lines == oracle.filter { $0.count <= limit }, "\(file)")
        #expect(reference.errors.count == oracle.filter { $0.count > limit }.count, "\(file)")
        #expect(!reference.lines.isEmpty)
        for (label, output) in all {
            #expect(output == reference, "\(file): \(label)")
        }
    }

    @Test("line ends at every offset around the 16- and 64-byte scan steps, CRLF and LF, with NULs and lone CRs")
    func lineEndsAtEveryOffset() {
        // Lines of every length 0 ..< 140 in turn, so that each line end falls at every offset mod 16,
        // 32 and 64 from the buffer's start and from the line's; bodies hold NULs, lone CRs and a CR
        // right before a CRLF.
        var input: [UInt8] = []
        for length in 0..<140 {
            var body = (0..<length).map { UInt8(0x41 + $0 % 26) }
            if length > 2 { body[length / 2] = 0x00 }
            if length > 4 { body[1] = 0x0D }
            if length > 6 { body[length - 1] = 0x0D }  // CR, then the terminator's CRLF or LF
            input += body + (length % 3 == 0 ? [0x0A] : [0x0D, 0x0A])
        }
        let expected = FramerVerifier.oracleLines(input)
        #expect(expected.count == 140)
        for (label, output) in FramerVerifier.allChunkings(input) {
            #expect(output.lines == expected, "\(label)")
            #expect(output.errors.isEmpty, "\(label)")
        }
        // And from every starting offset of the buffer (a prefix line of each length before it).
        for shift in 0..<64 {
            let shifted = [UInt8](repeating: 0x00, count: shift) + [0x0A] + input
            let output = FramerVerifier.frame(shifted, chunks: { shifted.count })
            #expect(output.lines == FramerVerifier.oracleLines(shifted), "shift \(shift)")
        }
    }

    @Test("filling again before draining is a programming error")
    func fillBeforeDrain() async {
        await #expect(processExitsWith: .failure) {
            var framer = LineFramer()
            framer.fill { free in
                free.storeBytes(of: 0x0A0A_0A0A, as: UInt32.self)
                return 4
            }
            framer.fill { _ in 0 }
        }
    }

    @Test("the buffer is compacted so that an endless stream never needs more memory")
    func longStream() {
        var framer = LineFramer(maxLineLength: 100, bufferCapacity: 8192)
        let line = Self.bytes("PING :tmi.twitch.tv\r\n")
        var count = 0
        for _ in 0..<5_000 {
            line.withUnsafeBytes { raw in
                let span = Span<UInt8>(_unsafeElements: raw.assumingMemoryBound(to: UInt8.self))
                framer.feed(span) { event, _ in
                    if case .line = event { count += 1 }
                }
            }
        }
        #expect(count == 5_000)
        #expect(framer.lineCount == 5_000)
        #expect(framer.streamOffset == UInt64(5_000 * line.count))
    }
}
