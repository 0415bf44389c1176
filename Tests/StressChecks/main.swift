// `make tsan`: the cross-thread stress scenarios of ChatStore (rings, windows, growth, the memory
// budget), ChatInput (parse-ahead, prefetch) and ChatGzip (capture's flushes on two threads), built with ThreadSanitizer and run with
// halt_on_error=1, so a race ends the run with TSan's exit status. A scenario's failed checks are
// printed with ✘ as they happen; the run exits 1 if any check failed.
//
// An executable, not a test target: `swift build --product StressChecks` compiles only what these
// scenarios import (ChatStore, ChatInput, ChatGzip, ChatTestSupport and below), not the whole package and
// every test target, which the test bundle would need. `make tsan` builds it optimised, asserts and
// exclusivity checks on (the Makefile says why).
//
// Usage: StressChecks [--list] [NAME...]   (NAME: a scenario, or part of one; none runs them all)

import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Prints `line` and flushes it at once, so that it comes before a TSan report on stderr.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// The scenarios, in the order they run (at the sizes they had as unit tests).
let scenarios: [(name: String, run: () throws -> Void)] = [
    ("store.appenderAndReaders", StoreStress.appenderAndReaders),
    ("store.readersDuringGrowth", StoreGrowthStress.readersDuringGrowth),
    ("store.readersDuringTrims", StoreBudgetStress.readersDuringTrims),
    ("parseAhead.randomShapesAndStops", ParseAheadStress.randomShapesAndStops),
    ("parseAhead.sharedParseRandomShapesAndStops", ParseAheadStress.sharedParseRandomShapesAndStops),
    ("prefetch.sameBytesAndErrorInOrder", PrefetchSourceStress.sameBytesAndErrorInOrder),
    ("prefetch.gzipThroughThread", PrefetchSourceStress.gzipThroughThread),
    ("prefetch.stopsWhenDropped", PrefetchSourceStress.stopsWhenDropped),
    ("flushThread.sameFilesAsOneThread", FlushThreadStress.sameFilesAsOneThread),
]

/// CPU seconds of every thread of this process so far (user and system).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The wall and CPU seconds since `start`, to a tenth.
func elapsed(since start: (wall: ContinuousClock.Instant, cpu: Double)) -> String {
    let wall = (ContinuousClock.now - start.wall) / .milliseconds(100)
    let cpu = Int((cpuSeconds() - start.cpu) * 10)
    return "\(Int(wall) / 10).\(Int(wall) % 10) s, CPU \(cpu / 10).\(cpu % 10) s"
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--list"] {
    for scenario in scenarios { say(scenario.name) }
    exit(0)
}
let chosen = scenarios.filter { s in arguments.isEmpty || arguments.contains { s.name.contains($0) } }
if chosen.isEmpty {
    say("✘ no scenario matches \(arguments) (--list lists them)")
    exit(1)
}
say("── \(chosen.count) stress scenarios\(StressScale.description) ──")
let start = (wall: ContinuousClock.now, cpu: cpuSeconds())
var failedScenarios: [String] = []
for scenario in chosen {
    let began = (wall: ContinuousClock.now, cpu: cpuSeconds())
    let failedBefore = failedChecks.load(ordering: .relaxed)
    do { try scenario.run() } catch is CheckFailure {} catch {
        check(false, "\(scenario.name) threw \(error)")
    }
    let failed = failedChecks.load(ordering: .relaxed) - failedBefore
    if failed == 0 {
        say("✔ \(scenario.name) (\(elapsed(since: began)))")
    } else {
        say("✘ \(scenario.name): \(failed) checks failed (\(elapsed(since: began)))")
        failedScenarios.append(scenario.name)
    }
}
if failedScenarios.isEmpty {
    say("✔ \(chosen.count) stress scenarios passed (\(elapsed(since: start)))")
} else {
    say(
        "✘ \(failedScenarios.count) of \(chosen.count) stress scenarios failed: \(failedScenarios.joined(separator: ", "))"
    )
    exit(1)
}
