import ChatTestSupport
import Testing

@testable import IRCWire

#if canImport(Glibc)
    import Glibc
#endif

/// The one-pass tag scan (``TagStops``: `=`, `;` and the section's end found together, 64 bytes at a
/// time) that ``TwitchMessage/parse(_:tags:)`` and ``TagCursor`` walk, against a plain byte-by-byte walk
/// written here: on the edges a word-at-a-time scan gets wrong, on bytes that end exactly where the
/// section does (behind an unreadable page), and on every line of the fixtures and of a generated
/// bench log.
@Suite struct TagScanTests {
    /// One element of a tag section as the byte-by-byte walk sees it.
    struct Element: Equatable, CustomStringConvertible {
        var key: Range<Int>
        var value: Range<Int>
        var hasEquals: Bool
        var description: String { "\(key)=\(value)" }
    }

    /// The byte-by-byte walk: the section from byte 1 to the first space (`nil` when there is none),
    /// and its elements split at each `;` and at the first `=` of each, empty ones included.
    static func walk(_ bytes: [UInt8]) -> (end: Int?, elements: [Element]) {
        var elements: [Element] = []
        var start = 1
        var eq: Int? = nil
        var i = 1
        while i < bytes.count && bytes[i] != 0x20 {
            if bytes[i] == UInt8(ascii: "=") && eq == nil { eq = i }
            if bytes[i] == UInt8(ascii: ";") {
                elements.append(element(start, eq, i))
                start = i + 1
                eq = nil
            }
            i += 1
        }
        elements.append(element(start, eq, i))
        return (i < bytes.count ? i : nil, elements)
    }

    static func element(_ start: Int, _ eq: Int?, _ stop: Int) -> Element {
        guard let eq else { return Element(key: start..<stop, value: stop..<stop, hasEquals: false) }
        return Element(key: start..<eq, value: (eq + 1)..<stop, hasEquals: true)
    }

