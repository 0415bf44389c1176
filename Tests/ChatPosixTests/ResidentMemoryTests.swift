import ChatMemory
import ChatPosix
import Glibc
import Testing

@Suite struct ResidentMemoryTests {
    /// VmRSS of /proc/self/status, in bytes: the kernel's other account of the same figure.
    static func statusRSS() -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:") {
                return text.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
            }
        }
        return nil
    }

    @Test("the system reading is this process's resident set: it agrees with VmRSS and grows by what is touched")
    func system() throws {
        let before = ResidentMemory.system.read()
        let status = try #require(Self.statusRSS())
        #expect(before > 0)
        // Two readings a moment apart (other tests run beside this one): within 32 MiB.
        #expect(abs(before - status) < 32 << 20, "statm \(before), status \(status)")
        // 128 MiB mapped and written: resident grows by about that.
        let length = 128 << 20
        let p = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(p != MAP_FAILED)
        defer { munmap(p, length) }
        memset(p, 1, length)
        let after = ResidentMemory.system.read()
        #expect(after - before > 96 << 20, "before \(before), after \(after)")
    }
}
