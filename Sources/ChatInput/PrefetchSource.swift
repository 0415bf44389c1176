import ChatPosix

/// Reads another ``ByteSource`` on a thread of its own, a few chunks ahead of the caller: a gzip
/// input is inflated on one core while the lines it yields are parsed and written on another.
///
/// ```
///  reader thread                                   caller (the merge lane)
///  inner.read ──▶ chunk k ──hand over──▶ [ chunks, in order ] ──copy──▶ caller's buffer
///        ▲                                                        │
///        └───────────────────── released chunks ◀─────────────────┘
/// ```
/// The bytes, the end and any error arrive in the inner source's order: its data, then at most one
/// error (damage stays reported after the bytes decoded before it), then the end. Only whole chunks
/// cross the threads (one hand-off per `chunkBytes`, not per line); each is copied once more, into
/// the caller's buffer, which costs far less than inflating it.
///
/// For inputs whose reads end (regular files): closing waits for the reader thread's current read.
/// Descriptors cannot be given back while the thread reads ahead (``releaseDescriptor()`` declines).
///
/// Thread safety: ``read(into:)`` and `deinit` are for one caller thread; the inner source is
/// touched only by the reader thread from `init` on.
@safe
public final class PrefetchSource: ByteSource {
    public let name: String
    private let shared: Shared
    private let thread: PosixThread
    /// The chunk being read (valid while `holding`), how far, and what it holds.
    private var holding = false
    private var current = 0
    private var offset = 0
    private var slot = Shared.Slot.end(nil)
    private var ended = false

    /// Starts reading `inner` ahead, into `chunkCount` chunks of `chunkBytes`.
    ///
    /// - Allocations: the chunks, the lock and the thread, once; reading allocates nothing.
    public init(wrapping inner: any ByteSource, chunkBytes: Int = 256 * 1024, chunkCount: Int = 4) {
        precondition(chunkBytes > 0 && chunkCount > 0, "chunks must hold something")
        name = inner.name
        let shared = Shared(chunkBytes: chunkBytes, chunkCount: chunkCount)
        self.shared = shared
        let box = InnerBox(inner)
        thread = PosixThread { unsafe shared.produce(from: box) }
    }

    deinit {
        shared.stop()
        thread.join()
    }

    /// Whether the reader thread may still use the inner source's descriptor.
    public var holdsDescriptor: Bool { !shared.isProducerDone }

    /// Writes up to `buffer.count` bytes the reader thread read ahead; waits for them when none are.
    ///
    /// - Throws: the inner source's error, once, after the bytes it gave before it; later calls return 0.
    /// - Complexity: O(bytes copied). - Allocations: none.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        precondition(buffer.count > 0, "read(into:) needs a non-empty buffer")
        while !ended {
            if !holding {
                guard let taken = shared.take() else {
                    ended = true  // never before an end
                    break
                }
                (current, slot) = taken
                offset = 0
                holding = true
            }
            switch slot {
            case .data(let count):
                let n = min(count - offset, buffer.count)
                // SAFETY: chunk `current` holds `count` bytes the reader wrote before handing it over
                // (the lock orders them), and it is not written again until released below.
                unsafe buffer.baseAddress!.copyMemory(from: shared.chunk(current) + offset, byteCount: n)
                offset += n
                if offset == count {
                    holding = false
                    shared.release()
                }
                return n
            case .end(let error):
                ended = true
                holding = false
                shared.release()
                if let error { throw error }
            }
        }
        return 0
    }

    /// The inner source, handed to the reader thread once (it is not `Sendable`; only that thread
    /// touches it from then on).
    private final class InnerBox: @unchecked Sendable {
        var source: any ByteSource
        init(_ source: any ByteSource) { self.source = source }
    }

    /// The chunks and their hand-off between the two threads (``HandOffRing``): chunk `i` and what
    /// it holds (`slots[i]`) belong to whichever thread holds index `i`.
    @safe
    private final class Shared: @unchecked Sendable {  // a chunk and its slot by the thread that holds its index
        enum Slot {
            case data(Int)
            case end(InputError?)
        }

        let chunkBytes: Int
        private let chunks: UnsafeMutableRawPointer
        /// What each chunk holds (stable storage: the two threads write and read different slots).
        private let slots: UnsafeMutablePointer<Slot>
        private let ring: HandOffRing

        init(chunkBytes: Int, chunkCount: Int) {
            self.chunkBytes = chunkBytes
            unsafe chunks = .allocate(byteCount: chunkBytes * chunkCount, alignment: 64)
            unsafe slots = .allocate(capacity: chunkCount)
            // SAFETY: `slots` holds `chunkCount` uninitialised slots.
            unsafe slots.initialize(repeating: .end(nil), count: chunkCount)
            ring = HandOffRing(count: chunkCount)
        }

        deinit {
            // Neither thread uses the chunks any more (the reader was joined).
            unsafe chunks.deallocate()
            // SAFETY: initialised in init; nobody else holds them.
            unsafe slots.deinitialize(count: ring.count)
            unsafe slots.deallocate()
        }

        var isProducerDone: Bool { ring.isFinished }

        @unsafe
        func chunk(_ index: Int) -> UnsafeMutableRawPointer { unsafe chunks + index * chunkBytes }

        /// The reader thread: one inner read per free chunk, handed over in order, until the end.
        @unsafe
        func produce(from box: InnerBox) {
            defer { ring.finish() }
            while let index = ring.nextFree() {
                let slot: Slot
                do {
                    // SAFETY: chunk `index` is free: the caller gave it back (or never had it).
                    let n = try unsafe box.source.read(
                        into: UnsafeMutableRawBufferPointer(start: chunk(index), count: chunkBytes))
                    slot = n > 0 ? .data(n) : .end(nil)
                } catch {
                    slot = .end(error)
                }
                // SAFETY: `index < ring.count`; this thread holds it until the hand-over below.
                unsafe slots[index] = slot
                ring.handOver()
                if case .end = slot { return }
            }
        }

        /// The caller's next chunk (waits for it): its index and what it holds; `nil` only after the
        /// chunk that holds the end (the reader hands one over before it finishes, unless stopped).
        func take() -> (Int, Slot)? {
            guard let index = ring.take()?.index else { return nil }
            // SAFETY: `index < ring.count`; this thread holds it until `release()`.
            return (index, unsafe slots[index])
        }

        /// The caller is done with its chunk: the reader may fill it again.
        func release() { ring.giveBack() }

        /// The caller stops reading: the reader ends after its current read.
        func stop() { ring.stop() }
    }
}

@available(*, unavailable)
extension PrefetchSource: Sendable {}
