#if canImport(Glibc)
import Glibc
#endif
import CWakeup

/// A POSIX thread that runs one body and is joined: `join()` returns once the body has returned,
/// without polling — JUCE's and miniaudio's rule that whoever starts a thread stops and joins it.
/// The body holds what it captures until it returns; the handle holds nothing after `join`.
///
/// Thread rules: create and `join` from the owning (control) thread; `join` exactly once (a
/// second call does nothing). Never join from the thread's own body.
package final class JoinableThread {
    private var handle: pthread_t?

    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept by the kernel).
    /// Fails only when the system refuses a thread; the caller gets `nil` then.
    package init?(name: String, body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            pulsar_thread_set_name(body.name)
            body.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        handle = thread
    }

    /// True on the thread itself (which must not join itself).
    var isCurrent: Bool {
        guard let thread = handle else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// Waits for the body to return. Idempotent.
    package func join() {
        guard let thread = handle else { return }
        handle = nil
        pthread_join(thread, nil)
    }

    deinit { join() }
}
