import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// Live sharpness on a pattern voice: from its first change the voice's haptics run on an
/// oscillator of its own that takes over the pattern's phase at the effective frame, its
/// frequency the pattern's moved by the ramped offset and clamped into the band; no step
/// reaches the actuator; a realtime voice refuses it.
@Suite struct SharpnessTests {
    static let rate = 48_000.0
    /// The tone of `LiveParameterTests.mixer()`: 0.6 at frequency 0.375 of the 60…300 Hz band.
    static let hertz = 150.0
    static let low = 60.0, span = 240.0

    /// The tone's amplitude as the signal model has it: the limiter of gain × envelope.
    static func amplitude() throws -> Double {
        Double(Limiter.apply(Float(try LiveParameterTests.mixer().settings.profile.gain * 0.6)))
    }

    /// The effective frames of the logged sharpness commands.
    static func sharpnessFrames(_ events: [EngineEvent]) -> [StreamFrame] {
        events.compactMap { e in
            if case let .command(.parameter(.sharpness, _), _, _, frame, _) = e { return frame }
            return nil
        }
    }

    /// Frequency from rising zero crossings in `samples[range]`.
    static func frequency(_ samples: [Float], _ range: Range<Int>) -> Double {
        let ups = range.dropLast().filter { samples[$0] <= 0 && samples[$0 + 1] > 0 }
        guard let first = ups.first, let last = ups.last, last > first else { return 0 }
        // Interpolated crossing instants.
        func at(_ i: Int) -> Double { Double(i) + Double(-samples[i] / (samples[i + 1] - samples[i])) }
        return Double(ups.count - 1) * rate / (at(last) - at(first))
    }

