#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Synthesizes a pattern's haptic waveform exactly as docs/signal-model.md defines it, starting
/// at any frame without rendering what came before.
///
/// Thread rules: immutable after `init`; `render` may run concurrently from any number of threads
/// and is real-time safe (no allocation, no locks, no I/O). `init` allocates: build renderers off
/// the real-time path.
public struct PatternRenderer: Sendable {
    public enum SetupError: Error, CustomStringConvertible, Sendable {
        case unsupportedProfile(String)

        public var description: String {
            switch self {
            case .unsupportedProfile(let why): return "actuator profile: \(why)"
            }
        }
    }

    /// One segment of the continuous part with at least one sample (docs/signal-model.md §4).
    struct Segment: Sendable {
        var firstFrame: FrameIndex      // N_k
        var endFrame: FrameIndex        // N_{k+1}
        var startSeconds: Double        // t_k
        var amplitude: Double           // a_k
        var amplitudeSlope: Double      // α_k, per second
        var hertz: Double               // h_k
        var hertzSlope: Double          // β_k, Hz per second
        var phase: Double               // Φ_k, cycles, in [0, 1)
    }

    struct Transient: Sendable {
        var onset: FrameIndex
        var length: Int
        var amplitude: Double
        var hertz: Double
    }

    public let sampleRate: SampleRate
    public let profile: ActuatorProfile
    /// `N_total`: frames until the last sample that can be non-zero, plus one.
    public let frameCount: FrameIndex
    /// `N_K`: frames covered by the continuous part.
    public let continuousFrameCount: FrameIndex

    let segments: [Segment]
    let transients: [Transient]
    let longestTransient: Int

    /// Prepares a renderer. `pattern` should have passed `PatternValidator`; the renderer does not
    /// re-check it, but it never traps on any input (bad values give a silent or clipped render).
    public init(pattern: PatternData, sampleRate: SampleRate, profile: ActuatorProfile = .wideband) throws(SetupError) {
        if let problem = profile.problem(at: sampleRate) { throw .unsupportedProfile(problem) }
        self.sampleRate = sampleRate
        self.profile = profile
        let rate = Double(sampleRate.hertz)

        // Continuous part.
        var segments: [Segment] = []
        let amplitude = Curve(pattern.continuousPattern.amplitude)
        let frequency = pattern.continuousPattern.frequency
        let frequencyCurve = Curve(frequency)
        func hz(_ value: Double) -> Double { profile.hertz(for: value) }
        let end = max(pattern.continuousPattern.amplitude.last?.time ?? 0, frequency.last?.time ?? 0)
        var continuousEnd: FrameIndex = 0
        if !amplitude.points.isEmpty && end > 0 && end.isFinite {
            var times = [0.0, end]
            for p in amplitude.points where p.time > 0 && p.time < end { times.append(p.time) }
            for p in frequency where p.time > 0 && p.time < end { times.append(p.time) }
            times.sort()
            var unique: [Double] = []
            unique.reserveCapacity(times.count)
            for t in times where unique.last != t { unique.append(t) }
            var phase = 0.0
            for k in 0..<(unique.count - 1) {
                let t0 = unique[k] / 1000, t1 = unique[k + 1] / 1000
                let delta = t1 - t0
                let a0 = amplitude.value(at: unique[k])
                let a1 = amplitude.valueBefore(unique[k + 1])
                let h0 = frequency.isEmpty ? hz(0.5) : hz(frequencyCurve.value(at: unique[k]))
                let h1 = frequency.isEmpty ? hz(0.5) : hz(frequencyCurve.valueBefore(unique[k + 1]))
                let first = sampleRate.firstFrame(atOrAfterMilliseconds: unique[k])
                let last = sampleRate.firstFrame(atOrAfterMilliseconds: unique[k + 1])
                let slopeA = (a1 - a0) / delta, slopeH = (h1 - h0) / delta
                if last > first {
                    segments.append(Segment(firstFrame: first, endFrame: last, startSeconds: t0,
                                            amplitude: a0, amplitudeSlope: slopeA,
                                            hertz: h0, hertzSlope: slopeH, phase: phase))
                }
                let cycles = phase + h0 * delta + slopeH * delta * delta / 2
                phase = cycles - cycles.rounded(.down)
            }
            continuousEnd = sampleRate.firstFrame(atOrAfterMilliseconds: end)
        }
        self.segments = segments
        self.continuousFrameCount = continuousEnd

        // Transients, in pattern order (the validator keeps them sorted by time).
        var transients: [Transient] = []
        transients.reserveCapacity(pattern.discretePattern.count)
        var total = continuousEnd
        var longest = 0
        for p in pattern.discretePattern where p.time.isFinite {
            let hertz = hz(p.frequency)
            let duration = min(max(3 / hertz, 0.010), 0.030)
            let length = max(1, Int((duration * rate).rounded()))
            let onset = sampleRate.nearestFrame(atMilliseconds: p.time)
            transients.append(Transient(onset: onset, length: length, amplitude: p.amplitude, hertz: hertz))
            total = max(total, onset + FrameIndex(length))
            longest = max(longest, length)
        }
        // Onsets must be non-decreasing for the range search; the validator guarantees it for
        // time-sorted input, and a stable sort keeps pattern order among equals otherwise.
        if zip(transients, transients.dropFirst()).contains(where: { $0.onset > $1.onset }) {
            transients = transients.enumerated().sorted { ($0.element.onset, $0.offset) < ($1.element.onset, $1.offset) }.map(\.element)
        }
        self.transients = transients
        self.longestTransient = longest
        self.frameCount = total
    }

