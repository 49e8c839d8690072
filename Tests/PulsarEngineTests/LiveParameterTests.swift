import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// Live intensity and master gain: each change starts at its effective frame and ramps linearly,
/// sample by sample, as the formula says; past 1 the limiter shapes the product; the log carries
/// every ramp and replays it.
@Suite struct LiveParameterTests {
    static let rate = SampleRate(48_000)!

    /// A steady 150 Hz haptic tone at 0.6, 2 s, on a haptic-only mixer.
    static func mixer() throws -> PresetMixer {
        let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.6), ValuePoint(time: 2000, value: 0.6)],
                                                                       frequency: [ValuePoint(time: 0, value: 0.375)]))
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "t", name: "t", duration: 0, pattern: pattern), settings: settings)
    }

    /// Plays one voice on a driven engine; `during(period, engine, voice)` runs before each step.
    /// Returns the recording, the log and the voice's play frame.
    static func run(periods: Int, during: (Int, HapticEngine, HapticVoice) -> Void) throws -> ([Float], [EngineEvent], StreamFrame) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = periods * 256 + 48_000
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let engine = try HapticEngine(device: device, sampleRate: rate, channels: 1, monotonic: clock, voiceLimit: 4)
        let voice = try engine.makeVoice(try mixer())
        voice.play()
        for period in 0..<periods {
            during(period, engine, voice)
            try engine.step()
            engine.poll()
            clock.advance(seconds: 256.0 / 48_000)
        }
        let play = engine.loggedEvents.compactMap { e -> StreamFrame? in
            if case let .command(.play, _, _, frame, _) = e { return frame }
            return nil
        }.first!
        return (device.recording, engine.loggedEvents, play)
    }

    /// The effective frames of the logged parameter commands.
    static func parameterFrames(_ events: [EngineEvent]) -> [StreamFrame] {
        events.compactMap { e in
            if case let .command(.parameter, _, _, frame, _) = e { return frame }
            return nil
        }
    }

    /// The voice alone, rendered offline from its timeline's start.
    static func alone(frames: Int) throws -> [Float] {
        var out = [Float](repeating: 0, count: frames)
        _ = try out.withUnsafeMutableBufferPointer { try mixer().render(into: $0, from: .zero) }
        return out
    }

    @Test("An intensity ramp over 10 ms starts at its effective frame and follows 1 + (0.25 − 1)·k/480, sample by sample, then holds 0.25")
    func rampFollowsTheFormula() throws {
        let (played, events, start) = try Self.run(periods: 100) { period, _, voice in
            if period == 40 { voice.setIntensity(0.25, over: 0.010) }
        }
        let e = try #require(Self.parameterFrames(events).first)
        let render = try Self.alone(frames: played.count)
        var worst: Double = 0
        for f in Int(start.index)..<played.count {
            let k = f - Int(e.index)
            let g = k < 0 ? 1 : k >= 480 ? 0.25 : 1 + (0.25 - 1) * Double(k) / 480
            worst = max(worst, abs(Double(played[f]) - g * Double(render[f - Int(start.index)])))
        }
        #expect(worst < 1e-6, "largest departure from the formula \(worst)")
        // Before the effective frame the voice is untouched, bit for bit.
        let before = (Int(start.index)..<Int(e.index)).allSatisfy { played[$0] == render[$0 - Int(start.index)] }
        #expect(before)
    }

    @Test("Set at once, the intensity still ramps, over 4 ms (192 frames): no step reaches the actuator")
    func atOnceIsSmoothed() throws {
        let (played, events, start) = try Self.run(periods: 80) { period, _, voice in
            if period == 30 { voice.setIntensity(0) }
        }
        let e = Int(try #require(Self.parameterFrames(events).first).index)
        let render = try Self.alone(frames: played.count)
        for k in [0, 48, 96, 191] {
            let g = 1 - Double(k) / 192
            #expect(abs(Double(played[e + k]) - g * Double(render[e + k - Int(start.index)])) < 1e-6, "frame \(k) of the ramp")
        }
        #expect(played[(e + 192)...].allSatisfy { $0 == 0 }, "silent once the ramp is over")
        // The largest step between neighbouring samples stays that of the tone itself.
        let toneStep = zip(render, render.dropFirst()).map { abs($0 - $1) }.max()!
        let playedStep = zip(played[e...], played[(e + 1)...]).map { abs($0 - $1) }.max()!
        #expect(playedStep <= toneStep + 1e-6)
    }

    @Test("Past 1 the product goes through the limiter: an intensity of 3 gives Limiter(3·x), below its ceiling")
    func pastOneIsLimited() throws {
        let (played, events, start) = try Self.run(periods: 60) { period, _, voice in
            if period == 20 { voice.setIntensity(3) }
        }
        let e = Int(try #require(Self.parameterFrames(events).first).index)
        let render = try Self.alone(frames: played.count)
        for f in (e + 192)..<played.count {
            #expect(played[f] == Limiter.apply(3 * render[f - Int(start.index)]), "frame \(f)")
            if played[f] != Limiter.apply(3 * render[f - Int(start.index)]) { break }
        }
        #expect(played.allSatisfy { abs($0) < 1 })
    }

    @Test("An intensity curve on the engine's clock passes through its points at the frames the device clock gives their times; the master gain multiplies it")
    func curveAndMaster() throws {
        var points: [(time: MonotonicTime, value: Double)] = []
        let (played, events, start) = try Self.run(periods: 160) { period, engine, voice in
            if period == 40 {
                let now = engine.now()
                points = [(now.adding(seconds: 0.05), 0.2), (now.adding(seconds: 0.15), 0.8), (now.adding(seconds: 0.25), 0.5)]
                #expect(voice.setIntensityCurve(points))
            }
            if period == 120 { engine.setMasterHapticGain(0.5) }
        }
        let render = try Self.alone(frames: played.count)
        let ramps = events.compactMap { e -> (target: ParameterTrack.Target, frame: StreamFrame)? in
            if case let .command(.parameter(.intensity, target), _, _, frame, _) = e { return (target, frame) }
            return nil
        }
        #expect(ramps.count == 3)
        // Each point is reached at its frame: there the output is the tone times its value.
        for ramp in ramps {
            guard case .at(let at) = ramp.target.reach else {
                Issue.record("a curve point without a frame")
                continue
            }
            let f = Int(at.index)
            guard f < played.count else { continue }
            let master: Double = events.contains { if case let .command(.parameter(.masterGain, _), _, _, m, _) = $0 { return m <= at } else { return false } } ? 0.5 : 1
            #expect(abs(Double(played[f]) - ramp.target.value * master * Double(render[f - Int(start.index)])) < 1e-5, "point \(ramp.target.value) at \(f)")
        }
        // The points lie where the clock put their times: 100 ms apart.
        let frames = ramps.compactMap { r -> Int? in if case .at(let f) = r.target.reach { return Int(f.index) } else { return nil } }
        #expect(abs(frames[1] - frames[0] - 4_800) <= 2 && abs(frames[2] - frames[1] - 4_800) <= 2, "\(frames)")
        // After the master gain's ramp: 0.5 × 0.5 (the curve's last value) × the tone.
        let m = Int(try #require(events.compactMap { e -> StreamFrame? in
            if case let .command(.parameter(.masterGain, _), _, _, frame, _) = e { return frame }
            return nil
        }.first).index)
        for f in stride(from: m + 200, to: played.count, by: 97) {
            #expect(abs(Double(played[f]) - 0.25 * Double(render[f - Int(start.index)])) < 1e-6)
        }
    }

    @Test("Intensity and master gain changes are logged with their targets, read back, and replayed to the device's samples")
    func logAndReplay() throws {
        let (played, events, _) = try Self.run(periods: 120) { period, engine, voice in
            if period == 10 { voice.setIntensity(0.3, over: 0.02) }
            if period == 30 { voice.setIntensity(1.7) }
            if period == 50 { engine.setMasterHapticGain(0.6, over: 0.01) }
            if period == 70 { voice.setIntensityCurve([(engine.now().adding(seconds: 0.03), 0.1), (engine.now().adding(seconds: 0.06), 1)]) }
        }
        let header = EngineLog.Header(input: "t.json", preset: nil, layout: "haptic", sampleRate: 48_000, profile: "wideband")
        let parsed = try EngineLog.parse(EngineLog.text(header: header, events: events, playedFrames: FrameIndex(played.count)))
        #expect(parsed.events == events.filter { if case .position = $0 { return false } else { return true } })
        let replay = Replay(events: parsed.events)
        let replayed = try replay.deviceStream(frames: played.count, renderers: try replay.voices.map { try $0.renderer(base: try Self.mixer()) })
        #expect(replayed == played)
        #expect(replay.voices.first?.intensity.ramps.count == 4)
        #expect(replay.master.ramps.count == 1)
    }
}
