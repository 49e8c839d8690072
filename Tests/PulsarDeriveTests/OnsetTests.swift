import PulsarCore
import Testing
@testable import PulsarDerive

/// Transients at the onsets of synthesised sound whose onset times are known: kicks (decaying
/// low sweeps), snares (noise bursts) and plucks (decaying harmonics) under a sustained pad and
/// background noise.
@Suite struct OnsetTests {
    @Test("transients match the true onsets with F1 >= 0.95 within ±10 ms", arguments: [44_100, 48_000])
    func onsets(rate: Int) throws {
        let deriver = try EnvelopeDeriver()
        var total = TestSignals.Match.none
        for seed in [11, 12, 13] as [UInt64] {
            let track = TestSignals.track(rate: rate, seconds: 20, seed: seed)
            let result = try deriver.derive(track.samples, sampleRate: rate)
            let detected = result.pattern.discretePattern.map { $0.time / 1000 }
            let m = TestSignals.match(detected: detected, truth: track.onsets, tolerance: 0.010)
            total.add(m)
            #expect(m.f1 >= 0.9, "seed \(seed): F1 \(m.f1)")
            #expect(result.pattern.discretePattern.allSatisfy { (0...1).contains($0.amplitude) && (0...1).contains($0.frequency) })
        }
        print("note: onsets at \(rate) Hz (\(total.truths) true, \(total.detections) found): precision \(f(total.precision)), recall \(f(total.recall)), F1 \(f(total.f1)), median error \(f(total.medianError * 1000)) ms, median |error| \(f(total.medianAbsoluteError * 1000)) ms")
        #expect(total.f1 >= 0.95)
        #expect(abs(total.medianError) <= 0.002)
    }

    @Test("a transient's frequency is its brightness: kicks low, snares high, plucks between")
    func brightness() throws {
        let rate = 48_000
        let track = TestSignals.track(rate: rate, seconds: 20, seed: 11)
        let result = try EnvelopeDeriver().derive(track.samples, sampleRate: rate)
        var byKind: [TestSignals.Kind: [Double]] = [:]
        for (t, kind) in zip(track.onsets, track.kinds) {
            if let d = result.pattern.discretePattern.first(where: { abs($0.time / 1000 - t) <= 0.010 }) {
                byKind[kind, default: []].append(d.frequency)
            }
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let kick = median(byKind[.kick]!), pluck = median(byKind[.pluck]!), snare = median(byKind[.snare]!)
        print("note: median transient frequency: kick \(f(kick)), pluck \(f(pluck)), snare \(f(snare))")
        #expect(kick < pluck && pluck < snare)
        #expect(kick < 0.2)                        // its rise lies below ~230 Hz
        #expect(snare > 0.45)                       // broadband: its rises spread over every band
    }

    @Test("one hit alone gets one transient, at its onset, at the gain")
    func single() throws {
        let rate = 44_100
        var x = [Float](repeating: 0, count: rate)
        let onset = 0.3
        for i in Int(onset * Double(rate))..<rate {
            x[i] = Float(0.5 * TestSignals.pluck(at: Double(i) / Double(rate) - onset, f0: 220))
        }
        let result = try EnvelopeDeriver(settings: DeriveSettings(gainDB: -6)).derive(x, sampleRate: rate)
        try #require(result.pattern.discretePattern.count == 1)
        let t = result.pattern.discretePattern[0]
        #expect(abs(t.time - 300) <= 2, "\(t.time)")
        #expect(abs(t.amplitude - 0.501_187) < 1e-5)
    }

    private func f(_ x: Double) -> String { String(format: "%.3f", x) }
}
