import Foundation
import Testing

/// The kill -9 audit itself (``CrashIdAudit``), on a capture of lines written here: an id is counted
/// stored, inside a gap (widened at its start by the delivery lag), missing, or played while no run
/// was joined, and a missing one comes with what surrounds it.
@Suite struct CrashIdAuditTests {
    /// 2026-11-14T…Z, plus `ms`.
    static let base: Int64 = 1_794_700_000_000

    static func time(_ ms: Int64) -> String {
        ISO8601DateFormatter.withFraction.string(from: Date(timeIntervalSince1970: Double(base + ms) / 1000))
    }

    static func record(_ ms: Int64, _ words: String, tags: String = "") -> Substring {
        Substring("@time=\(time(ms))\(tags) :chatcap CAPTURE \(words)")
    }

    static func message(_ id: String, sent: Int64, received: Int64, channel: String = "a") -> Substring {
        Substring(
            "@time=\(time(received));id=\(id);tmi-sent-ts=\(base + sent) :u!u@u.tmi.twitch.tv PRIVMSG #\(channel) :hi")
    }

    static func played(_ id: String, _ sent: Int64, channel: String = "a") -> CrashIdAudit.Played {
        CrashIdAudit.Played(sentMs: base + sent, id: id, channel: channel)
    }

    @Test("stored, inside a gap (its start widened by the lag), missing with its neighbourhood, and unjoined")
    func counts() {
        var audit = CrashIdAudit()
        for line in [
            Self.record(0, "start run"),
            Self.record(100, "joined #a"),
            // Stored 40 ms after serve played it: the lag that widens the gap below.
            Self.message("m1", sent: 1_000, received: 1_040),
            Self.record(1_700, "gap #a", tags: ";gap-from=\(Self.time(1_420));gap-to=\(Self.time(1_600))"),
            Self.message("m5", sent: 3_000, received: 3_010),
            Self.record(10_000, "stop run"),
        ] {
            audit.take(line)
        }
        let played = [
            Self.played("m0", 50),  // before the join
            Self.played("m1", 1_000),
            Self.played("m2", 1_390),  // 30 ms before the gap's start: inside it by the 40 ms lag
            Self.played("m3", 1_500),  // inside the gap
            Self.played("m4", 2_500),  // neither stored nor inside a gap
            Self.played("m5", 3_000),
        ]
        let result = audit.audit(played: played, kills: [])
        #expect(result.required == 5 && result.unjoined == 1, "\(result)")
        #expect(result.stored == 2 && result.inGap == 2 && result.missingCount == 1, "\(result)")
        #expect(result.missing == ["\(Self.base + 2_500) m4 #a"], "\(result)")
        #expect(result.largestLag == 40 && result.gaps == 1, "\(result)")
        #expect(
            result.neighbourhoods == [
                "#a m4: stored before it played -1500, received -1460; after it played 500, received 510; "
                    + "gaps [-1080...-900 (lag 40)]; joined [-2400]; kills []; starts [-2500]; stops []"
            ], "\(result.neighbourhoods)")
        #expect(result.description.contains("\n  #a m4: stored before it"), "\(result)")
    }

    @Test("the gap's start is widened by the lag of the lines stored before it, no more")
    func lagBound() {
        var audit = CrashIdAudit()
        for line in [
            Self.record(0, "start run"), Self.record(100, "joined #a"),
            Self.message("m1", sent: 1_000, received: 1_040),
            Self.record(1_700, "gap #a", tags: ";gap-from=\(Self.time(1_420));gap-to=\(Self.time(1_600))"),
            Self.message("m3", sent: 3_000, received: 3_010), Self.record(10_000, "stop run"),
        ] {
            audit.take(line)
        }
        // 41 ms before the gap's start: one past the 40 ms lag.
        let result = audit.audit(
            played: [Self.played("m1", 1_000), Self.played("m2", 1_379), Self.played("m3", 3_000)], kills: [])
        #expect(result.missingCount == 1 && result.inGap == 0, "\(result)")
    }

    @Test("capture's time tags are read to the same millisecond as the formatter writes them; offsets and bad text too")
    func milliseconds() throws {
        for ms: Int64 in [
            0, 1, 999, 86_399_999, 951_782_400_000, 1_709_164_800_123, Self.base + 12_345, 4_102_444_799_999,
        ] {
            let text = ISO8601DateFormatter.withFraction.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
            #expect(CrashIdAudit.milliseconds(Substring(text)) == ms, "\(text)")
        }
        #expect(
            CrashIdAudit.milliseconds("2026-11-14T11:00:00.000+01:00")
                == CrashIdAudit.milliseconds("2026-11-14T10:00:00.000Z"))
        #expect(CrashIdAudit.milliseconds("2026-13-14T10:00:00.000Z") == nil)
        #expect(CrashIdAudit.milliseconds("2026-11-14T10:0x:00.000Z") == nil)
        #expect(CrashIdAudit.milliseconds("yesterday") == nil)
    }
}
