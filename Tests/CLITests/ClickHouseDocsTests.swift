import ChatTestSupport
import Foundation
import Testing

/// The ClickHouse docs on ClickHouse 18.16 in `make test`: Scripts/clickhouse_docs.py --fast (about 10 s)
/// runs docs/clickhouse.sql, its documented migration, `load` of a capture with gaps and backfilled
/// lines, and every `sql` block of the docs on a server started by Scripts/clickhouse_test_server.sh.
/// `make clickhouse-docs` runs the same and the current release (chdb-core), which must answer alike.
@Suite(.timeLimit(.minutes(20))) struct ClickHouseDocsTests {
    @Test(
        "every sql block of the docs, the schema and its migration run on ClickHouse 18.16 (clickhouse_docs.py --fast)")
    func docsOn1816() throws {
        let run = try CLI.shell("python3 Scripts/clickhouse_docs.py \(CLI.shellBinary) --fast")
        #expect(run.status == 0, "\(run.text)\n\(run.stderr)")
        #expect(run.text.contains("all checks hold"), "\(run.text)")
        #expect(!run.text.contains("FAIL"), "\(run.text)")
        // It did run queries (a docs page without sql blocks, or a parse that finds none, would pass empty).
        let ran = run.text.split(separator: "\n").count {
            $0.hasPrefix("ok    ClickHouse 18.16") && $0.contains("docs query")
        }
        #expect(ran >= 8, "\(run.text)")
    }
}
