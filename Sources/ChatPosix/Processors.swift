import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The processors this process may run on.
public enum Processors: Sendable {
    /// How many CPUs this process may run on: its affinity mask (`taskset`, a cgroup's cpuset), else
    /// the CPUs online; at least 1.
    ///
    /// - Complexity: O(1): one `sched_getaffinity`. - Allocations: none.
    public static func available() -> Int {
        let count = Int(clinux_affinity_cpu_count())
        if count > 0 { return count }
        return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
