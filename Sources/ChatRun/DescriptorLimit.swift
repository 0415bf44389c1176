#if canImport(Glibc)
    import Glibc
#endif

/// The process's descriptor limit (`ulimit -n`), raised for a run that keeps a file per channel and
/// a descriptor per HTTP connection.
public enum DescriptorLimit: Sendable {
    /// The most a run asks for: two descriptors for each of the most files capture keeps open
    /// (`--max-open-files`, at most 65,536).
    public static let wanted = 2 * 65_536

    /// Raises the soft limit to the hard one (at most ``wanted``), as a process that keeps a file
    /// per channel should; returns the soft limit now in force (``wanted`` if higher or unlimited),
    /// or `nil` if it cannot be read.
    public static func raise() -> Int? {
        var limit = rlimit()
        // SAFETY: `limit` and `raised` are rlimit values the calls read or write, nothing else.
        guard unsafe getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let wanted = min(limit.rlim_max, rlim_t(Self.wanted))
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if unsafe setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur < wanted ? Int(limit.rlim_cur) : Int(wanted)
    }
}
