#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Renders a `.haptic` clip through a Meta actuator config as Meta's renderer does
/// (docs/actuators.md, "Rendering through a Meta actuator config"): a sine carrier whose
/// amplitude and frequency follow the clip's raw breakpoints, ducked under each emphasis burst,
/// plus the bursts; the sum clipped to ±1.
///
/// Random access: every sample is a closed form of its index (the carrier's phase is the exact
/// sum of the per-sample increments of a piecewise-linear frequency), so rendering from any frame
/// gives the same samples as rendering from 0. Immutable after `init`: safe to use from any
/// thread; `render` allocates nothing.
public struct MetaHapticRenderer: Sendable {
    /// Tolerance, in samples, of every conversion of a time to a sample index: absorbs the error
    /// of a decimal time written in binary (0.1 s · 48000 must be sample 4800).
    public static let sampleTolerance = 1e-6

    /// One ramp of a breakpoint curve: from `start` on, `from + (to − from) · min(k / span, 1)` at
    /// `k = n − start` samples in; `span <= 0` holds `to` at once.
    struct Ramp: Sendable {
        var start: Int64
        var from: Double
        var to: Double
        var span: Double
        /// For the frequency curve: the carrier's phase in cycles at `start` (the sum of the
        /// per-sample increments before it).
        var cyclesAtStart: Double = 0

        func value(at n: Int64) -> Double {
            guard span > 0 else { return to }
            return from + (to - from) * min(Double(n - start) / span, 1)
        }

        /// The sum of the first `m` values of the ramp (`k = 0 ..< m`), in closed form.
        func sum(of m: Int64) -> Double {
            guard m > 0 else { return 0 }
            guard span > 0 else { return Double(m) * to }
            let q = min(Double(m), span.rounded(.down) + 1)
            return q * from + (to - from) / span * (q * (q - 1) / 2) + (Double(m) - q) * to
        }
    }

    /// One emphasis burst, sounding on `start ..< end`.
    struct Burst: Sendable {
        var start: Int64
        var end: Int64
        /// Cycles per sample.
        var increment: Double
        var gainStart: Double
        var gainEnd: Double
        var span: Double
        var minimumWeight: Double
        var maximumWeight: Double
        var minimumShape: MetaActuatorConfig.Shape
        var maximumShape: MetaActuatorConfig.Shape
        /// The harmonics drawn (`BurstWaveform.harmonics`), or 0 for the whole waveform.
        var harmonics: Int
        /// With a ducking ramp: the carrier's gain where the burst starts, and where it ends
        /// (the ramp towards `emphasis_ducking` carried on to `end`).
        var duckFrom = 1.0
        var duckAtEnd = 1.0
    }

    public let sampleRate: SampleRate
    public let config: MetaActuatorConfig
    /// `⌊(last amplitude time − first amplitude time) · rate⌋` samples; 0 without amplitude points.
    public let frameCount: FrameIndex
    let amplitude: [Ramp]
    let frequency: [Ramp]
    let bursts: [Burst]
    /// `ducking_ramp_ms` in samples; 0 for a step.
    let duckingRamp: Double
    /// `rise_ms` in samples; 0 for none.
    let rise: Double

