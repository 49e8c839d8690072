import Glibc
import PulsarCore

/// Non-finite samples (NaN, +∞, −∞) in decoded audio: a float file can hold them, and nothing
/// after the decoder can do anything right with one — a down-mix or the resampler spreads it, the
/// mix limiter passes it, an integer converter has no value for it. `AudioStream` turns each into
/// 0 as it decodes (`zero`) and reports how many its file held (`note`); a command prints one
/// warning per file afterwards (`drain`).
///
/// Thread rules: `zero` is plain arithmetic, callable anywhere. `note` and `drain` take a lock:
/// any thread but the real-time one (decoding happens at preload and offline, never there).
public enum NonFiniteSamples {
    /// How many non-finite samples one audio file held.
    public struct Report: Sendable, Equatable {
        public var source: String
        public var count: Int64
    }

    private static let lock = Lock()
    nonisolated(unsafe) private static var kept: [Report] = []
    /// Files kept at most between drains (a long-running caller that never drains, such as a
    /// fuzzer, stays bounded); later files are not reported.
    private static let maximumFiles = 100

    /// Sets every non-finite sample of `samples[0..<count]` to 0; returns how many there were.
    /// Allocates nothing.
    @inline(__always)
    static func zero(_ samples: UnsafeMutablePointer<Float>, count: Int) -> Int {
        var found = 0
        for i in 0..<count where !samples[i].isFinite {
            samples[i] = 0
            found += 1
        }
        return found
    }

    /// Records that `source` has held `total` non-finite samples so far. Several streams of one
    /// file report the same totals, so a file keeps the largest, not the sum.
    static func note(_ source: String, total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        if let i = kept.firstIndex(where: { $0.source == source }) {
            kept[i].count = max(kept[i].count, total)
        } else if kept.count < maximumFiles {
            kept.append(Report(source: source, count: total))
        }
    }

    /// The files that held non-finite samples since the last call, in the order they were met,
    /// each once with its count; clears them.
    public static func drain() -> [Report] {
        lock.lock()
        defer { lock.unlock() }
        let all = kept
        kept = []
        return all
    }
}
