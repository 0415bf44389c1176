import ArgumentParser
import ChatMemory
import ChatPosix
import ChatStore

/// `--memory-budget`: the bound on the process's resident memory, kept by trimming the channel rings
/// (tail, watch, and capture with `--http-port`).
struct MemoryBudgetOptions: ParsableArguments {
    /// The smallest budget (the process and the channels' floors may hold more: they are kept whatever
    /// the budget).
    static let minimum = 1 << 20
    /// The largest budget (more than any machine this runs on holds).
    static let maximum = 1 << 40

    @Option(
        name: .customLong("memory-budget"), parsing: .unconditional,
        help: ArgumentHelp(
            "Bound on the process's resident memory, kept by trimming the channel rings (bytes, or with "
                + "K, M, G: 512M, 2G; default 1G). It counts what the rings reserve plus the rest of the "
                + "process (read from /proc/self/statm). When it is reached, the oldest entries of the least "
                + "recently active channels are released, never the last 150 of a channel nor a line the "
                + "moderation look-ahead still holds; what was trimmed is counted in the summary on stderr "
                + "and on /metrics, and a budget the channels' floors and the process alone exceed is said "
                + "there. No line of the output is lost. capture keeps rings only for --http-port: there it "
                + "needs --http-port.",
            valueName: "size"),
        transform: { try MemoryBudgetOptions.parse($0) })
    var memoryBudget: Int?

    /// The budget in force: the one given, else the default, counting the process's resident memory.
    func make() -> MemoryBudget {
        MemoryBudget(limit: memoryBudget ?? MemoryBudget.defaultLimit, resident: .system)
    }

    /// `1073741824`, `1024M`, `1G` (K, M, G are powers of 1,024; an optional trailing `B` or `iB`).
    static func parse(_ text: String) throws -> Int {
        var digits = Substring(text.uppercased())
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        var shift = 0
        switch digits.last {
        case "K": shift = 10
        case "M": shift = 20
        case "G": shift = 30
        default: break
        }
        if shift > 0 { digits = digits.dropLast() }
        guard let n = Int(digits), n > 0, n <= maximum >> shift, n << shift >= minimum else {
            throw ValidationError("must be a size from 1M to 1024G: bytes, or with K, M or G such as 512M")
        }
        return n << shift
    }
}