    /// A renderer of `clip` through `config` at `sampleRate`. The clip is taken as the loader
    /// validated it (finite times in order, values in 0…1); `config.problem(at:)` should be nil.
    public init(clip: LofeltClip, config: MetaActuatorConfig, sampleRate: SampleRate) {
        self.sampleRate = sampleRate
        self.config = config
        let rate = Double(sampleRate.hertz)
        if let first = clip.amplitude.first, let last = clip.amplitude.last {
            frameCount = FrameIndex(max(0, ((last.time - first.time) * rate + Self.sampleTolerance).rounded(.down)))
        } else {
            frameCount = 0
        }
        let continuous = config.continuous

        // Amplitude: the first point at once, a ramp from each point to the next, then 0 at once.
        // A last point with an emphasis is held 0.1 s more before the 0 (Meta lets the emphasis
        // play out; it lies beyond the rendered length).
        var points = clip.amplitude
        if let last = points.last, last.emphasis != nil {
            points.append(LofeltClip.AmplitudePoint(time: last.time + 0.1, amplitude: last.amplitude))
        }
        var amplitudeEvents: [(time: Double, target: Double, duration: Double, emphasis: LofeltClip.Emphasis?)] = []
        for (i, p) in points.enumerated() {
            if i == 0 { amplitudeEvents.append((p.time, p.amplitude * continuous.gain, 0, nil)) }
            if i + 1 < points.count {
                let next = points[i + 1]
                amplitudeEvents.append((p.time, next.amplitude * continuous.gain, next.time - p.time, p.emphasis))
            } else {
                amplitudeEvents.append((p.time, 0, 0, nil))
            }
        }
        var amplitude = [Ramp(start: 0, from: 0, to: 0, span: 0)]
        var emphasisEvents: [(start: Int64, emphasis: LofeltClip.Emphasis)] = []
        for event in amplitudeEvents {
            let start = Self.append(event.time, event.target, event.duration, to: &amplitude, rate: rate)
            if let e = event.emphasis { emphasisEvents.append((start, e)) }
        }
        self.amplitude = amplitude

        // Frequency: mid-band until the first point, then the points as the amplitude's, the last
        // value held.
        var frequency = [Ramp(start: 0, from: continuous.hertz(at: 0.5), to: continuous.hertz(at: 0.5), span: 0)]
        for (i, p) in clip.frequency.enumerated() {
            if i == 0 { _ = Self.append(p.time, continuous.hertz(at: p.frequency), 0, to: &frequency, rate: rate) }
            if i + 1 < clip.frequency.count {
                let next = clip.frequency[i + 1]
                _ = Self.append(p.time, continuous.hertz(at: next.frequency), next.time - p.time, to: &frequency, rate: rate)
            }
        }
        for j in 1..<frequency.count {
            let previous = frequency[j - 1]
            frequency[j].cyclesAtStart = previous.cyclesAtStart + previous.sum(of: frequency[j].start - previous.start) / rate
        }
        self.frequency = frequency

        // Bursts: one per emphasis; a later one cuts (and at the same sample replaces) the earlier.
        let emphasis = config.emphasis
        var bursts: [Burst] = []
        for (start, e) in emphasisEvents {
            let b = emphasis.burst(at: e.frequency)
            let samples = b.durationMs * rate / 1000
            let length = Int64(max(0, (samples + Self.sampleTolerance).rounded(.down)))
            let gainStart = emphasis.gain * e.amplitude
            let gainEnd = emphasis.gain * b.endGain * e.amplitude
            let span = (samples - 1 <= 0 || abs(gainEnd - gainStart) < 1e-6) ? 0 : samples - 1
            if let last = bursts.last, last.end > start { bursts[bursts.count - 1].end = start }
            if let last = bursts.last, last.start == last.end { bursts.removeLast() }
            bursts.append(Burst(start: start, end: start + length, increment: b.hertz / rate,
                                gainStart: gainStart, gainEnd: gainEnd, span: span,
                                minimumWeight: b.minimumShapeWeight, maximumWeight: b.maximumShapeWeight,
                                minimumShape: emphasis.frequencyMin.shape, maximumShape: emphasis.frequencyMax.shape,
                                harmonics: emphasis.bandLimitHertz.map { BurstWaveform.harmonics(hertz: b.hertz, limit: $0, rate: rate) } ?? 0))
        }
        if let last = bursts.last, last.start == last.end { bursts.removeLast() }
        duckingRamp = max(0, (config.continuous.duckingRampMs ?? 0) * rate / 1000)
        rise = max(0, (config.emphasis.riseMs ?? 0) * rate / 1000)
        if duckingRamp > 0 {
            for i in bursts.indices {
                bursts[i].duckFrom = i == 0 ? 1 : Self.duck(after: bursts[i - 1], at: bursts[i].start, ramp: duckingRamp)
                bursts[i].duckAtEnd = Self.duck(in: bursts[i], at: bursts[i].end, ramp: duckingRamp, to: continuous.emphasisDucking)
            }
        }
        self.bursts = bursts
    }

    /// The carrier's gain at `n` from `burst.start` on (before its end): ramping from
    /// `duckFrom` to `target` over `ramp` samples.
    static func duck(in burst: Burst, at n: Int64, ramp: Double, to target: Double) -> Double {
        burst.duckFrom + (target - burst.duckFrom) * min(Double(n - burst.start) / ramp, 1)
    }

    /// The carrier's gain at `n` from `burst.end` on: back from `duckAtEnd` to 1 over `ramp` samples.
    static func duck(after burst: Burst, at n: Int64, ramp: Double) -> Double {
        burst.duckAtEnd + (1 - burst.duckAtEnd) * min(Double(n - burst.end) / ramp, 1)
    }

