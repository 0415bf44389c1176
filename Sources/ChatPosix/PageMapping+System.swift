public import ChatMemory
import Glibc

extension PageMapping {
    /// Private anonymous mappings without swap reservation (`MAP_NORESERVE`): a ring reserves room
    /// for its full capacity of the longest lines, and only the pages it writes become memory. Pages
    /// are discarded with `MADV_DONTNEED` (anonymous memory: zeroed on the next touch).
    public static let system = unsafe PageMapping(
        map: { length in
            let p = unsafe mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            return unsafe p == MAP_FAILED ? nil : p
        },
        unmap: { p, length in _ = unsafe munmap(p, length) },
        discard: { p, length in _ = unsafe madvise(p, length, MADV_DONTNEED) })
}
