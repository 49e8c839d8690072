#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pattern sampled by position rather than played in time — PulsarLottie's `.realtime` mode,
/// where an app (a display tick, a slider, a scrubbed animation) moves the content position and
/// a long-running oscillator follows it. docs/signal-model.md §11:
///
/// - The carrier is one oscillator whose amplitude is the amplitude curve and whose frequency is
///   the frequency curve (through the profile), both read at the current content position `c`;
///   silent where `c` is outside the amplitude curve's span. Its phase advances by the frequency
///   at each sample, so scrubbing changes how the pattern's values come, never the pitch.
/// - A transient sounds when the position crosses its time, in either direction, starting at the
///   sample of the crossing: the §5 burst (4 ms smoothstep rise, smoothstep fall, `D = clamp(3/ν,
///   12 ms, 30 ms)`) on its own oscillator at its own frequency, from phase 0.
/// - Carrier and bursts are summed, scaled by the profile's gain and the voice's gain, and the
///   sum goes through the memoryless limiter.
///
/// A plain value built off the real-time path; every query is real-time safe.
public struct RealtimeSynthesis: Sendable {
    /// One transient of the pattern, by content time.
    public struct Transient: Sendable {
        public var milliseconds: Double
        public var amplitude: Double
        public var hertz: Double
        /// Rise and whole length, in samples.
        public var attack: Int
        public var length: Int
    }

    public let sampleRate: SampleRate
    public let profile: ActuatorProfile
    /// Transients in time order.
    public let transients: [Transient]
    private let amplitude: Curve
    private let frequency: Curve
    /// The span of the amplitude curve, where the carrier sounds.
    private let span: ClosedRange<Double>?

    public init(pattern: PatternData, sampleRate: SampleRate, profile: ActuatorProfile = .wideband) {
        self.sampleRate = sampleRate
        self.profile = profile
        let points = pattern.continuousPattern.amplitude.filter { $0.time.isFinite && $0.value.isFinite }
        amplitude = Curve(points)
        frequency = Curve(pattern.continuousPattern.frequency.filter { $0.time.isFinite && $0.value.isFinite })
        span = points.first.map { first in first.time...max(first.time, points.last!.time) }
        transients = pattern.discretePattern.filter { $0.time.isFinite }.map { point in
            let shape = TransientShape(point, rate: sampleRate, profile: profile)
            return Transient(milliseconds: point.time, amplitude: shape.amplitude, hertz: shape.hertz,
                             attack: shape.attack, length: shape.length)
        }.sorted { $0.milliseconds < $1.milliseconds }
    }

    /// The carrier's amplitude at content position `ms` (0 outside the amplitude curve's span).
    @inline(__always)
    public func carrierAmplitude(atMilliseconds ms: Double) -> Double {
        guard let span, span.contains(ms) else { return 0 }
        return amplitude.value(at: ms)
    }

    /// The carrier's frequency in Hz at content position `ms`.
    @inline(__always)
    public func carrierHertz(atMilliseconds ms: Double) -> Double {
        profile.hertz(for: frequency.points.isEmpty ? 0.5 : frequency.value(at: ms))
    }

    /// Calls `body` with each transient a move of the position from `from` to `to` crosses, in
    /// the order it meets them: forwards those in `(from, to]`, backwards those in `[to, from)`.
    /// Allocates nothing.
    public func forEachCrossed(from: Double, to: Double, _ body: (Int) -> Void) {
        guard from != to, !transients.isEmpty else { return }
        if from < to {
            var i = firstIndex(after: from)
            while i < transients.count, transients[i].milliseconds <= to {
                body(i)
                i += 1
            }
        } else {
            var i = firstIndex(atOrAfter: from) - 1
            while i >= 0, transients[i].milliseconds >= to {
                body(i)
                i -= 1
            }
        }
    }

    /// The first transient later than `ms` (or the count).
    private func firstIndex(after ms: Double) -> Int {
        var lo = 0, hi = transients.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transients[mid].milliseconds <= ms { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first transient at or after `ms` (or the count).
    private func firstIndex(atOrAfter ms: Double) -> Int {
        var lo = 0, hi = transients.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if transients[mid].milliseconds < ms { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Sample `k` (from 0 at its onset) of transient `i`'s burst, before the gains: its envelope
    /// times its oscillator from phase 0; 0 outside `0 ..< length`.
    @inline(__always)
    public func burst(_ i: Int, sample k: Int) -> Double {
        let t = transients[i]
        guard k >= 0, k < t.length else { return 0 }
        let envelope: Double
        if k < t.attack {
            envelope = t.amplitude * Self.smoothstep(Double(k) / Double(t.attack))
        } else {
            envelope = t.amplitude * (1 - Self.smoothstep(Double(k - t.attack) / Double(t.length - t.attack)))
        }
        return envelope * sin(2 * Double.pi * t.hertz * Double(k) / Double(sampleRate.hertz))
    }

    @inline(__always)
    static func smoothstep(_ x: Double) -> Double { x * x * (3 - 2 * x) }
}
