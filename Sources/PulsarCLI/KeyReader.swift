#if canImport(Glibc)
import Glibc
#endif

/// The keys `pulsar play` answers on a terminal, read without waiting for Enter.
enum PlayKey: Equatable {
    case pauseResume, seekBack, seekForward, restart, quit
}

/// Puts the terminal on standard input into non-canonical, no-echo mode for its lifetime and
/// reads keys without blocking. Inert when standard input is not a terminal.
///
/// Thread rules: one thread (the control thread); `restore()` is also safe from a signal path
/// that runs on it.
final class KeyReader {
    private var saved = termios()
    private(set) var isActive = false
    private var pending: [UInt8] = []

    init() {
        guard isatty(0) == 1, tcgetattr(0, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        isActive = tcsetattr(0, TCSANOW, &raw) == 0
        if isActive { InterruptCleanup.restoreTerminal(saved) }
    }

    deinit {
        restore()
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard isActive else { return }
        var t = saved
        tcsetattr(0, TCSANOW, &t)
        isActive = false
        InterruptCleanup.forgetTerminal()
    }

    /// The keys typed since the last call: space, ← / →, r, q (others are ignored).
    func keys() -> [PlayKey] {
        guard isActive else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(0, &buffer, buffer.count)
        if n > 0 { pending += buffer[0..<n] }
        var keys: [PlayKey] = []
        while !pending.isEmpty {
            if pending[0] == 0x1B {
                guard pending.count >= 3 else {
                    if pending.count == 1 && n <= 0 { pending.removeAll() }  // a lone Escape
                    break
                }
                if pending[1] == UInt8(ascii: "["), pending[2] == UInt8(ascii: "D") { keys.append(.seekBack) }
                if pending[1] == UInt8(ascii: "["), pending[2] == UInt8(ascii: "C") { keys.append(.seekForward) }
                pending.removeFirst(3)
                continue
            }
            switch pending.removeFirst() {
            case UInt8(ascii: " "): keys.append(.pauseResume)
            case UInt8(ascii: "r"), UInt8(ascii: "R"): keys.append(.restart)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
            default: break
            }
        }
        return keys
    }
}
