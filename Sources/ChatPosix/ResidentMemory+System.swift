public import ChatMemory
import Glibc

extension ResidentMemory {
    /// The resident set of this process: the second field of `/proc/self/statm` (pages) times the
    /// page size; -1 when the file cannot be read (no /proc).
    ///
    /// - Complexity: three system calls (open, read, close). - Allocations: none.
    public static let system = ResidentMemory(read: {
        let fd = unsafe open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        // "size resident shared text lib data dt\n": seven decimal numbers, well under 128 bytes.
        return unsafe withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
            let count = unsafe Glibc.read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return -1 }
            var field = 0
            var value = 0
            for i in 0..<count {
                let byte = unsafe buffer[i]
                if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                    if field == 1 { return value * sysconf(Int32(_SC_PAGESIZE)) }
                    field += 1
                    value = 0
                } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                } else {
                    return -1
                }
            }
            return -1
        }
    })
}
