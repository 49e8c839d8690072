#if canImport(Glibc)
import Glibc
#endif

/// On SIGINT, SIGTERM or SIGHUP: removes an output's temporary file (so a cancelled render leaves
/// nothing behind) and puts a terminal switched to raw keys back as it was, then exits with
/// 128 + the signal. What the handler uses is copied into memory it owns, and it calls only
/// async-signal-safe functions (`unlink`, `tcsetattr`, `_exit`).
enum InterruptCleanup {
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var terminal: UnsafeMutablePointer<termios>?

    /// Arms the handler for `temporaryPath`; `disarm()` when the file is gone or renamed.
    static func arm(_ temporaryPath: String) {
        disarm()
        path = strdup(temporaryPath)
        install()
    }

    /// Restores `saved` on standard input if the process is interrupted.
    static func restoreTerminal(_ saved: termios) {
        if terminal == nil { terminal = .allocate(capacity: 1) }
        terminal!.initialize(to: saved)
        install()
    }

    /// Forgets the terminal to restore.
    static func forgetTerminal() {
        terminal?.deallocate()
        terminal = nil
        if path == nil { uninstall() }
    }

    static func disarm() {
        if let p = path {
            path = nil
            free(p)
        }
        if terminal == nil { uninstall() }
    }

    private static func install() {
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                if let p = InterruptCleanup.path { unlink(p) }
                if let t = InterruptCleanup.terminal { tcsetattr(0, TCSANOW, t) }
                _exit(128 + sig)
            }
        }
    }

    private static func uninstall() {
        for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, SIG_DFL) }
    }
}
