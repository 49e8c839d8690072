import Foundation
import PulsarCore
import Testing

/// Band-limited emphasis bursts (docs/actuators.md, "Band-limited bursts"): the shapes' sine series
/// against the shapes themselves and textbook sums, the harmonic count by the written rule, and
/// rendered bursts against the series worked out here.
struct BandLimitedBurstTests {
    typealias Shape = MetaActuatorConfig.Shape

    @Test("Each shape's sine series, summed far, is the shape (away from its corners), and cut short keeps the textbook share of its power",
          arguments: Shape.allCases)
    func seriesIsTheShape(shape: Shape) {
        for p in stride(from: 0.03, to: 0.97, by: 0.0625) where abs(p - 0.5) > 0.03 {
            let far = BurstWaveform.limited(shape, p, harmonics: 20_000)
            #expect(abs(far - BurstWaveform.whole(shape, p)) < 2e-3, "\(shape) at \(p): \(far)")
        }
        // Mean squares of the whole shapes: saw and triangle 1/3, sine 1/2, square 1; by Parseval
        // the series' Σ bₖ² / 2 is the same.
        let power: [Shape: Double] = [.saw: 1.0 / 3, .sine: 0.5, .square: 1, .triangle: 1.0 / 3]
        let series = (1...100_000).reduce(0.0) { $0 + pow(BurstWaveform.coefficient(shape, $1), 2) / 2 }
        #expect(abs(series - power[shape]!) < 1e-5, "\(shape): \(series)")
    }

    @Test("A square cut after its 7th harmonic keeps (8/π²)(1 + 1/9 + 1/25 + 1/49) of its power; a sine keeps all; the mix of two shapes by its summed coefficients")
    func keptShares() {
        let square = 8 / (Double.pi * Double.pi) * (1 + 1.0 / 9 + 1.0 / 25 + 1.0 / 49)
        #expect(abs(BurstWaveform.keptShare((.square, .square), weights: (0, 1), harmonics: 7) - square) < 1e-4)
        #expect(BurstWaveform.keptShare((.sine, .sine), weights: (1, 0), harmonics: 1) == 1)
        // Half sine, half square, one harmonic kept: c₁ = 0.5 + 0.5 · 4/π; the whole mix's power
        // is 0.25 · ½ + 0.25 · 1 + 2 · 0.25 · ⟨sin, square⟩ with ⟨sin, square⟩ = 2/π, over 2 (Σ cₖ²/2 form).
        let c1 = 0.5 + 2 / Double.pi
        let total = 2 * (0.25 * 0.5 + 0.25 * 1 + 0.5 * 2 / Double.pi)
        #expect(abs(BurstWaveform.keptShare((.sine, .square), weights: (0.5, 0.5), harmonics: 1) - c1 * c1 / total) < 1e-4)
    }

    @Test("The harmonics kept: k · h ≤ the limit (a tie kept) and below half the rate, the fundamental always")
    func harmonicCount() {
        #expect(BurstWaveform.harmonics(hertz: 130, limit: 1000, rate: 48_000) == 7)
        #expect(BurstWaveform.harmonics(hertz: 130, limit: 910, rate: 48_000) == 7)
        #expect(BurstWaveform.harmonics(hertz: 130, limit: 909.9, rate: 48_000) == 6)
        #expect(BurstWaveform.harmonics(hertz: 130, limit: 50_000, rate: 2_000) == 7)  // 7 · 130 = 910 < 1000
        #expect(BurstWaveform.harmonics(hertz: 160, limit: 500, rate: 48_000) == 3)
        #expect(BurstWaveform.harmonics(hertz: 600, limit: 500, rate: 48_000) == 1)
        // At most 256: a 1 Hz burst limited at 20 kHz would have 20 000.
        #expect(BurstWaveform.harmonics(hertz: 1, limit: 20_000, rate: 48_000) == 256)
        #expect(BurstWaveform.harmonics(hertz: 1e-9, limit: 1e300, rate: 48_000) == 256)
    }

    /// The console config with `band_limit_hz` and a fade, as text.
    static func limitedConsole(limit: Double, fade: Double = 0, gain: Double = 1) throws -> MetaActuatorConfig {
        let text = """
        { metadata: { version: '1' },
          continuous: { gain: 1, emphasis_ducking: 0.5, frequency_min: 20, frequency_max: 250 },
          emphasis: { gain: \(gain), fade_out_percent: \(fade), band_limit_hz: \(limit),
            frequency_min: { output_frequency: 55, duration_ms: 27, shape: 'sine' },
            frequency_max: { output_frequency: 130, duration_ms: 20, shape: 'square' } } }
        """
        return try MetaActuatorConfig.decode(Array(text.utf8)).config
    }

