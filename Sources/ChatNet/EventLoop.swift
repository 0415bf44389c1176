import CLinux
import Glibc

/// A small level-triggered `epoll` wrapper: descriptors with read/write interest, a wait with a
/// timeout in milliseconds, and a ``Waker`` another thread can use to end a wait early.
///
/// The loop owns its epoll descriptor and its event buffer (allocated once, `maxEvents` entries),
/// and holds the waker's eventfd registered for reading. Registered descriptors stay owned by their
/// connections; remove one before closing it.
///
/// Confined to one thread (the ingest thread); only ``waker`` crosses threads.
///
/// `@safe`: `epoll_event` counts as unsafe only because its `data` union has a pointer member; the
/// loop stores descriptor numbers in `data.fd` and never reads the pointer.
@safe
public final class EventLoop {
    /// What a registered descriptor waits for.
    public struct Interest: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let readable = Interest(rawValue: 1)
        public static let writable = Interest(rawValue: 2)
    }

    /// What a descriptor is ready for, as reported by one wait.
    public struct Readiness: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: 1)
        public static let writable = Readiness(rawValue: 2)
        /// The peer hung up (`EPOLLHUP`/`EPOLLRDHUP`); a read will see the end of the stream.
        public static let hangup = Readiness(rawValue: 4)
        /// An error is pending (`EPOLLERR`); a read or write will report it.
        public static let error = Readiness(rawValue: 8)
    }

    /// How one ``wait(timeoutMs:_:)`` ended.
    public struct Wakeup: Sendable, Equatable {
        /// Descriptors handed to the body.
        public var readyCount: Int
        /// Whether ``Waker/wake()`` was called since the last wait.
        public var woken: Bool

        public init(readyCount: Int, woken: Bool) {
            self.readyCount = readyCount
            self.woken = woken
        }
    }

    private let epollDescriptor: Int32
    private var events: [epoll_event]
    /// Wakes a wait from any thread.
    public let waker: Waker

    /// - Parameter maxEvents: how many ready descriptors one wait can report (more wait for the next).
    /// - Throws: ``SocketError`` when the epoll or eventfd descriptor cannot be created.
    /// - Allocations: the event buffer, once.
    public init(maxEvents: Int = 64) throws(SocketError) {
        precondition(maxEvents > 0, "maxEvents must be positive")
        let descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw SocketError.lastError("epoll_create1") }
        epollDescriptor = descriptor
        // SAFETY: zeroed plain data; see the type's note on `epoll_event`.
        unsafe events = [epoll_event](repeating: epoll_event(), count: maxEvents)
        do {
            waker = try Waker()
        } catch {
            close(descriptor)
            throw error
        }
        try control(EPOLL_CTL_ADD, waker.fileDescriptor, Self.mask(.readable), "register the waker")
    }

    deinit {
        close(epollDescriptor)
    }

    /// Starts watching `descriptor`.
    ///
    /// - Complexity: one `epoll_ctl`. - Allocations: none.
    public func register(_ descriptor: Int32, interest: Interest) throws(SocketError) {
        try control(EPOLL_CTL_ADD, descriptor, Self.mask(interest), "register descriptor \(descriptor)")
    }

    /// Changes what `descriptor` waits for (e.g. adds `.writable` while bytes wait to be sent).
    ///
    /// - Complexity: one `epoll_ctl`. - Allocations: none.
    public func modify(_ descriptor: Int32, interest: Interest) throws(SocketError) {
        try control(EPOLL_CTL_MOD, descriptor, Self.mask(interest), "modify descriptor \(descriptor)")
    }

    /// Stops watching `descriptor`. Call before closing it.
    ///
    /// - Complexity: one `epoll_ctl`. - Allocations: none.
    public func remove(_ descriptor: Int32) throws(SocketError) {
        try control(EPOLL_CTL_DEL, descriptor, 0, "remove descriptor \(descriptor)")
    }

    /// Waits until a descriptor is ready, the waker is woken, or `timeoutMs` passes (`-1`: no limit;
    /// `0`: just poll), then calls `body` with each ready descriptor. A signal interrupting the wait
    /// ends it early with nothing ready.
    ///
    /// - Complexity: one `epoll_wait`, plus `body` per ready descriptor. - Allocations: none.
    @discardableResult
    public func wait(timeoutMs: Int32, _ body: (_ descriptor: Int32, _ readiness: Readiness) -> Void)
        throws(SocketError)
        -> Wakeup
    {
        // SAFETY: reading the array's count touches no `epoll_event`.
        let capacity = Int32(unsafe events.count)
        let epoll = epollDescriptor
        // SAFETY: the buffer has `capacity` entries and stays alive during the call; the kernel
        // writes at most `capacity` of them.
        let count = unsafe events.withUnsafeMutableBufferPointer { buffer in
            unsafe epoll_wait(epoll, buffer.baseAddress, capacity, timeoutMs)
        }
        if count < 0 {
            if errno == EINTR { return Wakeup(readyCount: 0, woken: false) }
            throw SocketError.lastError("epoll_wait")
        }
        var wakeup = Wakeup(readyCount: 0, woken: false)
        for index in 0..<Int(count) {
            // SAFETY: `index < count <= capacity`; the entry was written by `epoll_wait` with the
            // descriptor number in `data.fd`, as every registration stores it.
            let (descriptor, mask) = unsafe (events[index].data.fd, events[index].events)
            if descriptor == waker.fileDescriptor {
                waker.drain()
                wakeup.woken = true
                continue
            }
            body(descriptor, Self.readiness(mask))
            wakeup.readyCount += 1
        }
        return wakeup
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ mask: UInt32, _ what: String) throws(SocketError) {
        // SAFETY: plain data; the descriptor number goes in `data.fd`, the pointer member is unused.
        var event = unsafe epoll_event()
        unsafe event.events = mask
        unsafe event.data.fd = descriptor
        // SAFETY: `event` is a valid local for the duration of the call; the kernel copies it.
        guard unsafe epoll_ctl(epollDescriptor, operation, descriptor, &event) == 0 else {
            throw SocketError.lastError(what)
        }
    }

    private static func mask(_ interest: Interest) -> UInt32 {
        var mask = EPOLLRDHUP.rawValue
        if interest.contains(.readable) { mask |= EPOLLIN.rawValue }
        if interest.contains(.writable) { mask |= EPOLLOUT.rawValue }
        return mask
    }

    private static func readiness(_ mask: UInt32) -> Readiness {
        var readiness: Readiness = []
        if mask & EPOLLIN.rawValue != 0 { readiness.insert(.readable) }
        if mask & EPOLLOUT.rawValue != 0 { readiness.insert(.writable) }
        if mask & (EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 { readiness.insert(.hangup) }
        if mask & EPOLLERR.rawValue != 0 { readiness.insert(.error) }
        return readiness
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}

/// Ends an ``EventLoop`` wait from any thread (an eventfd the loop watches).
///
/// Owns the eventfd and closes it when the last reference goes, so a thread that still holds the
/// waker never writes to a reused descriptor number.
public final class Waker: Sendable {
    /// The eventfd.
    public let fileDescriptor: Int32

    init() throws(SocketError) {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else { throw SocketError.lastError("eventfd") }
        fileDescriptor = descriptor
    }

    deinit {
        close(fileDescriptor)
    }

    /// Makes the loop's current or next wait return. Safe from any thread; never blocks.
    ///
    /// - Complexity: one `write(2)`. - Allocations: none.
    public func wake() {
        var one: UInt64 = 1
        // SAFETY: writes the 8 bytes of a local; a full counter (EAGAIN) already means "woken".
        _ = unsafe write(fileDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Resets the counter after a wakeup.
    func drain() {
        var value: UInt64 = 0
        // SAFETY: reads at most 8 bytes into a local.
        _ = unsafe read(fileDescriptor, &value, MemoryLayout<UInt64>.size)
    }
}
