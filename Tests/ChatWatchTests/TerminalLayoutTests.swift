import ChatFormat
import ChatInput
import ChatStore
import ChatTestSupport
import ChatWatch
import Foundation
import IRCWire
import Testing

/// Replays `Fixtures/lines/<names>` into a fresh store through the watch ingest path.
func watchStore(_ names: [String], channels: [String] = [], capacity: Int = 2_500, windowSize: Int = 150)
    throws -> (ChatStore, WatchBoard)
{
    let store = ChatStore(capacity: capacity, windowSize: windowSize)
    let board = WatchBoard(channels: channels)
    let ingest = WatchIngest(store: store, board: board, channels: channels)
    let reader = try MergeReader(arguments: names.map { Fixtures.directory + "/lines/" + $0 })
    RecordingFeed(reader: reader, speed: nil).run(into: ingest)
    return (store, board)
}

/// Every kept entry of `channel`, laid out by the watch formatter at `width`, as plain text rows.
func layout(_ store: ChatStore, channel: String, width: Int, filter: WatchFilter? = nil) -> [[String]] {
    let log = store.log(named: channel)!
    let reader = store.readers.makeReader()!
    var out: [[String]] = []
    log.ring.withEntries(in: log.ring.liveRange, reader: reader) { info, bytes in
        guard let text = EntryFormatter(filter: filter).format(info, bytes) else { return }
        out.append(text.wrapped(width: width, indent: EntryFormatter.indent).map(\.plainText))
    }
    return out
}

@Suite struct TerminalLayoutTests {
    static func text(_ s: String) -> StyledText {
        var t = StyledText()
        t.append(s, .plain)
        return t
    }

    @Test("columns: ASCII 1, CJK and emoji 2, combining marks 0; ZWJ sequences and flags as one wide glyph")
    func widths() {
        #expect(DisplayWidth.of("a") == 1)
        #expect(DisplayWidth.of("日") == 2)
        #expect(DisplayWidth.of("ア") == 2)
        #expect(DisplayWidth.of("한") == 2)
        #expect(DisplayWidth.of("👋") == 2)
        #expect(DisplayWidth.of("\u{301}") == 0)
        #expect(DisplayWidth.of("\u{200D}") == 0)
        #expect(DisplayWidth.of("𝕏") == 1)
        #expect(DisplayWidth.of("é") == 1)
        #expect(Self.text("日本語ユーザー").width == 14)
        #expect(Self.text("e\u{301}").width == 1)
        #expect(Self.text("👨‍👩‍👧").width == 2)
        #expect(Self.text("🇯🇵").width == 2)
        #expect(Self.text("👋🏽 Kappa").width == 10)  // the skin tone counts on its own, as tmux 3.3 draws it
    }

    @Test("control characters and invalid UTF-8 never reach the terminal")
    func safety() {
        var t = StyledText()
        let bytes: [UInt8] = [0x61, 0x1B, 0x5B, 0x32, 0x4A, 0x07, 0xC2, 0x9B, 0xFF, 0x62, 0x09, 0x63]
        t.append(bytes.span, 0..<bytes.count, .plain)
        let row = t.wrapped(width: 80)[0]
        #expect(row.plainText == "a?[2J??\u{FFFD}b c")  // ESC, BEL, U+009B (a C1 CSI), 0xFF, tab
        #expect(!row.bytes.contains(0x1B) && !row.bytes.contains(0x07))
    }

