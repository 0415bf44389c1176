/// Where mapped byte storage comes from: address space reserved in one piece whose pages the
/// system supplies on first touch, given back in one piece.
///
/// The store makes no system calls (it is a pure module): an OS module hands it the system's
/// mapping (`PageMapping.system` in ChatPosix). Without one, byte storage is always allocated, and
/// moved when it grows. See ``ByteStorage`` for what mapping buys.
@safe
public struct PageMapping: @unchecked Sendable {  // three C function pointers: no state
    /// Reserves `length` bytes (a multiple of 4,096) of zeroed, readable and writable memory whose
    /// untouched pages cost nothing; `nil` when the system refuses.
    public let map: @convention(c) (Int) -> UnsafeMutableRawPointer?
    /// Gives back a reservation made by ``map``, whole.
    public let unmap: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void
    /// Gives back the pages of `length` bytes (whole pages) inside a reservation, which stays
    /// reserved: the next touch finds zeroed pages. `nil`: the pages stay (``PageRegions`` then keeps
    /// a recycled region's pages until it hands the region out again).
    public let discard: (@convention(c) (UnsafeMutableRawPointer?, Int) -> Void)?

    public init(
        map: @convention(c) (Int) -> UnsafeMutableRawPointer?,
        unmap: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void,
        discard: (@convention(c) (UnsafeMutableRawPointer?, Int) -> Void)? = nil
    ) {
        unsafe self.map = map
        unsafe self.unmap = unmap
        unsafe self.discard = discard
    }
}
