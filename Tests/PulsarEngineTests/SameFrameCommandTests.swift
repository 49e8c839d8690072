import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// Live parameter changes that take effect at one stream frame: each takes effect, in the order
/// sent, chained after the one before (docs/signal-model.md §13); `over 0` is "at once" from
/// every door; a curve of `Limits.maximumCurvePoints` points is taken whole.
@Suite struct SameFrameCommandTests {
    static let rate = SampleRate(48_000)!

    /// Runs one voice on a driven engine (a simulated device, 256-frame periods); `before` runs
    /// before the first step (one period), `during(period, …)` before each step.
    static func run(periods: Int, periodFrames: Int = 256, before: (HapticEngine, HapticVoice) -> Void,
                    during: (Int, HapticEngine, HapticVoice) -> Void = { _, _, _ in }) throws -> (played: [Float], events: [EngineEvent], start: Int) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = periods * periodFrames + 48_000
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let engine = try HapticEngine(device: device, sampleRate: rate, channels: 1, monotonic: clock, periodFrames: periodFrames,
                                      bufferFrames: 4 * periodFrames, voiceLimit: 4)
        let voice = try engine.makeVoice(try LiveParameterTests.mixer())
        before(engine, voice)
        for period in 0..<periods {
            during(period, engine, voice)
            try engine.step()
            engine.poll()
            clock.advance(seconds: Double(periodFrames) / 48_000)
        }
        let play = try #require(engine.loggedEvents.compactMap { e -> StreamFrame? in
            if case let .command(.play, _, _, frame, _) = e { return frame }
            return nil
        }.first)
        return (device.recording, engine.loggedEvents, Int(play.index))
    }

    /// The log written and read back, replayed to the device's stream.
    static func replayed(_ events: [EngineEvent], frames: Int) throws -> [Float] {
        let header = EngineLog.Header(input: "t.json", preset: nil, layout: "haptic", sampleRate: 48_000, profile: "wideband")
        let parsed = try EngineLog.parse(EngineLog.text(header: header, events: events, playedFrames: FrameIndex(frames)))
        let replay = Replay(events: parsed.events)
        return try replay.deviceStream(frames: frames, renderers: try replay.voices.map { try $0.renderer(base: try LiveParameterTests.mixer()) })
    }

    /// The largest departure of `played` from `gain(n) · render`, from the voice's start.
    static func departure(_ played: [Float], start: Int, gain: (Int) -> Double) throws -> (worst: Double, at: Int) {
        let render = try LiveParameterTests.alone(frames: played.count)
        var worst = (0.0, 0)
        for n in start..<played.count {
            let d = abs(Double(played[n]) - gain(n) * Double(render[n - start]))
            if d > worst.0 { worst = (d, n) }
        }
        return worst
    }

    @Test("intensity 0.1 at once, play, intensity 1 over 1.5 s, all in one period: 1 → 0.1 over 192 frames from the play's frame F, then 0.1 → 1 over 72 000 frames, sample by sample; the log replays bit for bit",
          .timeLimit(.minutes(2)))
    func threeCommandsInOnePeriod() throws {
        let (played, events, start) = try Self.run(periods: 300) { _, voice in
            #expect(voice.setIntensity(0.1, over: 0))
            #expect(voice.play())
            #expect(voice.setIntensity(1.0, over: 1.5))
        }
        let frames = LiveParameterTests.parameterFrames(events)
        #expect(frames.count == 2 && frames.allSatisfy { Int($0.index) == start }, "both changes and the play take effect at one frame: \(frames), play at \(start)")
        let f = start
        // The course from the formula, independently of ParameterTrack.
        func gain(_ n: Int) -> Double {
            if n < f { return 1 }
            if n < f + 192 { return 1 + (0.1 - 1) * Double(n - f) / 192 }
            if n < f + 192 + 72_000 { return 0.1 + (1 - 0.1) * Double(n - f - 192) / 72_000 }
            return 1
        }
        let (worst, at) = try Self.departure(played, start: start, gain: gain)
        #expect(worst < 1e-6, "largest departure from the chained course \(worst) at frame \(at) (F = \(f))")
        #expect(played.count > f + 192 + 48_000, "the recording reaches a second into the long ramp")
        #expect(try Self.replayed(events, frames: played.count) == played, "the replay of the log equals the recording")
    }

    @Test("Three changes in one period chain in order; a change one period later replaces a chained ramp that has not begun and retargets from the value it finds",
          .timeLimit(.minutes(2)))
    func chainsAndLaterChanges() throws {
        let (played, events, start) = try Self.run(periods: 40, before: { _, voice in
            voice.play()
        }, during: { period, _, voice in
            if period == 10 {
                voice.setIntensity(0.2)
                voice.setIntensity(0.8, over: 0.01)
                voice.setIntensity(0.5)
            }
            if period == 20 {
                voice.setIntensity(0.4, over: 0.01)  // 2560 frames after the first three: their chain has ended
                voice.setIntensity(0.9, over: 0.1)
            }
            if period == 21 { voice.setIntensity(0.3) }  // 256 frames later: the 0.9 ramp, due at 480, has not begun
        })
        let frames = LiveParameterTests.parameterFrames(events).map { Int($0.index) }
        #expect(frames.count == 6)
        let a = frames[0], b = frames[3], c = frames[5]
        #expect(frames[1] == a && frames[2] == a && frames[4] == b && c == b + 256, "\(frames)")
        func gain(_ n: Int) -> Double {
            // The chain at a: 1 → 0.2 (192), 0.2 → 0.8 (480), 0.8 → 0.5 (192).
            var g = 1.0
            if n >= a { g = n < a + 192 ? 1 + (0.2 - 1) * Double(n - a) / 192 : 0.2 }
            if n >= a + 192 { g = n < a + 672 ? 0.2 + 0.6 * Double(n - a - 192) / 480 : 0.8 }
            if n >= a + 672 { g = n < a + 864 ? 0.8 - 0.3 * Double(n - a - 672) / 192 : 0.5 }
            // At b: 0.5 → 0.4 over 480, then (0.9 over 0.1 s, chained at b + 480) — replaced at
            // c, before it began: from c, the value the 0.4 ramp had there → 0.3 over 192.
            let atC = 0.5 - 0.1 * Double(c - b) / 480
            if n >= b { g = 0.5 - 0.1 * Double(n - b) / 480 }
            if n >= c { g = n < c + 192 ? atC + (0.3 - atC) * Double(n - c) / 192 : 0.3 }
            return g
        }
        let (worst, at) = try Self.departure(played, start: start, gain: gain)
        #expect(worst < 1e-6, "largest departure \(worst) at frame \(at) (a \(a), b \(b), c \(c))")
        #expect(try Self.replayed(events, frames: played.count) == played)
    }

    @Test("intensity 0.1 at once, then one period (64 frames) later intensity 1 over 1.5 s: the second follows the first's smoothing, 0.1 → 1 from where it ends",
          .timeLimit(.minutes(2)))
    func changeDuringSmoothing() throws {
        let (played, events, start) = try Self.run(periods: 1_200, periodFrames: 64, before: { _, voice in voice.play() }, during: { period, _, voice in
            if period == 5 { voice.setIntensity(0.1) }
            if period == 6 { voice.setIntensity(1.0, over: 1.5) }
        })
        let frames = LiveParameterTests.parameterFrames(events).map { Int($0.index) }
        try #require(frames.count == 2)
        let (e1, e2) = (frames[0], frames[1])
        #expect(e2 > e1 && e2 < e1 + 192, "the second lands during the first's smoothing: \(frames)")
        func gain(_ n: Int) -> Double {
            if n < e1 { return 1 }
            if n < e1 + 192 { return 1 - 0.9 * Double(n - e1) / 192 }
            return n < e1 + 192 + 72_000 ? 0.1 + 0.9 * Double(n - e1 - 192) / 72_000 : 1
        }
        let (worst, at) = try Self.departure(played, start: start, gain: gain)
        #expect(worst < 1e-6, "largest departure \(worst) at frame \(at) (e1 \(e1), e2 \(e2))")
        #expect(try Self.replayed(events, frames: played.count) == played)
    }

    @Test("Changes at once every 64 frames (a slider faster than the smoothing): no step, no backlog — the last value is reached within 384 frames of its change",
          .timeLimit(.minutes(2)))
    func sliderStream() throws {
        let values = (0..<30).map { 0.2 + 0.6 * Double($0 % 7) / 6 }
        let (played, events, start) = try Self.run(periods: 120, periodFrames: 64, before: { _, voice in voice.play() }, during: { period, _, voice in
            if period >= 10, period < 10 + values.count { voice.setIntensity(values[period - 10]) }
        })
        let frames = LiveParameterTests.parameterFrames(events).map { Int($0.index) }
        try #require(frames.count == values.count)
        let last = frames.last!
        let render = try LiveParameterTests.alone(frames: played.count)
        for n in (last + 384)..<min(played.count, last + 2_000) {
            #expect(abs(Double(played[n]) - values.last! * Double(render[n - start])) < 1e-6, "frame \(n)")
            if abs(Double(played[n]) - values.last! * Double(render[n - start])) >= 1e-6 { break }
        }
        // The gain between neighbouring samples moves by at most one smoothing step (0.6 / 192).
        let toneStep = zip(render, render.dropFirst()).map { abs($0 - $1) }.max()!
        let playedStep = zip(played[start...], played[(start + 1)...]).map { abs($0 - $1) }.max()!
        #expect(playedStep <= toneStep + 0.6 / 192 + 1e-6)
        #expect(try Self.replayed(events, frames: played.count) == played)
    }

    @Test("over 0 from Swift is \"at once\": the same smoothed target as no duration, for the intensity, the sharpness and the master gain")
    func overZeroIsAtOnce() throws {
        let (played0, events0, _) = try Self.run(periods: 30, before: { _, voice in voice.play() }, during: { period, engine, voice in
            if period == 5 { voice.setIntensity(0.3, over: 0) }
            if period == 10 { voice.setSharpness(0.4, over: 0) }
            if period == 15 { engine.setMasterHapticGain(0.5, over: 0) }
            if period == 20 { voice.setIntensity(0.6, over: 1e-9) }  // less than a frame: at once too
        })
        let (playedNil, eventsNil, _) = try Self.run(periods: 30, before: { _, voice in voice.play() }, during: { period, engine, voice in
            if period == 5 { voice.setIntensity(0.3) }
            if period == 10 { voice.setSharpness(0.4) }
            if period == 15 { engine.setMasterHapticGain(0.5) }
            if period == 20 { voice.setIntensity(0.6) }
        })
        let targets = { (events: [EngineEvent]) in
            events.compactMap { e -> ParameterTrack.Target? in
                if case let .command(.parameter(_, target), _, _, _, _) = e { return target }
                return nil
            }
        }
        #expect(targets(events0).count == 4 && targets(events0).allSatisfy { $0.reach == .smoothed }, "\(targets(events0))")
        #expect(targets(events0) == targets(eventsNil))
        #expect(played0 == playedNil)
        #expect(try Self.replayed(events0, frames: played0.count) == played0)
    }

    @Test("A curve of Limits.maximumCurvePoints points is taken whole: every point is logged and reached at its frame; one more is refused",
          .timeLimit(.minutes(2)))
    func longestCurve() throws {
        #expect(HapticVoice.maximumCurvePoints == Limits.maximumCurvePoints)
        let n = Limits.maximumCurvePoints
        var points: [(time: MonotonicTime, value: Double)] = []
        let (played, events, start) = try Self.run(periods: 260, before: { _, voice in voice.play() }, during: { period, engine, voice in
            guard period == 8 else { return }
            let now = engine.now()
            // 1 ms apart from 20 ms ahead, alternating between 0.3 and 0.9.
            points = (0..<n).map { (now.adding(seconds: 0.02 + Double($0) * 0.001), $0 % 2 == 0 ? 0.3 : 0.9) }
            #expect(!voice.setIntensityCurve(points + [(now.adding(seconds: 0.02 + Double(n) * 0.001), 0.5)]), "one point too many")
            #expect(voice.setIntensityCurve(points))
        })
        let ramps = events.compactMap { e -> (target: ParameterTrack.Target, frame: StreamFrame)? in
            if case let .command(.parameter(.intensity, target), _, _, frame, _) = e { return (target, frame) }
            return nil
        }
        #expect(ramps.count == n, "every point logged")
        let render = try LiveParameterTests.alone(frames: played.count)
        var missed = 0
        for (i, ramp) in ramps.enumerated() {
            guard case .at(let at) = ramp.target.reach else {
                Issue.record("point \(i) without a frame")
                continue
            }
            let f = Int(at.index)
            guard f < played.count else { continue }
            if abs(Double(played[f]) - ramp.target.value * Double(render[f - start])) > 1e-5 { missed += 1 }
        }
        #expect(missed == 0, "\(missed) points not reached at their frames")
        let last = ramps.last.flatMap { r -> Int? in if case .at(let f) = r.target.reach { return Int(f.index) } else { return nil } }
        #expect((last ?? .max) < played.count, "the recording reaches the last point")
        #expect(try Self.replayed(events, frames: played.count) == played)
    }
}