    @Test("wrapping breaks at spaces, indents continuation rows and never passes the width")
    func wrapWords() {
        let rows = Self.text("12:00:00 name: the quick brown fox jumps over the lazy dog").wrapped(width: 24, indent: 9)
        #expect(
            rows.map(\.plainText) == [
                "12:00:00 name: the quick", "         brown fox jumps", "         over the lazy", "         dog",
            ])
        #expect(rows.allSatisfy { $0.width <= 24 })
        let long = Self.text("x " + String(repeating: "a", count: 30)).wrapped(width: 12, indent: 2)
        #expect(long.map(\.plainText) == ["x aaaaaaaaaa", "  aaaaaaaaaa", "  aaaaaaaaaa"])
    }

    @Test("wide characters wrap between glyphs and never straddle the edge", arguments: [5, 6, 7, 9, 12])
    func wrapWide(width: Int) {
        let s = "こんにちは Kappa 日本語ユーザー 👋🏽👋 🇯🇵 done"
        let rows = Self.text(s).wrapped(width: width)
        #expect(rows.allSatisfy { $0.width <= width }, "\(rows.map(\.plainText))")
        #expect(rows.map(\.plainText).joined().filter { $0 != " " } == s.filter { $0 != " " })
        for row in rows { #expect(Self.text(row.plainText).width == row.width) }
    }

    @Test("moderation is visible: tombstones with their reason, struck through and dimmed")
    func moderation() throws {
        let (store, _) = try watchStore(["moderation.irc"])
        let rows = layout(store, channel: "pixelharbor", width: 120).map { $0.joined() }
        #expect(rows.count == 14)
        #expect(rows[0] == "04:43:21 trollface99: this streamer is so bad LUL [deleted] [timed out 600s] [cleared]")
        #expect(rows[1] == "04:43:23 LinkSpammer: cheap viewers at example dot com [deleted] [banned] [cleared]")
        #expect(rows[2] == "04:43:24 S NightOwlGG: ignore the trolls chat [cleared]")
        #expect(rows[5] == "04:43:27 -- message deleted from trollface99: this streamer is so bad LUL")
        #expect(rows[11] == "04:43:33 -- chat cleared by a moderator")
        #expect(rows[12] == "04:43:35 S NightOwlGG: that was fast 4Head")
        let log = store.log(named: "pixelharbor")!
        let reader = store.readers.makeReader()!
        let first = log.ring.withEntry(log.ring.liveRange.lowerBound, reader: reader) { info, bytes in
            EntryFormatter().format(info, bytes)!.wrapped(width: 120)[0]
        }
        guard case .found(let row) = first else {
            Issue.record("entry gone")
            return
        }
        // The name: bold, dim, struck through, red.
        #expect(String(decoding: row.bytes, as: UTF8.self).contains("\u{1B}[0;1;2;9;38;2;255;0;0m"))
    }

    @Test("chat rows: badge marks, /me, emotes highlighted by code point, CJK names")
    func chat() throws {
        let (store, _) = try watchStore(["privmsg.irc"])
        let rows = layout(store, channel: "pixelharbor", width: 120).map { $0.joined() }
        #expect(rows.contains("04:40:03 BS PixelHarbor: welcome in everyone HeyGuys grab a snack"))
        #expect(rows.contains("04:40:05 MS QuietMod: reminder: be nice in chat SeemsGood"))
        #expect(rows.contains("04:40:08 V SunnyVIP: VIP checking in LUL"))
        #expect(rows.contains("04:40:09 * Wavey_Dave waves Kappa"))
        #expect(rows.contains("04:40:19 日本語ユーザー: こんにちは Kappa"))
        // `👋🏽 Kappa héllo Kappa 𝕏` with emotes at code points 3-7 and 15-19: both Kappas, nothing else.
        let log = store.log(named: "pixelharbor")!
        let reader = store.readers.makeReader()!
        var highlighted: [String] = []
        log.ring.withEntries(in: log.ring.liveRange, reader: reader) { info, bytes in
            guard let row = EntryFormatter().format(info, bytes)?.wrapped(width: 120).first,
                row.plainText.contains("héllo")
            else { return }
            let s = String(decoding: row.bytes, as: UTF8.self)
            for part in s.components(separatedBy: "48;2;75;58;120m").dropFirst() {
                highlighted.append(String(part.prefix { $0 != "\u{1B}" }))
            }
        }
        #expect(highlighted == ["Kappa", "Kappa"])
    }

    @Test("narrow layout: a CJK message wraps at its space, or between characters when it must")
    func narrowCJK() throws {
        let (store, _) = try watchStore(["privmsg.irc"])
        let wide = try #require(layout(store, channel: "pixelharbor", width: 26).first { $0[0].contains("日本語") })
        #expect(wide == ["04:40:19 日本語ユーザー:", "         こんにちは Kappa"])
        let narrow = try #require(layout(store, channel: "pixelharbor", width: 20).first { $0[0].contains("日本語") })
        #expect(narrow == ["04:40:19 日本語ユー", "         ザー: こん", "         にちは", "         Kappa"])
        #expect(narrow.allSatisfy { Self.text($0).width <= 20 })
    }

    @Test("the name colour is the one replay --format text uses, for every chatter of the fixtures")
    func nameColours() throws {
        for name in ["privmsg.irc", "moderation.irc", "shared-chat.irc"] {
            for line in try Fixtures.bytes("lines/" + name).split(separator: 0x0A) {
                let bytes = Array(line.last == 0x0D ? line.dropLast() : line)
                let message = try TwitchMessage.parse(bytes.span)
                guard let p = message.privmsg(in: bytes.span), !p.isAction else { continue }
                var text = ByteBuffer()
                TextRenderer(color: true).render(bytes.span, message, LineContext(timestamp: nil), into: &text)
                let rendered = String(decoding: text.bytes, as: UTF8.self)
                let c = NameColor.of(bytes.span, tag: message.tags[.color], login: p.login)
                #expect(rendered.contains("\u{1B}[1;38;2;\(c.r);\(c.g);\(c.b)m"), "\(rendered)")
            }
        }
    }

    @Test("the filter keeps a user's chat by login part or @login, or text containing the needle")
    func filter() throws {
        let (store, _) = try watchStore(["moderation.irc"])
        let troll = layout(store, channel: "pixelharbor", width: 120, filter: WatchFilter("TROLL")).map { $0.joined() }
        #expect(troll.count == 5)  // two messages, the deletion, the timeout, and "ignore the trolls chat"
        let exact = layout(store, channel: "pixelharbor", width: 120, filter: WatchFilter("@trollface99")).map {
            $0.joined()
        }
        #expect(exact.count == 4)
        #expect(exact.allSatisfy { $0.contains("trollface99") })
        #expect(WatchFilter("") == nil)
    }
}
