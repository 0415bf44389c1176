#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX thread running one closure, joined at most once.
@safe
package final class PosixThread {
    private var handle = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        // SAFETY: one retain travels to the new thread as an opaque pointer; the thread takes it
        // back exactly once (`takeRetainedValue`) and runs the body.
        let box = unsafe Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = unsafe pthread_create(
            &handle, nil,
            { raw in
                let box = unsafe Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Waits for the thread to end.
    package func join() {
        guard !joined else { return }
        joined = true
        _ = pthread_join(handle, nil)
    }

    /// Lets the thread run on without being joined (it ends with the process).
    package func detach() {
        guard !joined else { return }
        joined = true
        _ = pthread_detach(handle)
    }
}
