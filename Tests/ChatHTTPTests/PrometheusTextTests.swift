import ChatHTTP
import Testing

@Suite struct PrometheusTextTests {
    static func text(_ body: (inout PrometheusText) -> Void) -> String {
        var text = PrometheusText()
        body(&text)
        return String(decoding: text.bytes, as: UTF8.self)
    }

    @Test("a counter and a gauge: HELP, TYPE and one sample each")
    func counterAndGauge() {
        let text = Self.text {
            $0.counter(
                "chatcap_received_lines_total", help: "Lines received.", value: UInt64(18_446_744_073_709_551_615))
            $0.gauge("chatcap_open_files", help: "Files open.", value: 3)
        }
        #expect(
            text == """
                # HELP chatcap_received_lines_total Lines received.
                # TYPE chatcap_received_lines_total counter
                chatcap_received_lines_total 18446744073709551615
                # HELP chatcap_open_files Files open.
                # TYPE chatcap_open_files gauge
                chatcap_open_files 3

                """)
    }

    @Test("HELP escapes backslash and newline; label values also the double quote")
    func escaping() {
        let text = Self.text {
            $0.family("x_total", kind: .counter, help: "a \\ b\nc \"q\"")
            $0.sample("x_total", labels: [("channel", "a\"b\\c\nd")], value: UInt64(1))
        }
        #expect(
            text == """
                # HELP x_total a \\\\ b\\nc "q"
                # TYPE x_total counter
                x_total{channel="a\\"b\\\\c\\nd"} 1

                """)
    }

    @Test("a histogram: cumulative buckets, +Inf, _sum and _count")
    func histogram() {
        let text = Self.text {
            $0.histogram("lag_seconds", help: "Lag.", bounds: [0.1, 1, 2.5], counts: [3, 0, 2, 1], sum: 7.25)
        }
        #expect(
            text == """
                # HELP lag_seconds Lag.
                # TYPE lag_seconds histogram
                lag_seconds_bucket{le="0.1"} 3
                lag_seconds_bucket{le="1"} 3
                lag_seconds_bucket{le="2.5"} 5
                lag_seconds_bucket{le="+Inf"} 6
                lag_seconds_sum 7.25
                lag_seconds_count 6

                """)
    }

    @Test(
        "floats as the format reads them",
        arguments: [
            (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"), (Double.nan, "NaN"), (0, "0"),
            (1_795_700_127.186, "1795700127.186"),
            (0.25, "0.25"), (-3, "-3"), (1e20, "1e+20"),
        ])
    func format(value: Double, text: String) {
        #expect(PrometheusText.format(value) == text)
    }
}
