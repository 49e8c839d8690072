#if canImport(Glibc)
import Glibc
#endif

/// Printing for the command line: results to stdout, diagnostics to stderr.
enum Console {
    static func out(_ line: String, terminator: String = "\n") {
        print(line, terminator: terminator)
    }

    static func error(_ line: String) {
        writeError(line + "\n")
    }

    /// Writes text to file descriptor 2 unbuffered.
    static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Whether stderr is a terminal (progress bars only go there).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}

/// A one-line progress bar on stderr, redrawn in place, shown only on a terminal.
struct ProgressBar {
    private let enabled: Bool
    private var lastPercent = -1
    private let label: String

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    mutating func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int(fraction * 100)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        Console.writeError("\r\(label) [\(bar)] \(percent)%")
    }

    func finish() {
        guard enabled, lastPercent >= 0 else { return }
        Console.writeError("\r\u{1B}[2K")
    }
}
