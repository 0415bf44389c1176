import ChatLoad
import ChatStore
import Testing
import TwitchSession

/// load's status line fits the terminal as capture's does, what matters most kept.
@Suite struct LoadStatusTests {
    static func snapshot(down: Bool) -> LoadStatus.Snapshot {
        var counters = LoadCounters()
        counters.files = 1_176
        counters.openFiles = 7
        counters.rowsAcknowledged = 12_345_678
        counters.delaySumMs = 1_200
        counters.delayCount = 1
        counters.rereads = 3
        counters.unparsedLines = 12
        counters.damagedFiles = 2
        counters.clickhouseDown = down
        counters.pendingRows = 50_000
        var status = LoadStatus(startedAt: Moment(monotonicMs: 0, wall: Timestamp(milliseconds: 0)))
        return status.snapshot(counters, now: Moment(monotonicMs: 61_000, wall: Timestamp(milliseconds: 61_000)))
    }

    @Test("every field when the width allows, in order")
    func wide() {
        #expect(
            Self.snapshot(down: false).line(width: 200)
                == "12345678 rows  202388.2 rows/s  delay 1200ms  1176 files (7 open)  re-read 3  unparsed 12  "
                + "damaged files 2")
    }

    @Test("in 79 columns: no line is longer, and ClickHouse being down is kept, after the rows")
    func fitsEighty() {
        for down in [false, true] {
            let line = Self.snapshot(down: down).line(width: 79)
            #expect(line.count <= 79)
            #expect(line.hasPrefix("12345678 rows  "))
            #expect(line.contains("ClickHouse DOWN for 61s (50000 rows waiting)") == down)
        }
    }

    @Test(
        "the end-of-run sentence: the totals, capture's records when they have a table, then each problem that happened"
    )
    func summary() {
        var counters = LoadCounters()
        counters.rowsAcknowledged = 10
        counters.recordsAcknowledged = 2
        counters.batches = 3
        counters.bodyBytesAcknowledged = 400
        counters.rowBytesAcknowledged = 1_000
        counters.files = 4
        #expect(
            counters.summary(withRecords: true)
                == "loaded 10 rows (2 of them capture records) in 3 INSERTs (400 bytes compressed, 1000 as rows) from 4 files"
        )
        counters.failedAttempts = 1
        counters.damagedFiles = 1
        #expect(
            counters.summary(withRecords: false)
                == "loaded 10 rows in 3 INSERTs (400 bytes compressed, 1000 as rows) from 4 files, 1 failed attempts "
                + "retried, 1 damaged files loaded up to the damage")
    }
}
