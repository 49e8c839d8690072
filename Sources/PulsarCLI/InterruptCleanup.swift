#if canImport(Glibc)
import Glibc
#endif

/// Removes an output's temporary file when the process is interrupted (SIGINT, SIGTERM, SIGHUP),
/// so a cancelled render leaves nothing behind. The path is copied into memory the handler owns,
/// and the handler calls only async-signal-safe functions (`unlink`, `_exit`).
enum InterruptCleanup {
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?

    /// Arms the handler for `temporaryPath`; `disarm()` when the file is gone or renamed.
    static func arm(_ temporaryPath: String) {
        disarm()
        path = strdup(temporaryPath)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                if let p = InterruptCleanup.path { unlink(p) }
                _exit(128 + sig)
            }
        }
    }

    static func disarm() {
        for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, SIG_DFL) }
        if let p = path {
            path = nil
            free(p)
        }
    }
}
