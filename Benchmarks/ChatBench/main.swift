// `make bench`: throughput of the data path in a release build, on a generated log in memory.
//
// Usage: ChatBench FILE [--floor PATH-TO-memchr-floor] [--passes N] [--only parser|store|budget] [--step NAME]
// Prints one line per measurement: ns/line, lines/s, MB/s, and the ratio to the memchr floor
// measured in the same run. Figures are the best of N passes (these machines are noisy).

import ChatTestSupport

#if canImport(Glibc)
    import Glibc
#endif

var options = BenchOptions()
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--floor": options.floorTool = arguments.next()
    case "--passes": options.passes = Int(arguments.next() ?? "") ?? options.passes
    case "--only": options.only = arguments.next()
    case "--step": options.step = arguments.next()
    case _ where !a.hasPrefix("-") && options.file.isEmpty: options.file = a
    default:
        print("usage: ChatBench FILE [--floor PATH] [--passes N] [--only parser|store|budget] [--step NAME]")
        exit(64)
    }
}
guard !options.file.isEmpty else {
    print("usage: ChatBench FILE [--floor PATH] [--passes N] [--only parser|store|budget] [--step NAME]")
    exit(64)
}
var bench = try Bench(options: options)
bench.run()