    @Test("Sharpness 0.25 over 10 ms: before its effective frame the voice is its plain render bit for bit; from it, A·sin 2πφ with φ advancing by (60 + 240·(0.375 + 0.25·min(k/480, 1)))/48000 per sample from the plain render's phase")
    func rampFollowsTheFormula() throws {
        let (played, events, start) = try LiveParameterTests.run(periods: 140) { period, _, voice in
            if period == 40 { #expect(voice.setSharpness(0.25, over: 0.010)) }
        }
        let e = Int(try #require(Self.sharpnessFrames(events).first).index)
        let s = Int(start.index)
        let a = try Self.amplitude()
        let render = try LiveParameterTests.alone(frames: played.count)
        // The plain render is the formula's tone (independently of the engine) once its onset,
        // an 8 ms S-curve (signal model §4.3), is over.
        var plainWorst = 0.0
        for n in 384..<(e - s) {
            let tone: Double = a * sin(2 * Double.pi * Self.hertz * Double(n) / Self.rate)
            plainWorst = max(plainWorst, abs(Double(render[n]) - tone))
        }
        #expect(plainWorst < 1e-5, "plain render against A·sin(2π·150·t) after its 8 ms onset: \(plainWorst)")
        #expect((s..<e).allSatisfy { played[$0] == render[$0 - s] }, "untouched before the effective frame")
        var phase = Self.hertz * Double(e - s) / Self.rate
        var worst = 0.0
        for f in e..<played.count {
            worst = max(worst, abs(Double(played[f]) - a * sin(2 * .pi * phase)))
            let offset = 0.25 * min(Double(f - e) / 480, 1)
            phase += (Self.low + Self.span * min(max(0.375 + offset, 0), 1)) / Self.rate
        }
        #expect(worst < 1e-4, "largest departure from the formula \(worst)")
        #expect(played.count - e > 20_000, "the formula was checked over \(played.count - e) frames")
        let settled = Self.frequency(played, (e + 960)..<(e + 960 + 9_600))
        #expect(abs(settled - 210) < 0.5, "0.375 + 0.25 → 210 Hz, measured \(settled)")
    }

    @Test("Sharpness is clamped into the band: +1 holds the top (300 Hz), −1 the bottom (60 Hz), and back to 0 the pattern's own 150 Hz")
    func clampedIntoTheBand() throws {
        let (played, events, _) = try LiveParameterTests.run(periods: 300) { period, _, voice in
            if period == 20 { voice.setSharpness(1) }
            if period == 110 { voice.setSharpness(-1, over: 0.02) }
            if period == 200 { voice.setSharpness(0) }
        }
        let frames = Self.sharpnessFrames(events).map { Int($0.index) }
        try #require(frames.count == 3)
        let window = 12_000
        let top = Self.frequency(played, (frames[0] + 480)..<(frames[0] + 480 + window))
        let bottom = Self.frequency(played, (frames[1] + 1_440)..<(frames[1] + 1_440 + window))
        let home = Self.frequency(played, (frames[2] + 480)..<(frames[2] + 480 + window))
        #expect(abs(top - 300) < 0.5, "top \(top)")
        #expect(abs(bottom - 60) < 0.5, "bottom \(bottom)")
        #expect(abs(home - 150) < 0.5, "home \(home)")
    }

    @Test("Sharpness jumps, glides, pauses and resumes, and intensity changes: no sample steps further than the steepest tone in the band allows, 2π·300/48000·A")
    func noClicks() throws {
        let (played, events, start) = try LiveParameterTests.run(periods: 400) { period, _, voice in
            switch period {
            case 30: voice.setSharpness(1)
            case 60: voice.setSharpness(-1)
            case 61: voice.setSharpness(0.7, over: 0.003)
            case 90: voice.pause()
            case 95: voice.setSharpness(-0.6)
            case 120: voice.resume()
            case 121: voice.setIntensity(1.5, over: 0.05)
            case 150: voice.setSharpness(0.2, over: 0.2)
            case 200: voice.setSharpness(-1)
            case 201: voice.pause()
            case 202: voice.resume()
            default: break
            }
        }
        #expect(Self.sharpnessFrames(events).count == 6)
        let s = Int(start.index)
        // A tone of amplitude ≤ L(1.5·0.6) at ≤ 300 Hz moves at most 2π·300/48000 of it per sample.
        let bound = 2 * Double.pi * 300 / Self.rate * Double(Limiter.apply(Float(1.5 * 0.6)))
        let steps = (s..<(played.count - 1)).map { abs(Double(played[$0 + 1]) - Double(played[$0])) }
        let worst = steps.max() ?? 0
        #expect(worst <= bound * 1.01, "largest step \(worst), bound \(bound)")
        #expect(worst > bound * 0.3, "the test saw the tone: largest step \(worst)")
    }

    @Test("A realtime voice refuses sharpness (its frequency is its content's); a value outside −1…1 is clamped")
    func realtimeRefusesAndValuesClamp() throws {
        let clock = ManualClock()
        let device = SimulatedDevice(clock: clock, behaviour: SimulatedDevice.Behaviour())
        let engine = try HapticEngine(device: device, sampleRate: SampleRate(48_000)!, channels: 1, monotonic: clock, voiceLimit: 4)
        let realtime = try engine.makeVoice(try LiveParameterTests.mixer(), mode: .realtime)
        #expect(!realtime.setSharpness(0.5))
        #expect(!realtime.setSharpnessCurve([(clock.now(), 0.5)]))
        let voice = try engine.makeVoice(try LiveParameterTests.mixer())
        #expect(voice.setSharpness(7))
        #expect(voice.setSharpness(-.infinity))
        #expect(voice.setSharpness(.nan))
        try engine.step()
        engine.poll()
        let values = engine.loggedEvents.compactMap { e -> Double? in
            if case let .command(.parameter(.sharpness, target), _, _, _, _) = e { return target.value }
            return nil
        }
        #expect(values == [1, -1, 0])
    }
}

extension SharpnessTests {
    /// Six transients at rest, 120 ms apart, over the band, as a haptic-only mixer.
    static func clicks() throws -> PresetMixer {
        let points: [(Double, Double)] = [(0.9, 0.3), (0.9, 0.6), (0.9, 0.9), (0.5, 0), (0.7, 0.1), (0.7, 1)]
        let pattern = PatternData(discretePattern: points.enumerated().map { i, p in
            DiscretePoint(time: Double(i) * 120, amplitude: p.0, frequency: p.1)
        })
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "c", name: "c", duration: 0, pattern: pattern), settings: settings)
    }

    /// The click train played from frame 0 with sharpness `shift` set before it starts.
    static func clickTrain(shift: Double?) throws -> [Float] {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = 200 * 256 + 48_000
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let engine = try HapticEngine(device: device, sampleRate: SampleRate(48_000)!, channels: 1, monotonic: clock, voiceLimit: 2)
        let voice = try engine.makeVoice(try clicks())
        if let shift { voice.setSharpness(shift) }
        voice.play()
        for _ in 0..<200 {
            try engine.step()
            engine.poll()
            clock.advance(seconds: 256.0 / 48_000)
        }
        let start = engine.loggedEvents.compactMap { e -> Int? in
            if case let .command(.play, _, _, frame, _) = e { return Int(frame.index) }
            return nil
        }.first!
        return Array(device.recording[start...])
    }

    @Test("Riding the voice's oscillator, transients at rest are still felt: each burst keeps at least 80% of its plain peak, with sharpness from −0.7 to +0.7",
          arguments: [-0.7, -0.3, 0.3, 0.7])
    func transientsAreFelt(shift: Double) throws {
        let plain = try Self.clickTrain(shift: nil)
        let moved = try Self.clickTrain(shift: shift)
        for k in 0..<6 {
            let window = (k * 5_760)..<(k * 5_760 + 2_000)
            let p = window.map { abs(plain[$0]) }.max()!, m = window.map { abs(moved[$0]) }.max()!
            #expect(p > 0.45, "burst \(k) sounds in the plain render: \(p)")
            #expect(m >= 0.8 * p, "burst \(k): \(m) against \(p) plain")
        }
    }
}
