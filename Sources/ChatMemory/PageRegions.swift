/// Fixed-size regions of address space, carved in order from large reservations of a
/// ``PageMapping``: where a store's small rings keep their bytes, so that a ring's bytes grow in
/// place inside its region instead of moving from heap block to heap block (issue #39).
///
/// ```
///  reservation:  [ region 0 | region 1 | … | region k-1 | not yet taken … ]   regionsPerReservation regions
///  region:       [ bytes the ring has written (pages touched) | untouched: no pages ]
/// ```
/// A region's pages cost memory only once written. A holder done with its region while the store
/// lives (a ring whose bytes outgrew it) hands it back with ``recycle(_:)``: its pages are discarded
/// and the next ``take()`` hands it out again. The reservations are unmapped whole when this object
/// goes, after every ring that holds it: a ring's `deinit` gives nothing back (with 10,000 channels,
/// a `munmap` each at the end of a replay cost more than the regions saved).
/// ``regionBytes`` 0 hands out no regions: the mapping only (``pages``), for a ring of its own.
///
/// Threads: ``take()`` and ``recycle(_:)`` are the owner's (the store's ingest loop).
@safe
public final class PageRegions: @unchecked Sendable {  // `take` and `recycle` are owner-only
    /// The system's mapping, which the reservations come from.
    public let pages: PageMapping
    /// Bytes of one region (a multiple of 4,096), or 0: no regions.
    public let regionBytes: Int
    /// Regions mapped at a time.
    public let regionsPerReservation: Int
    /// The next region to carve, and how many of its reservation are left from it (0: none).
    private var next: UnsafeMutableRawPointer? = nil
    private var left = 0
    /// Every reservation mapped, to unmap at the end.
    private var reservations: [UnsafeMutableRawPointer] = unsafe []
    /// Regions handed back, their pages discarded: handed out first.
    private var recycled: [UnsafeMutableRawPointer] = unsafe []

    /// - Parameters:
    ///   - regionBytes: bytes of one region, a multiple of 4,096; 0: ``take()`` hands out none.
    ///   - regionsPerReservation: regions mapped at a time (one system call each).
    public init(pages: PageMapping, regionBytes: Int, regionsPerReservation: Int = 4_096) {
        precondition(regionBytes >= 0 && regionBytes % 4_096 == 0, "a region is whole pages")
        precondition(regionsPerReservation > 0, "a reservation holds a region")
        self.pages = pages
        self.regionBytes = regionBytes
        self.regionsPerReservation = regionsPerReservation
    }

    deinit {
        for i in unsafe reservations.indices {
            unsafe pages.unmap(reservations[i], regionBytes * regionsPerReservation)
        }
    }

    /// A region of ``regionBytes`` (page-aligned, zeroed), or `nil` when there are no regions or the
    /// system refuses a reservation. It stays valid as long as this object. Owner thread only.
    ///
    /// - Complexity: O(1); one system call per ``regionsPerReservation`` regions.
    /// - Allocations: none but, now and then, a longer list of reservations (address space only).
    public func take() -> UnsafeMutableRawPointer? {
        guard regionBytes > 0 else { return nil }
        if let region = unsafe recycled.popLast() { return unsafe region }
        if left == 0 {
            guard let reservation = unsafe pages.map(regionBytes * regionsPerReservation) else { return nil }
            unsafe reservations.append(reservation)
            unsafe next = reservation
            left = regionsPerReservation
        }
        let region = unsafe next!
        left -= 1
        // SAFETY: the reservation holds `left` more regions after this one (none past its end is used).
        unsafe next = left > 0 ? region + regionBytes : nil
        return unsafe region
    }

    /// Takes back a region ``take()`` handed out and nothing uses any more: its pages are discarded
    /// (kept when ``PageMapping/discard`` is `nil`) and the next ``take()`` hands it out. Owner thread.
    ///
    /// - Complexity: O(1) and one system call. - Allocations: now and then, a longer list.
    @unsafe
    public func recycle(_ region: UnsafeMutableRawPointer) {
        if let discard = unsafe pages.discard { unsafe discard(region, regionBytes) }
        unsafe recycled.append(region)
    }
}
