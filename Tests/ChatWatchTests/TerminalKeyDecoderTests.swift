import ChatWatch
import Testing

@Suite struct TerminalKeyDecoderTests {
    static func decode(_ bytes: [UInt8], flush: Bool = false) -> [Key] {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        decoder.feed(bytes) { keys.append($0) }
        if flush { decoder.flush { keys.append($0) } }
        return keys
    }

    static func decode(_ s: String, flush: Bool = false) -> [Key] { decode(Array(s.utf8), flush: flush) }

    static let sequences: [(String, Key)] = [
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
        ("\u{1B}[F", .end), ("\u{1B}[4~", .end), ("\u{1B}[8~", .end), ("\u{1B}OF", .end),
        ("\u{1B}[H", .home), ("\u{1B}[1~", .home), ("\u{1B}[7~", .home), ("\u{1B}OH", .home),
        ("\u{1B}[A", .up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}OC", .right), ("\u{1B}OD", .left),
        ("\u{1B}[1;5A", .up), ("\u{1B}[1;2B", .down), ("\u{1B}[5;5~", .pageUp),
        ("\u{1B}[2~", .insert), ("\u{1B}[3~", .delete), ("\u{1B}[Z", .backTab),
        ("\u{1B}[15~", .unknown), ("\u{1B}OP", .unknown),
    ]

    @Test("escape sequences for page keys, End/Home, arrows (CSI and SS3, with modifiers)", arguments: sequences)
    func sequence(input: String, key: Key) {
        #expect(Self.decode(input) == [key])
    }

    @Test("single bytes: letters, Tab, Enter (CR and LF), Backspace (DEL and BS), Ctrl-C")
    func singleBytes() {
        #expect(
            Self.decode("qkjG/") == [
                .character("q"), .character("k"), .character("j"), .character("G"), .character("/"),
            ])
        #expect(
            Self.decode([0x09, 0x0D, 0x0A, 0x7F, 0x08, 0x03]) == [
                .tab, .enter, .enter, .backspace, .backspace, .control("c"),
            ])
    }

    @Test("UTF-8 characters, also when split across reads")
    func utf8() {
        #expect(Self.decode("é日👋") == [.character("é"), .character("日"), .character("👋")])
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for b in Array("日".utf8) { decoder.feed([b]) { keys.append($0) } }
        #expect(keys == [.character("日")])
    }

    @Test("a sequence split across reads is one key")
    func split() {
        for cut in 1..<4 {
            let bytes = Array("\u{1B}[5~".utf8)
            var decoder = KeyDecoder()
            var keys: [Key] = []
            decoder.feed(bytes[..<cut]) { keys.append($0) }
            #expect(keys.isEmpty && decoder.isPending)
            decoder.feed(bytes[cut...]) { keys.append($0) }
            #expect(keys == [.pageUp])
            #expect(!decoder.isPending)
        }
    }

    @Test("a lone ESC waits for a pause, then is Escape; ESC before a plain key is Escape then that key")
    func escape() {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        decoder.feed([0x1B]) { keys.append($0) }
        #expect(keys.isEmpty && decoder.isPending)
        decoder.flush { keys.append($0) }
        #expect(keys == [.escape])
        #expect(Self.decode("\u{1B}q") == [.escape, .character("q")])
        #expect(Self.decode("\u{1B}\u{1B}[6~") == [.escape, .pageDown])
        #expect(Self.decode("\u{1B}[", flush: true) == [.unknown])
    }

    @Test("keys around sequences decode in order; garbage inside a sequence ends it")
    func mixed() {
        #expect(
            Self.decode("k\u{1B}[5~j\u{1B}[Fq") == [.character("k"), .pageUp, .character("j"), .end, .character("q")])
        #expect(Self.decode("\u{1B}[1\u{7}q") == [.unknown, .character("q")])
    }
}
