/// Where the memory budget reads the process's resident memory.
///
/// The store makes no system calls (it is a pure module): an OS module hands it the system's reading
/// (`ResidentMemory.system` in ChatPosix), as it hands it ``PageMapping``. See ``MemoryBudget`` for
/// when it is read.
@safe
public struct ResidentMemory: @unchecked Sendable {  // one C function pointer: no state
    /// The process's resident memory in bytes now, or a negative number when it cannot be read.
    public let read: @convention(c) () -> Int

    public init(read: @convention(c) () -> Int) {
        self.read = read
    }
}
