import Foundation
import PulsarCore
import Testing

/// `MetaHapticRenderer` against values worked out by hand from docs/actuators.md, "Rendering
/// through a Meta actuator config" (console ACF: carrier 20–250 Hz, ducking 0.5; bursts 55 Hz
/// 27 ms sine … 130 Hz 20 ms square), at 48 kHz.
struct MetaHapticRendererTests {
    static let rate = SampleRate(48_000)!

    static func console() throws -> MetaActuatorConfig {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/actuators/meta-console.acf").path
        return try MetaActuatorConfig.load(path: path).config
    }

    typealias A = LofeltClip.AmplitudePoint
    typealias F = LofeltClip.FrequencyPoint

    static func render(_ clip: LofeltClip, _ config: MetaActuatorConfig) -> (MetaHapticRenderer, [Float]) {
        let r = MetaHapticRenderer(clip: clip, config: config, sampleRate: rate)
        return (r, r.render(frames: 0..<r.frameCount))
    }

    static func sine(_ cycles: Double) -> Double { sin(2 * Double.pi * (cycles - cycles.rounded(.down))) }

    @Test func constantClipIsA20HzSineOfPeakHalf() throws {
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 0.5), A(time: 1, amplitude: 0.5)],
                              frequency: [F(time: 0, frequency: 0), F(time: 1, frequency: 0)])
        let (r, s) = Self.render(clip, try Self.console())
        #expect(r.frameCount == 48_000)
        var rising = 0
        for n in 1..<s.count where s[n - 1] < 0 && s[n] >= 0 { rising += 1 }
        #expect(rising == 19)  // 20 cycles from phase 0: the first starts at sample 0 itself
        #expect(abs(Double(s.map(abs).max()!) - 0.5) < 1e-6)
        for n in [0, 1, 600, 12_345, 47_999] {
            #expect(abs(Double(s[n]) - 0.5 * Self.sine(20 * Double(n) / 48_000)) < 1e-6)
        }
    }

    @Test func withoutFrequencyEnvelopeTheCarrierIsMidBand() throws {
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 1), A(time: 0.5, amplitude: 1)])
        let (_, s) = Self.render(clip, try Self.console())
        for n in [7, 1000, 23_999] {
            #expect(abs(Double(s[n]) - Self.sine(135 * Double(n) / 48_000)) < 1e-6)
        }
    }

    @Test func frequencyRampSweeps20To250HzLinearly() throws {
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 1), A(time: 1, amplitude: 1)],
                              frequency: [F(time: 0, frequency: 0), F(time: 1, frequency: 1)])
        let (_, s) = Self.render(clip, try Self.console())
        // f(k) = 20 + 230 k / 47999 Hz; phase(n) = Σ_{k<n} f(k) / 48000.
        for n in [1, 1000, 24_000, 40_000, 47_999] {
            let x = Double(n)
            let cycles = (20 * x + 230 / 47_999 * x * (x - 1) / 2) / 48_000
            #expect(abs(Double(s[n]) - Self.sine(cycles)) < 2e-6, "sample \(n)")
        }
        // Measured: each half period between zero crossings against f at its middle sample.
        var crossings: [Int] = []
        for k in 2..<s.count where (s[k - 1] < 0) != (s[k] < 0) { crossings.append(k) }
        #expect(crossings.count > 200)
        for (c1, c2) in zip(crossings, crossings.dropFirst()) {
            let measured = 48_000 / (2 * Double(c2 - c1))
            let expected = 20 + 230 * (Double(c1 + c2) / 2) / 47_999
            #expect(abs(measured / expected - 1) < 0.03, "half period \(c1)..<\(c2)")
        }
    }

    @Test func emphasisAtFrequency0IsA55HzSineBurstOf1296SamplesOverADuckedCarrier() throws {
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 0.5),
                                          A(time: 0.1, amplitude: 0.5, emphasis: .init(amplitude: 1, frequency: 0)),
                                          A(time: 0.2, amplitude: 0.5)],
                              frequency: [F(time: 0, frequency: 0)])
        let (_, s) = Self.render(clip, try Self.console())
        let start = 4800, length = 1296  // 0.1 s · 48000; trunc(27 ms · 48000)
        for n in [start - 1, start + length, start + length + 100] {
            #expect(abs(Double(s[n]) - 0.5 * Self.sine(20 * Double(n) / 48_000)) < 1e-6, "carrier \(n)")
        }
        for n in start..<(start + length) {
            let carrier = 0.5 * Self.sine(20 * Double(n) / 48_000)
            let burst = Self.sine(55 * Double(n - start) / 48_000)
            let expected = min(1, max(-1, 0.5 * carrier + burst))
            #expect(abs(Double(s[n]) - expected) < 2e-6, "burst \(n)")
        }
    }

    static func burstAlone(_ f: Double, _ config: MetaActuatorConfig) -> [Float] {
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 0, emphasis: .init(amplitude: 1, frequency: f)),
                                          A(time: 0.1, amplitude: 0)])
        return render(clip, config).1
    }

    @Test func emphasisAtFrequency1IsA130HzSquareOf20Ms() throws {
        let s = Self.burstAlone(1, try Self.console())
        for k in 0..<960 {
            let p = 130 * Double(k) / 48_000
            #expect(Double(s[k]) == (p - p.rounded(.down) < 0.5 ? 1 : -1), "sample \(k)")
        }
        #expect(s[960...].allSatisfy { $0 == 0 })
    }

    @Test func emphasisAtHalfCrossFadesSineAndSquareAt92_5HzOver23_5Ms() throws {
        let s = Self.burstAlone(0.5, try Self.console())
        for k in [0, 1, 100, 259, 260, 300, 600, 1127] {
            let c = 92.5 * Double(k) / 48_000, p = c - c.rounded(.down)
            #expect(abs(Double(s[k]) - (0.5 * sin(2 * Double.pi * p) + 0.5 * (p < 0.5 ? 1 : -1))) < 1e-6, "sample \(k)")
        }
        #expect(s[1128] == 0)  // 23.5 ms · 48000 = 1128 samples
    }

    @Test func fadeOutOf50PercentEndsTheBurstAtHalfItsGain() throws {
        var config = try Self.console()
        config.emphasis.fadeOutPercent = 50
        let s = Self.burstAlone(0, config)
        // gain(k) = 1 − 0.5 · k / 1295 (1296 samples, the ramp reaches its end on the last).
        for k in [1, 648, 1295] {
            let gain = 1 - 0.5 * Double(k) / 1295
            #expect(abs(Double(s[k]) - gain * Self.sine(55 * Double(k) / 48_000)) < 1e-6, "sample \(k)")
        }
        #expect(s[1296] == 0)
    }

    @Test func lengthIsTheClipSpanAndEventsKeepTheirSamples() throws {
        let config = try Self.console()
        let late = LofeltClip(amplitude: [A(time: 0.05, amplitude: 1), A(time: 0.15, amplitude: 1)])
        let (r, s) = Self.render(late, config)
        #expect(r.frameCount == 4800)
        #expect(s[0..<2400].allSatisfy { $0 == 0 })  // silent until 0.05 s, on the clip's own clock
        #expect(s[2401] != 0)
        #expect(MetaHapticRenderer(clip: LofeltClip(), config: config, sampleRate: Self.rate).frameCount == 0)
    }

    @Test func renderingFromAnOffsetEqualsTheTailOfARenderFromZero() throws {
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 0.1), A(time: 0.3, amplitude: 0.9, emphasis: .init(amplitude: 0.7, frequency: 0.3)),
                                          A(time: 0.3, amplitude: 0.2), A(time: 0.61, amplitude: 0.6, emphasis: .init(amplitude: 1, frequency: 0.9)),
                                          A(time: 1.2, amplitude: 0)],
                              frequency: [F(time: 0.1, frequency: 0.2), F(time: 0.5, frequency: 0.9), F(time: 0.5, frequency: 0.1), F(time: 1.1, frequency: 0.6)])
        let r = MetaHapticRenderer(clip: clip, config: try Self.console(), sampleRate: Self.rate)
        let whole = r.render(frames: 0..<r.frameCount)
        for from: FrameIndex in [1, 4799, 14_400, 29_280, 50_000] {
            #expect(r.render(frames: from..<r.frameCount) == Array(whole[Int(from)...]), "from \(from)")
        }
    }

    @Test func theLoaderKeepsTheClipsRawValues() throws {
        let text = #"{"version":{"major":1,"minor":0,"patch":0},"signals":{"continuous":{"envelopes":{"#
            + #""amplitude":[{"time":0,"amplitude":0.25},{"time":0.1,"amplitude":0.36,"emphasis":{"amplitude":0.49,"frequency":0.3}}],"#
            + #""frequency":[{"time":0,"frequency":0.64}]}}}}"#
        let loaded = try PatternLoader().decode(Array(text.utf8), format: .lofelt)
        let clip = try #require(loaded.lofeltClip)
        #expect(clip.amplitude == [A(time: 0, amplitude: 0.25), A(time: 0.1, amplitude: 0.36, emphasis: .init(amplitude: 0.49, frequency: 0.3))])
        #expect(clip.frequency == [F(time: 0, frequency: 0.64)])
        #expect(loaded.pattern.continuousPattern.amplitude[0].value == 0.5)  // today's mapping unchanged
    }

    @Test(.enabled(if: Corpus.available, "needs ../shared/corpus"))
    func everyCorpusClipRendersThroughTheConsoleConfig() throws {
        let config = try Self.console()
        var lines: [String] = []
        for path in try Corpus.files(in: "lofelt/clips", ext: "haptic") {
            let loaded = try PatternLoader().load(contentsOf: path)
            let clip = try #require(loaded.lofeltClip)
            let r = MetaHapticRenderer(clip: clip, config: config, sampleRate: Self.rate)
            let span = (clip.amplitude.last!.time - clip.amplitude.first!.time) * 48_000
            #expect(r.frameCount == FrameIndex((span + 1e-6).rounded(.down)), "\(Corpus.name(path))")
            let acf = r.render(frames: 0..<r.frameCount)
            #expect(!acf.contains { $0.isNaN || abs($0) > 1 }, "\(Corpus.name(path))")
            let today = try PatternRenderer(pattern: loaded.pattern, sampleRate: Self.rate, profile: .wideband)
            let old = today.render(frames: 0..<today.frameCount)
            lines.append("\(Corpus.name(path)) \(String(format: "%.3f", Self.envelopeCorrelation(old, acf)))")
        }
        print("envelope correlation, today's render vs console ACF:\n" + lines.joined(separator: "\n"))
    }

    /// Pearson correlation of the 10 ms RMS envelopes of `a` and `b` over their common length.
    static func envelopeCorrelation(_ a: [Float], _ b: [Float]) -> Double {
        func envelope(_ x: [Float], _ count: Int) -> [Double] {
            stride(from: 0, to: count, by: 480).map { i in
                let block = x[i..<min(i + 480, count)]
                return (block.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(block.count)).squareRoot()
            }
        }
        let count = min(a.count, b.count)
        let (x, y) = (envelope(a, count), envelope(b, count))
        guard x.count > 1 else { return .nan }
        let mx = x.reduce(0, +) / Double(x.count), my = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in x.indices { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) * (x[i] - mx); syy += (y[i] - my) * (y[i] - my) }
        return sxy / (sxx * syy).squareRoot()
    }
}
