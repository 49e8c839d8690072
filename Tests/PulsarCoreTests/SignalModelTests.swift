import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// Checks derived from docs/signal-model.md, measured on the rendered samples without using the
/// renderer's own arithmetic: onsets, carrier frequency from zero crossings, RMS envelopes, the
/// limiter, and sample-by-sample agreement with `ReferenceSignal`.
@Suite struct SignalModelTests {
    static let rate = SampleRate(48_000)!

    static func render(_ pattern: PatternData, profile: ActuatorProfile = .wideband, rate: SampleRate = rate) throws -> [Float] {
        let r = try PatternRenderer(pattern: pattern, sampleRate: rate, profile: profile)
        return r.render(frames: 0..<r.frameCount)
    }

    static func tone(frequency: Double, amplitude: Double = 0.5, ms: Double = 1000) -> PatternData {
        PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: amplitude), ValuePoint(time: ms, value: amplitude)],
            frequency: [ValuePoint(time: 0, value: frequency), ValuePoint(time: ms, value: frequency)]))
    }

    /// Frequency from the times of upward zero crossings (linearly interpolated) in `range`.
    static func zeroCrossingFrequency(_ x: [Float], rate: Double, range: Range<Int>) -> Double {
        var crossings: [Double] = []
        for n in range.dropLast() where x[n] < 0 && x[n + 1] >= 0 {
            let frac = Double(-x[n]) / Double(x[n + 1] - x[n])
            crossings.append((Double(n) + frac) / rate)
        }
        guard crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!)
    }

    @Test("The worked example of the document: silent onset, full height at the peak sample, length")
    func workedExample() throws {
        let p = PatternData(discretePattern: [DiscretePoint(time: 10, amplitude: 0.5, frequency: 0.5)])
        let r = try PatternRenderer(pattern: p, sampleRate: Self.rate)
        #expect(r.frameCount == 1280)
        let y = r.render(frames: 0..<1300)
        #expect(y[..<481].allSatisfy { $0 == 0 }, "nothing at or before the onset sample 480")
        #expect(abs(y[672] - 0.5) < 1e-6, "the peak sample 480 + 192 is the amplitude")
        #expect(y.map(abs).max() == abs(y[672]), "and it is the largest sample")
        // Between: 0.5 · e(t) · sin(2π(0.53 + 180 (t − 0.010))), e the smoothstep rise and fall.
        func s(_ x: Double) -> Double { 3 * x * x - 2 * x * x * x }
        for n in [481, 500, 600, 671, 700, 900, 1279] {
            let j = Double(n - 480)
            let e = j < 192 ? s(j / 192) : 1 - s((j - 192) / 608)
            let expected = 0.5 * e * sin(2 * Double.pi * (0.53 + 180 * j / 48_000))
            #expect(abs(Double(y[n]) - expected) < 2e-5, "sample \(n): \(y[n]) vs \(expected)")
        }
        #expect(y[1280...].allSatisfy { $0 == 0 })
    }

    @Test("Times become samples by the rules of §1, on the parsed double, ties away from zero")
    func timeToSampleRules() throws {
        let rate = Self.rate
        #expect(rate.nearestFrame(atMilliseconds: 0.03125) == 2)
        #expect(rate.firstFrame(atOrAfterMilliseconds: 0.03125) == 2)
        #expect(rate.nearestFrame(atMilliseconds: 0.30208333333333333) == 15)
        #expect(rate.nearestFrame(atMilliseconds: 0.302083333333333) == 14)
        #expect(rate.firstFrame(atOrAfterMilliseconds: 0.302083333333333) == 15)
        #expect(rate.nearestFrame(atMilliseconds: 10.0104166666666667) == 481)
        // The rendered peak lands N_a = 192 samples after the onset each rule gives.
        for (time, onset) in [(0.03125, 2), (0.30208333333333333, 15), (0.302083333333333, 14)] {
            let y = try Self.render(PatternData(discretePattern: [DiscretePoint(time: time, amplitude: 0.6, frequency: 1)]))
            #expect(abs(y[onset + 192] - 0.6) < 1e-6, "\(time) ms peaks at \(onset + 192)")
            #expect(y[...onset].allSatisfy { $0 == 0 }, "\(time) ms: nothing up to the onset \(onset)")
        }
    }

    @Test("Transients: nothing before the onset, the amplitude at the peak sample 4 ms later", arguments: [8_000, 44_100, 48_000, 96_000, 192_000])
    func transientOnsets(hz: Int) throws {
        let rate = SampleRate(hz)!
        // Spaced wider than the longest transient (30 ms), with fractional milliseconds.
        let times = [0.0, 40.5, 87.49, 150.01, 333.333, 1000.5]
        let p = PatternData(discretePattern: times.map { DiscretePoint(time: $0, amplitude: 0.7, frequency: 0.3) })
        let y = try Self.render(p, rate: rate)
        let attack = Int((0.004 * Double(hz)).rounded())
        for t in times {
            let onset = Int((t * Double(hz) / 1000).rounded())
            #expect(y[onset] == 0, "the onset sample of \(t) ms is silent")
            if onset > 0 { #expect(y[onset - 1] == 0, "silence just before \(t) ms") }
            #expect(abs(y[onset + attack] - 0.7) < 1e-5, "full height at the peak sample of \(t) ms")
            let burst = y[onset..<(onset + 2 * attack)].map(abs)
            #expect(burst.max()! <= y[onset + attack] + 1e-6, "the peak sample is the burst's largest within 8 ms")
        }
    }

    @Test("Heartbeat: before each onset the render equals the render without that transient and the later ones; at its peak sample it reaches at least its amplitude",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func heartbeatOnsets() throws {
        let root = try #require(Corpus.root, "../shared/corpus is absent (required under CI=true)")
        let pattern = try PatternLoader().load(contentsOf: root + "/pulsar-presets/Heartbeat.json").pattern
        let full = try Self.render(pattern)
        for (i, t) in pattern.discretePattern.enumerated() {
            var earlier = pattern
            earlier.discretePattern = Array(pattern.discretePattern[..<i])
            let without = try Self.render(earlier)
            let onset = Int((t.time * 48).rounded())
            for n in max(0, onset - 2000)...onset where n < without.count {
                if full[n] != without[n] { Issue.record("transient at \(t.time) ms changed sample \(n), before its onset"); break }
            }
            let peak = onset + 192
            #expect(abs(full[peak]) >= Limiter.apply(Float(t.amplitude)) - 1e-5, "crest or trough at \(t.time) ms: \(full[peak])")
        }
    }

    @Test("A step in the amplitude curve is a smooth rise after it and a smooth fall after the end")
    func stepsAreSmooth() throws {
        // An AHAP-like block: 0.8 on [100, 200) ms at 180 Hz.
        let p = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 100, value: 0), ValuePoint(time: 100, value: 0.8), ValuePoint(time: 200, value: 0.8), ValuePoint(time: 200, value: 0)],
            frequency: [ValuePoint(time: 0, value: 0.5)]))
        let y = try Self.render(p)
        #expect(y[...4800].allSatisfy { $0 == 0 }, "nothing before 100 ms")
        #expect(y[(208 * 48)...].allSatisfy { $0 == 0 }, "silent from end + 8 ms")
        // No sample-to-sample jump beyond what a 180 Hz sine of amplitude 0.8 does, plus the
        // envelope's own largest step (2/ρ per second at most: 0.8 · 2 / 8 ms / 48 kHz).
        let limit = Float(0.8 * 2 * Double.pi * 180 / 48_000 + 0.8 * 2 / 0.008 / 48_000) * 1.01
        for n in 1..<y.count { #expect(abs(y[n] - y[n - 1]) <= limit, "jump at \(n)") }
        // Full height in the middle: crests of 0.8.
        #expect(abs(y[(120 * 48)..<(190 * 48)].map(abs).max()! - 0.8) < 1e-3)
    }

    @Test("Carrier frequency at the band's ends, from zero crossings, within 1 %",
          arguments: [("wideband", 0.0, 60.0), ("wideband", 1.0, 300.0), ("wideband", 0.5, 180.0),
                      ("lra", 0.0, 153.0), ("lra", 1.0, 187.0), ("lra:235", 1.0, 258.5), ("40:90", 0.0, 40.0), ("40:90", 1.0, 90.0)])
    func carrierFrequency(profile: String, value: Double, expected: Double) throws {
        let y = try Self.render(Self.tone(frequency: value), profile: try #require(ActuatorProfile(parsing: profile)))
        let measured = Self.zeroCrossingFrequency(y, rate: 48_000, range: 0..<y.count)
        #expect(abs(measured - expected) / expected < 0.01, "\(profile) f=\(value): measured \(measured) Hz")
    }

    @Test("A frequency ramp sweeps the band with continuous phase")
    func chirp() throws {
        let p = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 1), ValuePoint(time: 2000, value: 1)],
            frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 2000, value: 1)]))
        let y = try Self.render(p)
        // Instantaneous frequency at 0.5 s and 1.5 s: 60 + 240 · t/2.
        for (center, expected) in [(0.5, 120.0), (1.5, 240.0)] {
            let n = Int(center * 48_000)
            let measured = Self.zeroCrossingFrequency(y, rate: 48_000, range: (n - 2400)..<(n + 2400))
            #expect(abs(measured - expected) / expected < 0.01, "at \(center) s: \(measured) Hz")
        }
        // No phase jump anywhere: a step never exceeds what a 300 Hz unit sine can do between samples.
        let limit = Float(2 * Double.pi * 300 / 48_000) * 1.01
        for n in 1..<y.count { #expect(abs(y[n] - y[n - 1]) <= limit, "jump at \(n)") }
    }

    @Test("Amplitude envelope follows the curve, from RMS windows")
    func amplitudeEnvelope() throws {
        let p = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 1000, value: 0.8), ValuePoint(time: 1500, value: 0.8)],
            frequency: [ValuePoint(time: 0, value: 0.5)]))
        let y = try Self.render(p)
        // 180 Hz: a window of 9 periods is 2400 samples = 50 ms.
        for start in stride(from: 0, to: 70_000, by: 4800) {
            let window = y[start..<(start + 2400)]
            let rms = sqrt(window.reduce(0.0) { $0 + Double($1) * Double($1) } / 2400)
            let midTime = Double(start + 1200) / 48_000 * 1000
            let expected = min(midTime / 1000, 1) * 0.8 / sqrt(2)
            #expect(abs(rms - expected) < 0.01 * 0.8, "window at \(start): rms \(rms), expected \(expected)")
        }
    }

    @Test("The limiter is the identity to the knee, continuous, and stays below 1; it acts on the envelope")
    func limiter() throws {
        #expect(Limiter.apply(0.5) == 0.5)
        #expect(Limiter.apply(-0.8) == -0.8)
        #expect(abs(Limiter.apply(0.8001) - 0.8001) < 1e-6)
        #expect(Limiter.apply(100) < 1)
        #expect(Limiter.apply(-100) > -1)
        #expect(abs(Double(Limiter.apply(1.2)) - (0.8 + 0.2 * tanh(2))) < 1e-6)
        // A loud pattern at the maximum gain: every sample inside (-1, 1), and the count reported
        // is the samples whose envelope is above the knee.
        var loud = ActuatorProfile.wideband
        loud.gain = 16
        let p = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 1), ValuePoint(time: 200, value: 1)]),
                            discretePattern: [DiscretePoint(time: 50, amplitude: 1, frequency: 1)])
        let r = try PatternRenderer(pattern: p, sampleRate: Self.rate, profile: loud)
        var y = [Float](repeating: 0, count: Int(r.frameCount))
        let limited = y.withUnsafeMutableBufferPointer { r.render(into: $0, from: 0) }
        #expect(y.allSatisfy { abs($0) < 1 })
        let reference = ReferenceSignal(p, rate: 48_000, gain: 16)
        let expected = (0..<Int(r.frameCount)).filter { 16 * reference.envelope(atFrame: $0) > 0.8 }.count
        #expect(abs(limited - expected) <= 2, "limited \(limited), reference \(expected)")
        // A steady carrier of 1 at gain 1 crests at L(1), a pure sine (no flattened tops).
        let tone = try Self.render(Self.tone(frequency: 0.5, amplitude: 1, ms: 300))
        let crest = tone[(100 * 48)..<(200 * 48)].map(abs).max()!
        #expect(abs(Double(crest) - (0.8 + 0.2 * tanh(1))) < 1e-4)
        #expect(SignalMeasure.energyAbove(1000, in: tone, rate: 48_000) < -60)
    }

    @Test("Rates outside 8000...192000 are refused, the ends are rendered")
    func rates() throws {
        #expect(SampleRate(7_999) == nil)
        #expect(SampleRate(192_001) == nil)
        for hz in [8_000, 192_000] {
            let y = try Self.render(Self.tone(frequency: 0.5, ms: 100), rate: SampleRate(hz)!)
            #expect(y.count == hz / 10 + hz * 8 / 1000, "100 ms and the 8 ms the end's fall takes")
            #expect(y.contains { $0 != 0 })
        }
        // A band reaching Nyquist is refused.
        #expect(throws: PatternRenderer.SetupError.self) {
            try PatternRenderer(pattern: Self.tone(frequency: 0.5), sampleRate: SampleRate(8_000)!, profile: ActuatorProfile(parsing: "100:4000")!)
        }
    }

    @Test("Renderer matches the reference transcription on hand-made edge cases")
    func referenceEdgeCases() throws {
        let cases: [PatternData] = [
            // A step (two points at one time), held ends, frequency curve longer than amplitude.
            PatternData(continuousPattern: ContinuousPattern(
                amplitude: [ValuePoint(time: 5, value: 0.2), ValuePoint(time: 30, value: 0.9), ValuePoint(time: 30, value: 0.1), ValuePoint(time: 60, value: 0.6)],
                frequency: [ValuePoint(time: 0, value: 0.1), ValuePoint(time: 45.3, value: 1), ValuePoint(time: 90, value: 0.3)])),
            // No frequency curve (0.5), transients overlapping each other and the curve.
            PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: 50, value: 0.3)]),
                        discretePattern: [DiscretePoint(time: 3, amplitude: 0.5, frequency: 0), DiscretePoint(time: 9.99, amplitude: 0.4, frequency: 1)]),
            // Long segment spanning many blocks with a chirp.
            PatternData(continuousPattern: ContinuousPattern(
                amplitude: [ValuePoint(time: 0, value: 0.9), ValuePoint(time: 3000, value: 0.1)],
                frequency: [ValuePoint(time: 0, value: 1), ValuePoint(time: 3000, value: 0)])),
        ]
        for p in cases {
            for hz in [44_100, 48_000] {
                let reference = ReferenceSignal(p, rate: hz)
                let r = try PatternRenderer(pattern: p, sampleRate: SampleRate(hz)!)
                #expect(Int(r.frameCount) == reference.frameCount)
                let y = r.render(frames: 0..<r.frameCount)
                let expected = reference.samples(0..<reference.frameCount)
                let worst = zip(y, expected).map { abs(Double($0) - $1) }.max() ?? 0
                #expect(worst < 2e-5, "max deviation \(worst) at \(hz) Hz")
            }
        }
    }
}