    /// The first sample at or after `time` seconds: `⌈time · rate − tolerance⌉`, at least 0.
    public static func firstSample(atOrAfter time: Double, rate: Double) -> Int64 {
        Int64(max(0, (time * rate - sampleTolerance).rounded(.up)))
    }

    /// Starts a ramp at `time` towards `target` over `duration` seconds; returns its start sample.
    /// It starts from the curve's value at that sample, no earlier than the previous ramp
    /// (events are taken in order), and replaces a ramp starting at the same sample.
    private static func append(_ time: Double, _ target: Double, _ duration: Double, to ramps: inout [Ramp], rate: Double) -> Int64 {
        let previous = ramps[ramps.count - 1]
        let start = max(previous.start, firstSample(atOrAfter: time, rate: rate))
        let from = previous.value(at: start)
        let samples = duration * rate
        let span = (samples <= 1 || abs(from - target) < 1e-6) ? 0 : samples - 1
        let ramp = Ramp(start: start, from: from, to: target, span: span)
        if previous.start == start, ramps.count > 1 {
            ramps[ramps.count - 1] = ramp
        } else {
            ramps.append(ramp)
        }
        return start
    }

    /// One period of `shape` at phase `p` in 0..<1: whole, or its first `harmonics` terms.
    static func shape(_ shape: MetaActuatorConfig.Shape, _ p: Double, harmonics: Int) -> Double {
        harmonics > 0 ? BurstWaveform.limited(shape, p, harmonics: harmonics) : BurstWaveform.whole(shape, p)
    }

    /// The index of the last element of `starts` at or before `n` (0 when none).
    private static func index<T>(in items: [T], at n: Int64, start: (T) -> Int64) -> Int {
        var low = 0, high = items.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if start(items[mid]) <= n { low = mid } else { high = mid }
        }
        return low
    }

    /// Fills `buffer` with the frames from `frame` on (0 past `frameCount`); returns how many
    /// samples were clipped to ±1.
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex) -> Int {
        let rate = Double(sampleRate.hertz)
        var a = Self.index(in: amplitude, at: frame, start: \.start)
        var f = Self.index(in: frequency, at: frame, start: \.start)
        var b = bursts.isEmpty ? -1 : Self.index(in: bursts, at: frame, start: \.start)
        if b >= 0, bursts[b].start > frame { b = -1 }
        let ducking = config.continuous.emphasisDucking
        var clipped = 0
        for i in 0..<buffer.count {
            let n = frame + FrameIndex(i)
            guard n >= 0, n < frameCount else { buffer[i] = 0; continue }
            while a + 1 < amplitude.count, amplitude[a + 1].start <= n { a += 1 }
            while f + 1 < frequency.count, frequency[f + 1].start <= n { f += 1 }
            while b + 1 < bursts.count, bursts[b + 1].start <= n { b += 1 }
            let ramp = frequency[f]
            let cycles = ramp.cyclesAtStart + ramp.sum(of: n - ramp.start) / rate
            let phase = cycles - cycles.rounded(.down)
            var sample = amplitude[a].value(at: n) * sin(2 * Double.pi * phase)
            if b >= 0, n >= bursts[b].end, duckingRamp > 0 {
                sample *= Self.duck(after: bursts[b], at: n, ramp: duckingRamp)
            }
            if b >= 0, n < bursts[b].end {
                let burst = bursts[b]
                let k = Double(n - burst.start)
                let p = k * burst.increment - (k * burst.increment).rounded(.down)
                var gain = burst.span > 0 ? burst.gainStart + (burst.gainEnd - burst.gainStart) * min(k / burst.span, 1) : burst.gainEnd
                if k < rise { gain *= 0.5 - 0.5 * cos(Double.pi * k / rise) }
                let shaped = Self.shape(burst.minimumShape, p, harmonics: burst.harmonics) * burst.minimumWeight
                    + Self.shape(burst.maximumShape, p, harmonics: burst.harmonics) * burst.maximumWeight
                let duck = duckingRamp > 0 ? Self.duck(in: burst, at: n, ramp: duckingRamp, to: ducking) : ducking
                sample = sample * duck + shaped * gain
            }
            if sample > 1 { sample = 1; clipped += 1 } else if sample < -1 { sample = -1; clipped += 1 }
            buffer[i] = Float(sample)
        }
        return clipped
    }

    /// Frames `range` as an array (tests and plots).
    public func render(frames range: Range<FrameIndex>) -> [Float] {
        var out = [Float](repeating: 0, count: Int(range.count))
        out.withUnsafeMutableBufferPointer { _ = render(into: $0, from: range.lowerBound) }
        return out
    }
}