    /// Everything the one-pass scan yields for `bytes` (a line starting with `@`), compared with the
    /// byte-by-byte walk and with the two-pass path (``ParsedLine/parse(_:)`` then
    /// ``TwitchMessage/init(_:in:)``). Returns the number of tags checked.
    @discardableResult
    static func check(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let text = String(decoding: bytes, as: UTF8.self)
        let (end, elements) = walk(bytes)
        var twoPass: Result<ParsedLine, LineError>
        do throws(LineError) { twoPass = .success(try ParsedLine.parse(bytes.span)) } catch {
            twoPass = .failure(error)
        }
        var onePass: Result<TwitchMessage, LineError>
        do throws(LineError) { onePass = .success(try TwitchMessage.parse(bytes.span)) } catch {
            onePass = .failure(error)
        }
        // The parse that sorts only the times (``TagScope/times``): the same line or error.
        var timesPass: Result<TwitchMessage, LineError>
        do throws(LineError) { timesPass = .success(try TwitchMessage.parse(bytes.span, tags: .times)) } catch {
            timesPass = .failure(error)
        }
        // The parse that splits the tags in its own pass: the same line or error as the two passes,
        // and the cursor's tags (checked below against the walk).
        var split: [Element] = []
        var splitParse: Result<ParsedLine, LineError>
        do throws(LineError) {
            splitParse = .success(
                try ParsedLine.parse(bytes.span) { tag in
                    split.append(Element(key: tag.key.range, value: tag.value.raw.range, hasEquals: false))
                })
        } catch { splitParse = .failure(error) }
        #expect(splitParse == twoPass, "\(text)", sourceLocation: sourceLocation)
        switch (twoPass, onePass) {
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(text)", sourceLocation: sourceLocation)
            if case .failure(let c) = timesPass {
                #expect(c == a, "\(text)", sourceLocation: sourceLocation)
            } else {
                Issue.record("the times-only parse succeeded on \(text)", sourceLocation: sourceLocation)
            }
            if end == nil && bytes.count <= Int(UInt16.max) {
                #expect(b == .missingCommand(offset: bytes.count), "\(text)", sourceLocation: sourceLocation)
            }
            return 0
        case (.success(let line), .success(let message)):
            #expect(message.line == line, "\(text)", sourceLocation: sourceLocation)
            // The rest of the message, sorted in place by the parse, as the two passes classify it.
            let twoPassMessage = TwitchMessage(line, in: bytes.span)
            #expect(message.command == twoPassMessage.command, "\(text)", sourceLocation: sourceLocation)
            #expect(message.channel == twoPassMessage.channel, "\(text)", sourceLocation: sourceLocation)
            #expect(Int(line.tagsRange.upper) == end, "\(text)", sourceLocation: sourceLocation)
            let slow = TwitchTags(line, in: bytes.span)
            let fast = message.tags
            // The tags the walk finds (empty elements dropped), through the cursor.
            let expected = elements.filter { !($0.key.isEmpty && !$0.hasEquals) }
            var seen: [Element] = []
            var cursor = line.tags
            while let tag = cursor.next(in: bytes.span) {
                seen.append(Element(key: tag.key.range, value: tag.value.raw.range, hasEquals: false))
            }
            #expect(
                seen.map { [$0.key, $0.value] } == expected.map { [$0.key, $0.value] }, "\(text)",
                sourceLocation: sourceLocation)
            #expect(split == seen, "\(text)", sourceLocation: sourceLocation)
            // The slots: each documented key's last value; the counts; regularity.
            var last: [TwitchTagKey: Range<Int>] = [:]
            var repeated = false
            var msgParams = 0
            var unknown = 0
            for e in elements where !e.key.isEmpty {
                if let key = TwitchTagKey(bytes: bytes.span, ByteRange(e.key)) {
                    if last[key] != nil { repeated = true }
                    last[key] = e.value
                } else if e.key.count > 10 && bytes[e.key].starts(with: Array("msg-param-".utf8)) {
                    msgParams += 1
                } else {
                    unknown += 1
                }
            }
            let empty =
                elements.contains { $0.key.isEmpty }
                && !(elements.count == 1 && elements[0].key.isEmpty && !elements[0].hasEquals)
            for tags in [fast, slow] {
                #expect(
                    tags.count == elements.count(where: { !$0.key.isEmpty }), "\(text)", sourceLocation: sourceLocation)
                #expect(tags.msgParamCount == msgParams, "\(text)", sourceLocation: sourceLocation)
                #expect(tags.unknownCount == unknown, "\(text)", sourceLocation: sourceLocation)
                #expect(tags.isRegular == !(repeated || empty), "\(text)", sourceLocation: sourceLocation)
                #expect(tags.sectionEnd == end, "\(text)", sourceLocation: sourceLocation)
                for key in TwitchTagKey.allCases {
                    #expect(tags[key]?.raw.range == last[key], "\(key) in \(text)", sourceLocation: sourceLocation)
                }
            }
            // The one-tag lookup (``ParsedLine/tag(_:in:)``, what a store evicting a shared-chat line
            // reads its `source-id` with): each documented key the line holds, its last value as the
            // slots give it; `source-id` also when absent.
            for key in Set(last.keys).union([.sourceId]) {
                #expect(
                    line.tag(key.name, in: bytes.span)?.raw.range == last[key], "\(key) in \(text)",
                    sourceLocation: sourceLocation)
            }
            // The times-only parse: the same line, command and channel, the section's end, and of the
            // slots only `time` and `tmi-sent-ts` (each key's last value), no counts.
            guard case .success(let times) = timesPass else {
                Issue.record("the times-only parse failed on \(text): \(timesPass)", sourceLocation: sourceLocation)
                return expected.count
            }
            #expect(times.line == line, "\(text)", sourceLocation: sourceLocation)
            #expect(times.command == message.command, "\(text)", sourceLocation: sourceLocation)
            #expect(times.channel == message.channel, "\(text)", sourceLocation: sourceLocation)
            #expect(times.tags.sectionEnd == end, "\(text)", sourceLocation: sourceLocation)
            #expect(times.tags.count == 0, "\(text)", sourceLocation: sourceLocation)
            for key in TwitchTagKey.allCases {
                let want = key == .time || key == .tmiSentTs ? last[key] : nil
                // Read from the slot itself: a lookup of another key traps in a debug build.
                let packed = times.tags.slot(key)
                let range = packed == .max ? nil : Int(packed >> 16)..<Int(packed & 0xFFFF)
                #expect(range == want, "\(key) in \(text)", sourceLocation: sourceLocation)
            }
            return expected.count
        default:
            Issue.record("one pass and two passes disagree on \(text): \(twoPass) against \(onePass)")
            return 0
        }
    }

    static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(Array(text.utf8), sourceLocation: sourceLocation)
    }

    @Test("the section ending at every offset around the 16-byte blocks and 64-byte chunks")
    func sectionEndAtEveryOffset() {
        for pad in 0..<200 {
            let x = String(repeating: "x", count: pad)
            Self.check("@id=\(x) :u PRIVMSG #c :hi")
            Self.check("@id\(x) :u PRIVMSG #c :hi")  // a key without `=` ends the section
            Self.check("@id=\(x); :u PRIVMSG #c :hi")  // `;` the last byte before the space
            Self.check("@id\(x)= :u PRIVMSG #c :hi")  // `=` the last byte before the space
            Self.check("@color=\(x)=;mod=1;;user-id=\(x) PING")  // `=` in a value, `;;`
            Self.check("@k\(x)=v;id=a=b;color=#FF0000 :u PRIVMSG #c :a=b;c=d; e")  // delimiters after the section
        }
    }

    @Test("empty values, keys without =, empty keys, leading, trailing and doubled ;")
    func emptyParts() {
        for tags in [
            "@id=", "@id", "@id=;mod=", "@id;mod;color", "@=v", "@=", "@;", "@;;", "@;id=1", "@id=1;", "@id=1;;mod=0",
            "@=v;id=2", "@id=1;=", "@", "@msg-param-x=1;msg-param-", "@x-unknown;id=1;x-unknown=2",
            "@id=1;id=2;id=", "@time=2026-01-01T00:00:00.000Z;tmi-sent-ts=1",
        ] {
            Self.check(tags + " :u PRIVMSG #c :hi")
            Self.check(tags + " PING")
        }
    }

    @Test("NUL bytes, a CR without LF and other control bytes are plain bytes of keys and values")
    func controlBytes() {
        for pad in 0..<70 {
            let x = String(repeating: "z", count: pad)
            Self.check("@id=\u{0}\(x);a\u{0}b=\r;\r=\(x)\u{0}= :u PRIVMSG #c :\u{0}\r")
            Self.check("@\u{0}\(x)\r;\t=\u{1};mod=\r\(x) PING")
            Self.check("@\(x)\r")  // no space: the CR is the section's last byte
        }
    }

    @Test("lines without tags: the splitting parse finds none and parses as parse(_:)")
    func noTags() throws {
        for text in [":u PRIVMSG #c :a=b;c", "PING :x=y;z", ":@ X", "PRIVMSG #c :@a=b", "  PING  a=1 "] {
            let bytes = Array(text.utf8)
            var tags = 0
            let split = try ParsedLine.parse(bytes.span) { _ in tags += 1 }
            #expect(split == (try ParsedLine.parse(bytes.span)), "\(text)")
            #expect(tags == 0 && !split.hasTags, "\(text)")
        }
        for text in ["", "   ", "@", "@id=1", ":u", "@id=1 :u", " @id=1 PING", "x=1;y PING"] {
            let bytes = Array(text.utf8)
            var plain: LineError? = nil
            do throws(LineError) { _ = try ParsedLine.parse(bytes.span) } catch { plain = error }
            var splitError: LineError? = nil
            do throws(LineError) { _ = try ParsedLine.parse(bytes.span) { _ in } } catch { splitError = error }
            #expect(plain != nil && splitError == plain, "\(text)")
        }
    }

    @Test("escaped values are delimited raw: \\s, \\:, \\\\ and a trailing \\ end where the ; does")
    func escapedValues() throws {
        for pad in 0..<70 {
            let x = String(repeating: "y", count: pad)
            let section = "@display-name=a\\sb;system-msg=\(x)\\:\\s\\\\;reply-parent-msg-body=\(x)\\;id=z\\\\"
            Self.check(section + " :u USERNOTICE #c :hi")
            let bytes = Array((section + " :u USERNOTICE #c :hi").utf8)
            let message = try TwitchMessage.parse(bytes.span)
            var out: [UInt8] = []
            try #require(message.tags[.systemMsg]).unescape(in: bytes.span) { out.append($0) }
            #expect(out == Array((x + "; \\").utf8))
            out = []
            try #require(message.tags[.replyParentMsgBody]).unescape(in: bytes.span) { out.append($0) }
            #expect(out == Array(x.utf8), "a trailing backslash is dropped")
            #expect(message.tags[.id].map { bytes.span.equals("z\\\\", at: $0.raw) } == true)
        }
    }

    @Test("a section longer than any block: thousands of bytes, hundreds of tags, the last duplicate wins")
    func longSection() throws {
        var parts: [String] = []
        for k in 0..<400 { parts.append(k % 7 == 0 ? "id=\(k)" : "x-k\(k)=\(String(repeating: "v", count: k % 23))") }
        let text = "@" + parts.joined(separator: ";") + " :u PRIVMSG #c :hi"
        #expect(text.utf8.count > 4_000)
        #expect(Self.check(Array(text.utf8)) == 400)
        let bytes = Array(text.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        #expect(message.tags[.id].map { bytes.span.equals("399", at: $0.raw) } == true)
        #expect(message.tags.count == 400)
        #expect(message.tags.unknownCount == 342)
        #expect(!message.tags.isRegular)
    }

    /// `bytes` copied to the very end of a readable page followed by an unreadable one: a read past
    /// the last byte faults.
    static func withBytesAtPageEnd(_ bytes: [UInt8], _ body: (Span<UInt8>) -> Void) throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        try #require(bytes.count <= page)
        let map = unsafe mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let base = try #require(unsafe Int(bitPattern: map) == -1 ? nil : map)
        defer { unsafe _ = munmap(base, 2 * page) }
        // SAFETY: the second page is inside the mapping.
        #expect(unsafe mprotect(base + page, page, PROT_NONE) == 0)
        // SAFETY: `page - count ..< page` is inside the first, writable page.
        let start = unsafe (base + (page - bytes.count)).assumingMemoryBound(to: UInt8.self)
        unsafe bytes.withUnsafeBufferPointer { unsafe start.update(from: $0.baseAddress!, count: bytes.count) }
        // SAFETY: the span covers exactly the bytes just written; it does not outlive the mapping.
        body(unsafe Span(_unsafeElements: UnsafeBufferPointer(start: start, count: bytes.count)))
    }

    @Test("tags at the end of the bytes with nothing after them: no read past the last byte")
    func noOverRead() throws {
        for pad in 0..<140 {
            let x = String(repeating: "x", count: pad)
            for text in ["@id=\(x)", "@id=\(x);", "@id=\(x)=", "@id\(x)", "@id=1;\(x) PING", "@id=\(x) PING", "@\(x)"] {
                let bytes = Array(text.utf8)
                try Self.withBytesAtPageEnd(bytes) { span in
                    var failure: LineError? = nil
                    do throws(LineError) { _ = try TwitchMessage.parse(span) } catch { failure = error }
                    let end = Self.walk(bytes).end
                    #expect(failure == (end == nil ? .missingCommand(offset: bytes.count) : nil), "\(text)")
                    // The section's end is the bytes' end: the scan stops at the limit.
                    let tags = TwitchTags(scanning: span, from: 1, limit: span.count)
                    #expect(tags.sectionEnd == end ?? bytes.count, "\(text)")
                    var cursor = TagCursor(lower: 1, upper: tags.sectionEnd)
                    var n = 0
                    while cursor.next(in: span) != nil { n += 1 }
                    #expect(n == tags.count, "\(text)")
                    var times = TwitchTags()
                    times.scanTimes(span, from: 1, limit: span.count)
                    #expect(times.sectionEnd == tags.sectionEnd, "\(text)")
                }
            }
        }
        // The times' keys themselves at the end of the bytes: their four- and eight-byte reads.
        for text in [
            "@time", "@time=", "@tmi-sent-ts", "@tmi-sent-ts=", "@tmi-sent-t", "@x;tmi-", "@x;tim", "@;time=1",
        ] {
            let bytes = Array(text.utf8)
            try Self.withBytesAtPageEnd(bytes) { span in
                var times = TwitchTags()
                times.scanTimes(span, from: 1, limit: span.count)
                let full = TwitchTags(scanning: span, from: 1, limit: span.count)
                #expect(times[.time]?.raw == full[.time]?.raw, "\(text)")
                #expect(times[.tmiSentTs]?.raw == full[.tmiSentTs]?.raw, "\(text)")
            }
        }
    }

    @Test("the times-only scan: keys that start like time or tmi-sent-ts, repeats, values with = and ;")
    func timesOnly() {
        for pad in 0..<70 {
            let x = String(repeating: "q", count: pad)
            for section in [
                "@time=\(x);tmi-sent-ts=1\(x)", "@timex=1;time=2;times=3", "@tmi-sent-tsx=1;tmi-sent-t=2;tmi-sent-ts",
                "@tmi-sent-ts=1;tmi-sent-ts=2=3", "@time;time=", "@\(x)time=1", "@a=\(x)time=1;tmi-sent-ts=\(x);",
                "@tmi-=1;tmi-sent=2;time\(x)=3", "@id=\(x);;time=x=y;;", "@=time;time",
            ] {
                Self.check(section + " :u PRIVMSG #c :time=1;tmi-sent-ts=2")
                Self.check(section + " PING")
                Self.check(section)  // no space: no command
            }
        }
    }

    @Test("a times-only parse traps (debug builds) when a tag other than the times is looked up or walked")
    func timesOnlyLookupTraps() async throws {
        var assertsOn = false
        assert(
            {
                assertsOn = true
                return true
            }())
        // A release build of the tests has no assertions: nothing to trap.
        guard assertsOn else { return }
        await #expect(processExitsWith: .failure) {
            let bytes = Array("@id=1;tmi-sent-ts=2 :u PRIVMSG #c :hi".utf8)
            let message = try TwitchMessage.parse(bytes.span, tags: .times)
            _ = message.tags[.id]
        }
        await #expect(processExitsWith: .failure) {
            let bytes = Array("@msg-param-x=1;time=2 :u USERNOTICE #c :hi".utf8)
            let message = try TwitchMessage.parse(bytes.span, tags: .times)
            _ = message.tags.msgParam("x", in: bytes.span)
        }
        // The times themselves, and every tag after a whole parse into the same value.
        let bytes = Array("@id=1;tmi-sent-ts=2 :u PRIVMSG #c :hi".utf8)
        var message = try TwitchMessage.parse(bytes.span, tags: .times)
        #expect(message.tags[.tmiSentTs] != nil && message.tags[.time] == nil)
        try message.reparse(bytes.span)
        #expect(message.tags[.id] != nil)
    }

    /// Every line of `input`, framed as the readers frame it.
    static func checkEveryLine(_ input: [UInt8]) -> (lines: Int, tags: Int) {
        var lines = 0
        var tags = 0
        var framer = LineFramer()
        func handle(_ event: FramerEvent, _ framer: borrowing LineFramer) {
            guard case .line(let line) = event else { return }
            framer.withBytes(of: line) { bytes in
                guard bytes.count > 0 && bytes[0] == UInt8(ascii: "@") else { return }
                var copy: [UInt8] = []
                copy.reserveCapacity(bytes.count)
                for k in 0..<bytes.count { copy.append(bytes[k]) }
                lines += 1
                tags += check(copy)
            }
        }
        framer.feed(input.span) { event, framer in handle(event, framer) }
        if let last = framer.finish() { handle(last, framer) }
        return (lines, tags)
    }

    @Test("differential: every tagged line of every fixture log, one pass against the byte walk")
    func everyFixtureLine() throws {
        var lines = 0
        var tags = 0
        for file in try Fixtures.lineFiles() {
            let (l, t) = Self.checkEveryLine(try Fixtures.bytes("lines/" + file))
            lines += l
            tags += t
        }
        #expect(lines > 100)
        #expect(tags > 1_000)
    }

    @Test(
        "differential: every line of a generated bench log (generate_fixtures.py, 6 and 1,000 channels)",
        .timeLimit(.minutes(20)))
    func everyBenchLine() throws {
        // Tagged lines and tags at least (JOIN and PART lines carry no tags; a thousand channels join
        // first). A few thousand lines: the check costs about 0.2 ms a line in a debug build, and the
        // whole suite shares two cores (10,000 lines each overran 5 minutes in a full run).
        for (arguments, least) in [
            ("--lines 3000", (2_700, 45_000)), ("--lines 6000 --channels 1000 --seed 7", (2_700, 27_000)),
        ] {
            let command = "python3 '\(Fixtures.root)/Scripts/generate_fixtures.py' \(arguments) --out - 2>/dev/null"
            let pipe = try #require(unsafe popen(command, "r"))
            var input: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = unsafe fread(&chunk, 1, chunk.count, pipe)
                if n <= 0 { break }
                input.append(contentsOf: chunk[0..<n])
            }
            #expect(unsafe pclose(pipe) == 0, "\(command)")
            let (lines, tags) = Self.checkEveryLine(input)
            #expect(lines > least.0, "\(arguments)")
            #expect(tags > least.1, "\(arguments)")
        }
    }
}
