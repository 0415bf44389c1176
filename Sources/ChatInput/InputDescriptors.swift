import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The process-wide count of input files holding a descriptor, and the bound a merge keeps them under.
///
/// Every ``FileSource`` that owns a descriptor counts here while it holds one. A ``MergeReader``
/// keeps its inputs at or under ``limit`` (half the soft descriptor limit, `ulimit -n`, so that the
/// other half stays for sockets, output and everything else): before it opens an input with that many
/// already open, it has one of its own inputs release its descriptor (see
/// ``FileSource/releaseDescriptor()``).
public enum InputDescriptors: Sendable {
    /// Half the soft descriptor limit at the first use, at least 1 (`Int.max / 2` when unlimited).
    public static let limit: Int = {
        var limit = rlimit()
        // SAFETY: `limit` is a local `rlimit` that `getrlimit` fills in.
        guard unsafe getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else {
            return Int.max / 2
        }
        return max(1, Int(limit.rlim_cur / 2))
    }()

    /// Input files holding a descriptor now, in this process.
    public static var held: Int { count.load(ordering: .relaxed) }

    static func opened() { count.add(1, ordering: .relaxed) }
    static func closed() { count.subtract(1, ordering: .relaxed) }
}

private let count = Atomic<Int>(0)
