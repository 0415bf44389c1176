import ChatHTTP
import ChatStore
import Testing
import TwitchSession

@Suite struct HTTPListenerFiguresTests {
    @Test("the end-of-run line names every count, with thousands grouped")
    func summary() {
        let figures = HTTPListenerFigures(
            limit: 512, limitPerAddress: 256, open: 3, accepted: 1_024, shedOverLimit: 4_488,
            shedOverAddressLimit: 12, acceptFailures: 1)
        #expect(figures.shed == 4_500)
        #expect(
            figures.summary
                == "1,024 served, 4,500 connections shed (4,488 over the limit of 512 open at once, 12 over 256 from "
                + "one address), 1 accepts failed for want of descriptors")
        #expect(HTTPListenerFigures(limit: 1, limitPerAddress: 1).summary.hasPrefix("0 served, 0 connections shed"))
    }

    @Test("/metrics has the listener's families only when the snapshot carries its figures")
    func exposition() {
        var snapshot = IngestSnapshot(command: "capture", version: "test", startedAt: Timestamp(milliseconds: 0))
        let without = String(decoding: snapshot.exposition, as: UTF8.self)
        #expect(!without.contains("chatcap_http_"))
        snapshot.listener = HTTPListenerFigures(
            limit: 64, limitPerAddress: 32, open: 5, accepted: 70, shedOverLimit: 4_936, shedOverAddressLimit: 2,
            acceptFailures: 3)
        let with = String(decoding: snapshot.exposition, as: UTF8.self)
        for line in [
            "# TYPE chatcap_http_connections gauge", "chatcap_http_connections 5", "chatcap_http_connection_limit 64",
            "# TYPE chatcap_http_connections_accepted_total counter", "chatcap_http_connections_accepted_total 70",
            "# TYPE chatcap_http_connections_refused_total counter",
            #"chatcap_http_connections_refused_total{reason="connection_limit"} 4936"#,
            #"chatcap_http_connections_refused_total{reason="address_limit"} 2"#,
            #"chatcap_http_connections_refused_total{reason="descriptors"} 3"#,
        ] {
            #expect(with.split(separator: "\n").contains(Substring(line)), "\(line)")
        }
    }
}
