#if canImport(Glibc)
import Glibc
#endif
import PulsarCore
import PulsarEngine

/// `pulsar play`'s live status line on a terminal: transport, voice 1's content time, animation
/// frame and loop, the voices playing, the device and underruns, redrawn in place on standard
/// output.
///
/// Thread rules: the control thread.
struct StatusLine {
    let device: String
    let durationMs: Double
    private var lastDraw: MonotonicTime?
    private(set) var isShown = false

    /// Whether standard output is a terminal (the status line is only drawn there).
    static var isAvailable: Bool { isatty(1) == 1 }

    init(device: String, durationMs: Double) {
        self.device = device
        self.durationMs = durationMs
    }

    /// Redraws at most ten times a second: voice 1's time, frame and loop, then how many voices
    /// play.
    mutating func update(voice: HapticVoice?, voices: Int, underruns: Int, now: MonotonicTime, paused: Bool) {
        if let lastDraw, now.seconds(since: lastDraw) < 0.1 { return }
        lastDraw = now
        let content = voice?.contentTime(at: now)
        let frame = voice?.animationFrame(at: now)
        let loop = voice?.iteration(at: now)
        var text = paused ? "⏸ " : "▶ "
        text += "\(Self.clock(content ?? 0)) / \(Self.clock(durationMs))"
        if let frame { text += "  frame \(String(printf: "%.1f", frame))" }
        if let loop {
            let count = loop.count == PlaybackTimeline.endless ? "∞" : String(loop.count)
            text += "  loop \(loop.iteration + 1)/\(count)"
        }
        text += "  voices \(voices)  \(device)  underruns \(underruns)"
        text += "   [space] pause  [←/→] seek  [r] restart  [q] quit"
        Console.out("\r" + text + "\u{1B}[K", terminator: "")
        isShown = true
    }

    /// Ends the line so that what follows starts on a fresh one.
    mutating func finish() {
        if isShown { Console.out("") }
        isShown = false
    }

    static func clock(_ ms: Double) -> String {
        let total = max(ms, 0) / 1000
        let minutes = Int(total / 60)
        return String(printf: "%02d:%06.3f", minutes, total - Double(minutes) * 60)
    }
}
