#if canImport(Glibc)
    import Glibc
#endif

/// How much of each scenario's full size this run does: `STRESS_SCALE`, a fraction greater than 0
/// and at most 1 (default 1, the sizes `make tsan` runs). `make test` runs the scenarios at a
/// quarter of their size beside the process-driving suites, where the full sizes took 258 s of a
/// 1,547 s run on two cores (the ThreadSanitizer part was the run's longest); a race TSan reports
/// needs the two accesses to meet once, not many times, and the full sizes stay one `make tsan` away.
/// A scaled scenario keeps what makes it a check: the eviction, growth or block shapes it exists
/// for (each caller's `atLeast`).
enum StressScale {
    /// `STRESS_SCALE`, read once; a value that is not a fraction in (0, 1] ends the run with status 2.
    static let fraction: Double = {
        guard let text = getenv("STRESS_SCALE").map({ String(cString: $0) }), !text.isEmpty else { return 1 }
        guard let value = Double(text), value > 0, value <= 1 else {
            say(
                "✘ STRESS_SCALE must be a number greater than 0 and at most 1 (a fraction of the full sizes), not \"\(text)\""
            )
            exit(2)
        }
        return value
    }()

    /// `full` at this run's scale, rounded, and never below `minimum`.
    static func of(_ full: Int, atLeast minimum: Int) -> Int {
        max(minimum, Int((Double(full) * fraction).rounded()))
    }

    /// For the run's header: empty at full size, else " at 0.25 of their full size (STRESS_SCALE)".
    static var description: String { fraction == 1 ? "" : " at \(fraction) of their full size (STRESS_SCALE)" }
}