    @Test("A 130 Hz square emphasis band-limited at 1 kHz is (4/π)(sin θ + sin 3θ/3 + sin 5θ/5 + sin 7θ/7), sample for sample; the 55 Hz sine end is unchanged")
    func renderedSquareIsItsSeries() throws {
        let s = MetaHapticRendererTests.burstAlone(1, try Self.limitedConsole(limit: 1000))
        for k in 0..<960 {
            let c = 130 * Double(k) / 48_000, theta = 2 * Double.pi * (c - c.rounded(.down))
            let expected = 4 / Double.pi * (sin(theta) + sin(3 * theta) / 3 + sin(5 * theta) / 5 + sin(7 * theta) / 7)
            #expect(abs(Double(s[k]) - min(max(expected, -1), 1)) < 1e-6, "sample \(k)")
        }
        #expect(s[960...].allSatisfy { $0 == 0 })
        let whole = MetaHapticRendererTests.burstAlone(0, try MetaHapticRendererTests.console())
        #expect(MetaHapticRendererTests.burstAlone(0, try Self.limitedConsole(limit: 1000)) == whole)
    }

    /// Energy above `hz` of `x` (at 48 kHz) under a Hann window, in dB of the whole: a direct
    /// DFT, `x` padded to twice its length.
    static func shareAbove(_ x: [Float], hz: Double, window: Bool) -> Double {
        let n = 2 * x.count
        let table = (0..<n).map { 2 * Double.pi * Double($0) / Double(n) }
        var high = 0.0, total = 0.0
        for bin in 1..<(n / 2) {
            var re = 0.0, im = 0.0
            for (i, v) in x.enumerated() {
                let w = window ? 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(x.count - 1)) : 1
                let angle = table[(bin * i) % n]
                re += Double(v) * w * cos(angle)
                im -= Double(v) * w * sin(angle)
            }
            total += re * re + im * im
            if Double(bin) * 48_000 / Double(n) > hz { high += re * re + im * im }
        }
        return 10 * log10(high / total)
    }

    @Test("A long 130 Hz square burst band-limited at 1 kHz has nothing above 1 kHz (under −60 dB; whole, −13 dB); a 20 ms burst faded out gains over 10 dB, its edges what is left")
    func spectrumAboveTheLimit() throws {
        // At gain 0.8: the series peaks at 1.18, which clipping at ±1 would cut into harmonics again.
        var long = try Self.limitedConsole(limit: 1000, gain: 0.8)
        long.emphasis.frequencyMax.durationMs = 200
        var wholeLong = try MetaHapticRendererTests.console()
        wholeLong.emphasis.frequencyMax.durationMs = 200
        // The burst's middle 100 ms (it sounds from sample 0 to 9600 of a 0.3 s clip).
        let clip = LofeltClip(amplitude: [.init(time: 0, amplitude: 0, emphasis: .init(amplitude: 1, frequency: 1)), .init(time: 0.3, amplitude: 0)])
        func middle(_ config: MetaActuatorConfig) -> [Float] { Array(MetaHapticRendererTests.render(clip, config).1[2400..<7200]) }
        let limited = Self.shareAbove(middle(long), hz: 1000, window: true)
        let whole = Self.shareAbove(middle(wholeLong), hz: 1000, window: true)
        // The whole square's harmonics from the 9th (1 170 Hz): 1 − (8/π²)(1 + 1/9 + 1/25 + 1/49) = −13 dB.
        #expect(abs(whole - 10 * log10(1 - 8 / (Double.pi * Double.pi) * (1 + 1.0 / 9 + 1.0 / 25 + 1.0 / 49))) < 0.5, "\(whole) dB")
        #expect(limited < -60, "\(limited) dB")
        // The 20 ms burst as shipped configs draw it, faded to 0: its start at full gain and its
        // length are a wideband envelope whatever the waveform.
        var faded = try MetaHapticRendererTests.console()
        faded.emphasis.fadeOutPercent = 100
        let shortWhole = Self.shareAbove(Array(MetaHapticRendererTests.burstAlone(1, faded)[0..<2400]), hz: 1200, window: false)
        let shortLimited = Self.shareAbove(Array(MetaHapticRendererTests.burstAlone(1, try Self.limitedConsole(limit: 1000, fade: 100, gain: 0.8))[0..<2400]),
                                           hz: 1200, window: false)
        print("measured: 130 Hz square burst above 1 kHz, 100 ms steady: whole \(whole) dB, band-limited \(limited) dB; 20 ms faded out, above 1.2 kHz: whole \(shortWhole) dB, band-limited \(shortLimited) dB")
        #expect(shortLimited < shortWhole - 10, "\(shortWhole) → \(shortLimited) dB")
    }

    @Test("ducking_ramp_ms: the carrier's gain falls linearly to emphasis_ducking from a burst's start and climbs back from its end, also when the burst ends before the ramp does",
          arguments: [(2.0, 0.0), (40.0, 0.325)])
    func duckingRamp(rampMs: Double, gainAtEnd: Double) throws {
        // Emphasis gain 0: only the carrier sounds (0.5 at 20 Hz), ducked to 0 under a 27 ms
        // (1296-sample) burst from 0.1 s (sample 4800).
        let text = """
        { metadata: { version: '1' },
          continuous: { gain: 1, emphasis_ducking: 0, ducking_ramp_ms: \(rampMs), frequency_min: 20, frequency_max: 250 },
          emphasis: { gain: 0, fade_out_percent: 0,
            frequency_min: { output_frequency: 55, duration_ms: 27, shape: 'sine' },
            frequency_max: { output_frequency: 130, duration_ms: 20, shape: 'square' } } }
        """
        let config = try MetaActuatorConfig.decode(Array(text.utf8)).config
        #expect(config.continuous.duckingRampMs == rampMs)
        typealias A = LofeltClip.AmplitudePoint
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 0.5), A(time: 0.1, amplitude: 0.5, emphasis: .init(amplitude: 1, frequency: 0)),
                                          A(time: 0.3, amplitude: 0.5)],
                              frequency: [.init(time: 0, frequency: 0), .init(time: 0.3, frequency: 0)])
        let s = MetaHapticRendererTests.render(clip, config).1
        let ramp = rampMs * 48
        func gain(_ n: Int) -> Double {
            if n < 4800 { return 1 }
            if n < 6096 { return max(1 - Double(n - 4800) / ramp, 0) }
            return gainAtEnd + (1 - gainAtEnd) * min(Double(n - 6096) / ramp, 1)
        }
        #expect(abs(gain(6096) - gainAtEnd) < 1e-12)
        for n in stride(from: 4000, to: 14_000, by: 7) {
            let expected = 0.5 * MetaHapticRendererTests.sine(20 * Double(n) / 48_000) * gain(n)
            #expect(abs(Double(s[n]) - expected) < 1e-6, "sample \(n)")
        }
    }

    @Test("rise_ms: a burst's gain rises as 0.5 − 0.5 · cos(π · k / R) over R = 2 ms (96 samples), then as Meta's")
    func rise() throws {
        var config = try MetaHapticRendererTests.console()
        config.emphasis.riseMs = 2
        let s = MetaHapticRendererTests.burstAlone(1, config)
        for k in 0..<960 {
            let c = 130 * Double(k) / 48_000, square: Double = c - c.rounded(.down) < 0.5 ? 1 : -1
            let gain = k < 96 ? 0.5 - 0.5 * cos(Double.pi * Double(k) / 96) : 1
            #expect(abs(Double(s[k]) - square * gain) < 1e-6, "sample \(k)")
        }
        #expect(s[0] == 0 && s[960...].allSatisfy { $0 == 0 })
    }

    @Test("band_limit_hz below the bursts' own frequency is refused at its place; the project's configs read without warnings, their keys as written")
    func reading() throws {
        let text = """
        { metadata: { version: '1' },
          continuous: { gain: 1, emphasis_ducking: 0.5, frequency_min: 20, frequency_max: 250 },
          emphasis: { gain: 1, fade_out_percent: 0, band_limit_hz: 100,
            frequency_min: { output_frequency: 55, duration_ms: 27, shape: 'sine' },
            frequency_max: { output_frequency: 130, duration_ms: 20, shape: 'square' } } }
        """
        #expect {
            _ = try MetaActuatorConfig.decode(Array(text.utf8))
        } throws: { error in
            let message = "\(error)"
            return message.contains("$.emphasis.band_limit_hz") && message.contains("below the bursts' own frequency")
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // Read as this project reads its configs (`Actuator`: Meta's sections and the project's `limits`).
        let dualsense = try Actuator.load(path: root.appendingPathComponent("Resources/actuators/dualsense.acf").path)
        #expect(dualsense.warnings.isEmpty, "\(dualsense.warnings)")
        let d = try #require(dualsense.actuator.burstConfig)
        #expect(d.emphasis.bandLimitHertz == 400 && d.emphasis.riseMs == 3 && d.continuous.duckingRampMs == 2)
        let shaker = try Actuator.load(path: root.appendingPathComponent("Resources/actuators/bass-shaker.acf").path)
        #expect(shaker.warnings.isEmpty, "\(shaker.warnings)")
        let b = try #require(shaker.actuator.burstConfig)
        #expect(b.emphasis.bandLimitHertz == nil && b.emphasis.riseMs == 5 && b.continuous.duckingRampMs == 5)
    }
}