    /// Renders frames `frame ..< frame + buffer.count` into `buffer` (overwriting it) and returns
    /// how many of them the limiter touched. For a validated pattern (no negative times), frames
    /// outside `0 ..< frameCount` are 0. The result
    /// is bit-identical to the same frames of a render started anywhere else.
    ///
    /// Real-time safe; callable from any thread.
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex) -> Int {
        guard let out = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        let count = buffer.count
        let endFrame = frame + FrameIndex(count)
        let gain = profile.gain
        let rate = Double(sampleRate.hertz)
        let block = FrameIndex(CarrierKernel.blockLength)

        // 1. Continuous part over [0, continuousFrameCount); zeros elsewhere.
        let coveredStart = max(frame, 0), coveredEnd = min(endFrame, continuousFrameCount)
        if coveredStart >= coveredEnd {
            out.initialize(repeating: 0, count: count)
        } else {
            if coveredStart > frame { out.initialize(repeating: 0, count: Int(coveredStart - frame)) }
            if coveredEnd < endFrame { (out + Int(coveredEnd - frame)).initialize(repeating: 0, count: Int(endFrame - coveredEnd)) }
            segments.withUnsafeBufferPointer { segs in
                var s = Self.segmentIndex(containing: coveredStart, in: segs)
                var n = coveredStart
                while n < coveredEnd && s < segs.count {
                    let seg = segs[s]
                    if n >= seg.endFrame { s += 1; continue }
                    // The chunk holding n: cut at segment starts and at multiples of the block.
                    let chunkStart = max(seg.firstFrame, (n / block) * block)
                    let chunkEnd = min(seg.endFrame, (chunkStart / block + 1) * block)
                    let u = Double(chunkStart) / rate - seg.startSeconds
                    let cycles = seg.phase + seg.hertz * u + seg.hertzSlope * u * u / 2
                    let frac = cycles - cycles.rounded(.down)
                    let kernel = CarrierKernel(
                        phase0: 2 * Double.pi * frac,
                        phase1: 2 * Double.pi * (seg.hertz + seg.hertzSlope * u) / rate,
                        phase2: Double.pi * seg.hertzSlope / (rate * rate),
                        amplitude0: gain * (seg.amplitude + seg.amplitudeSlope * u),
                        amplitude1: gain * seg.amplitudeSlope / rate,
                        amplitude2: 0)
                    let writeEnd = min(chunkEnd, coveredEnd)
                    kernel.run(out + Int(n - frame),
                               writeRange: Int(n - chunkStart)..<Int(writeEnd - chunkStart),
                               accumulate: false)
                    n = writeEnd
                }
            }
        }

        // 2. Transients, added in pattern order.
        transients.withUnsafeBufferPointer { ts in
            var i = Self.firstTransient(endingAfter: frame, longest: longestTransient, in: ts)
            while i < ts.count && ts[i].onset < endFrame {
                let t = ts[i]
                i += 1
                let tEnd = t.onset + FrameIndex(t.length)
                guard tEnd > frame else { continue }
                let from = max(frame, t.onset), to = min(endFrame, tEnd)
                var j = from - t.onset
                let length = Double(t.length)
                while j < to - t.onset {
                    let chunk = (j / block) * block
                    let chunkEnd = min(chunk + block, to - t.onset)
                    let w = (length - Double(chunk)) / length, d = 1 / length
                    let a = gain * t.amplitude
                    let cycles = t.hertz * Double(chunk) / rate
                    let kernel = CarrierKernel(
                        phase0: 2 * Double.pi * (cycles - cycles.rounded(.down)) + Double.pi / 2,
                        phase1: 2 * Double.pi * t.hertz / rate,
                        phase2: 0,
                        amplitude0: a * w * w,
                        amplitude1: -2 * a * w * d,
                        amplitude2: a * d * d)
                    kernel.run(out + Int(t.onset + j - frame),
                               writeRange: Int(j - chunk)..<Int(chunkEnd - chunk),
                               accumulate: true)
                    j = chunkEnd
                }
            }
        }

        // 3. Limiter.
        return Limiter.process(buffer)
    }

    /// Renders `frames` into a new array (allocates: not for the real-time path).
    public func render(frames: Range<FrameIndex>) -> [Float] {
        [Float](unsafeUninitializedCapacity: frames.count) { buffer, initialized in
            render(into: buffer, from: frames.lowerBound)
            initialized = frames.count
        }
    }

    static func segmentIndex(containing frame: FrameIndex, in segs: UnsafeBufferPointer<Segment>) -> Int {
        // Last segment whose first frame <= frame.
        var lo = 0, hi = segs.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segs[mid].firstFrame <= frame { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    static func firstTransient(endingAfter frame: FrameIndex, longest: Int, in ts: UnsafeBufferPointer<Transient>) -> Int {
        // First transient whose onset >= frame - longest: none before it can reach `frame`.
        let bound = frame - FrameIndex(longest)
        var lo = 0, hi = ts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ts[mid].onset < bound { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
