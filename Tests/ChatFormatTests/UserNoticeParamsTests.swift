import ChatTestSupport
import IRCWire
import Testing

@testable import ChatFormat

/// A USERNOTICE's `"params"`: each snake_case key once with its last value, known keys typed. The
/// writer gathers the params once and compares plain keys as bytes; these tests hold it to the
/// definition, written here the slow way (every param against every later one in snake_case form,
/// after UTF-8 repair; known keys by their snake_case form).
@Suite struct UserNoticeParamsTests {
    /// `"params":{…}` as ``UserNoticeParams/write(_:_:into:)`` writes it for `line`.
    static func written(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        UserNoticeParams.write(line.span, message.tags, into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// The same by the definition.
    static func defined(_ line: [UInt8]) throws -> String {
        let bytes = line.span
        let tags = try TwitchMessage.parse(bytes).tags
        var params: [(key: ByteRange, value: TagValue)] = []
        tags.forEachMsgParam(in: bytes) { params.append((ByteRange($0.key.lower + 10, $0.key.upper), $0.value)) }
        var out = JSONWriter()
        out.key("params")
        out.beginObject()
        for (i, p) in params.enumerated()
        where !params[(i + 1)...].contains(where: { SnakeCase.equalAfterRepair(bytes, p.key, $0.key) }) {
            out.key(snakeCase: bytes, p.key)
            let raw = bytes.extracting(p.value.raw.range)
            if UserNoticeParams.integerKeys.contains(where: { SnakeCase.equals(bytes, p.key, $0) }),
                let n = p.value.integer(in: bytes)
            {
                out.number(n)
            } else if UserNoticeParams.booleanKeys.contains(where: { SnakeCase.equals(bytes, p.key, $0) }),
                raw.equals("1") || raw.equals("true") || raw.equals("0") || raw.equals("false")
            {
                out.bool(raw.equals("1") || raw.equals("true"))
            } else {
                out.string(bytes, tag: p.value)
            }
        }
        out.endObject()
        return String(decoding: out.bytes, as: UTF8.self)
    }

    static func line(_ tags: [[UInt8]]) -> [UInt8] {
        var line = Array("@msg-id=sub".utf8)
        for tag in tags { line += Array(";".utf8) + tag }
        return line + Array(" :tmi.twitch.tv USERNOTICE #c :hi".utf8)
    }

    @Test("kebab, snake and camel forms of one key are one member, with the last value")
    func oneKeyInThreeForms() throws {
        let line = Self.line([
            Array("msg-param-viewer-count=1".utf8), Array("msg-param-months=x".utf8),
            Array("msg-param-viewer_count=2".utf8), Array("msg-param-viewerCount=3".utf8),
            Array("msg-param-sub-plan=1000".utf8), Array("msg-param-sub_plan=Prime".utf8),
        ])
        #expect(try Self.written(line) == #""params":{"months":"x","viewer_count":3,"sub_plan":"Prime"}"#)
    }

    @Test("known keys are typed in any form; a value that is not one stays a string")
    func typedValues() throws {
        let line = Self.line([
            Array("msg-param-cumulative-months=12".utf8), Array("msg-param-wasGifted=true".utf8),
            Array("msg-param-should-share-streak=0".utf8), Array("msg-param-anon-gift=maybe".utf8),
            Array("msg-param-streak-months=x".utf8), Array(#"msg-param-sub-plan-name=Channel\sSub"#.utf8),
            Array("msg-param-month=3".utf8),
        ])
        #expect(
            try Self.written(line)
                == #""params":{"cumulative_months":12,"was_gifted":true,"should_share_streak":false,"anon_gift":"maybe","streak_months":"x","sub_plan_name":"Channel Sub","month":"3"}"#
        )
    }

    @Test("random params agree with the definition, more than the gathered capacity too", arguments: [1, 2, 3])
    func randomParams(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("b".utf8), Array("1".utf8), Array("-".utf8), Array("_".utf8), Array("A".utf8),
            Array("Bc".utf8), [0xFF], [0xFE], Array("months".utf8), Array("viewer-count".utf8),
            Array("viewerCount".utf8), Array("was_gifted".utf8), Array("wasGifted".utf8),
        ]
        let values = ["1", "0", "true", "false", "x", "12", #"a\sb"#, ""]
        var overCapacity = 0
        for _ in 0..<1_500 {
            let count = Int.random(in: 0...(Bool.random(using: &rng) ? 6 : 40), using: &rng)
            if count > UserNoticeParams.gatheredCapacity { overCapacity += 1 }
            var tags: [[UInt8]] = []
            for _ in 0..<count {
                var key: [UInt8] = []
                for _ in 0..<Int.random(in: 1...2, using: &rng) { key += pieces.randomElement(using: &rng)! }
                tags.append(
                    Array("msg-param-".utf8) + key + Array("=".utf8) + Array(values.randomElement(using: &rng)!.utf8))
                if Int.random(in: 0..<4, using: &rng) == 0 { tags.append(Array("color=#F00".utf8)) }
            }
            let line = Self.line(tags)
            #expect(try Self.written(line) == Self.defined(line), "\(String(decoding: line, as: UTF8.self))")
        }
        #expect(overCapacity > 100, "lines of more params than gathered are tested")
    }
}
