import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// Many voices on one engine, on the simulated device and a driven clock: seeded random sessions
/// (voices made, started now or ahead, commanded, changed live, stolen; injected underruns; with
/// and without rewind) play what their log replays, bit for bit; voices without live changes
/// sum as their offline renders do; a steal fades and says so.
@Suite struct EngineVoicesTests {
    static let rate = SampleRate(48_000)!

    /// Three short patterns (a swell with transients, a buzz, a click train) as stereo+haptic mixers.
    static func mixers(loops: Int = 1) throws -> [PresetMixer] {
        let patterns = [
            PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 150, value: 0.6)],
                                                             frequency: [ValuePoint(time: 0, value: 0.1), ValuePoint(time: 150, value: 0.9)]),
                        discretePattern: stride(from: 20.0, to: 150, by: 40).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.7) }),
            PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.7), ValuePoint(time: 90, value: 0.7)],
                                                             frequency: [ValuePoint(time: 0, value: 0.4)])),
            PatternData(discretePattern: stride(from: 0.0, to: 120, by: 30).map { DiscretePoint(time: $0, amplitude: 0.9, frequency: 0.3) }),
        ]
        return try patterns.enumerated().map { i, pattern in
            var settings = MixSettings(layout: .stereoHaptic)
            settings.preloadAudio = true
            return try PresetMixer(preset: PresetHandle(id: "p\(i)", name: "p\(i)", duration: 0, pattern: pattern), settings: settings,
                                   range: PlaybackRange(loopCount: loops))
        }
    }

    /// An engine on a recording simulated device with a driven clock.
    static func engine(voiceLimit: Int, canRewind: Bool, periods: Int) throws -> (HapticEngine, SimulatedDevice, ManualClock) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.canRewind = canRewind
        behaviour.recordingCapacity = periods * 256 * 2 + 48_000
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let engine = try HapticEngine(device: device, sampleRate: rate, channels: 3, monotonic: clock, voiceLimit: voiceLimit)
        return (engine, device, clock)
    }

    /// One period of driven time: a step, the events polled, the clock moved on (by a jittered
    /// period, so the device's consumption and the steps do not line up).
    static func tick(_ engine: HapticEngine, _ clock: ManualClock, _ rng: inout SplitMix64) throws {
        try engine.step()
        engine.poll()
        clock.advance(seconds: 256.0 / 48_000 * (0.5 + rng.unit()))
    }

    /// The device stream the log replays to, each voice rebuilt from the mixer it was made with.
    static func replay(_ events: [EngineEvent], frames: Int, bases: [Int: PresetMixer]) throws -> [Float] {
        let replay = Replay(events: events)
        #expect(replay.eventsLost == 0)
        let renderers = try replay.voices.map { voice in try voice.renderer(base: bases[voice.id]!) }
        return try replay.deviceStream(frames: frames, renderers: renderers)
    }

    /// A seeded random session; returns the device's recording and the replay of the log, and
    /// counts of what happened.
    static func session(seed: UInt64, voiceLimit: Int, canRewind: Bool, periods: Int)
        throws -> (played: [Float], replayed: [Float], made: Int, steals: Int, changes: Int, peak: Int) {
        let (engine, device, clock) = try engine(voiceLimit: voiceLimit, canRewind: canRewind, periods: periods)
        let mixers = try Self.mixers(loops: 2)
        var rng = SplitMix64(seed: seed)
        var bases: [Int: PresetMixer] = [:]
        var made = 0, changes = 0, peak = 0
        for period in 0..<periods {
            let roll = rng.unit()
            let voices = engine.activeVoices
            peak = max(peak, voices.count)
            if period == periods / 3 {
                // A burst: the limit and a few more at once, every one started now.
                for k in 0..<(voiceLimit + 4) {
                    guard let voice = try? engine.makeVoice(mixers[k % mixers.count], priority: 1) else { continue }
                    bases[voice.id] = mixers[k % mixers.count]
                    made += 1
                    voice.play()
                }
            } else if roll < 0.12 {
                let mixer = mixers[Int(rng.unit() * Double(mixers.count))]
                if let voice = try? engine.makeVoice(mixer, priority: Int(rng.unit() * 3)) {
                    bases[voice.id] = mixer
                    made += 1
                    if rng.unit() < 0.3 {
                        voice.play(at: clock.now().adding(seconds: rng.unit() * 0.05))
                    } else {
                        voice.play()
                    }
                }
            } else if roll < 0.3, let voice = voices.randomElement(using: &rng) {
                let total = Double(voice.mixer.timeline.frameCount)
                switch Int(rng.unit() * 12) {
                case 10: voice.setSharpness(rng.unit() * 2 - 1, over: rng.unit() < 0.5 ? nil : rng.unit() * 0.05)
                case 11:
                    let now = clock.now()
                    voice.setSharpnessCurve((1...3).map { (now.adding(seconds: Double($0) * 0.01), rng.unit() * 2 - 1) })
                case 7: voice.setIntensity(rng.unit() * 2, over: rng.unit() < 0.5 ? nil : rng.unit() * 0.05)
                case 8:
                    let now = clock.now()
                    voice.setIntensityCurve((1...3).map { (now.adding(seconds: Double($0) * 0.01), rng.unit() * 1.5) })
                case 9: engine.setMasterHapticGain(0.5 + rng.unit(), over: rng.unit() < 0.5 ? nil : 0.02)
                case 0: voice.pause()
                case 1: voice.resume()
                case 2: voice.send(.seek(toTimelineFrame: TimelineFrame(FrameIndex(rng.unit() * total))))
                case 3: voice.send(.play(fromTimelineFrame: TimelineFrame(FrameIndex(rng.unit() * total))))
                case 4: voice.stop()
                case 5: voice.cue(atMs: rng.unit() * 150)
                default:
                    if (try? voice.adjust({ $0 = PlayerReplayTests.randomAdjustment(&rng, of: $0) })) != nil { changes += 1 }
                }
            }
            if rng.unit() < 0.01 { device.injectUnderrun() }
            try tick(engine, clock, &rng)
        }
        for _ in 0..<8 { try tick(engine, clock, &rng) }
        clock.advance(seconds: 1)
        _ = try? device.availableFrames()
        engine.poll()
        let steals = engine.loggedEvents.filter { if case .command(.steal, _, _, _, _) = $0 { return true } else { return false } }.count
        let played = device.recording
        let replayed = try replay(engine.loggedEvents, frames: played.count / 3, bases: bases)
        return (played, replayed, made, steals, changes, peak)
    }

    @Test("500 random sessions of up to 64 voices (starts now and ahead, commands, live changes, intensity and sharpness, steals, underruns): the device stream equals the replay, bit for bit",
          arguments: [(64, true, 8), (64, false, 8), (8, true, 120), (8, false, 120), (3, true, 122), (2, false, 122)])
    func sessionsReplay(voiceLimit: Int, canRewind: Bool, sessions: Int) throws {
        var mismatches: [UInt64] = []
        var made = 0, steals = 0, changes = 0, peak = 0
        for seed in UInt64(1)...UInt64(sessions) {
            let s = try Self.session(seed: seed * 7919 + UInt64(voiceLimit), voiceLimit: voiceLimit, canRewind: canRewind, periods: 120)
            if s.played.count != s.replayed.count || zip(s.played, s.replayed).contains(where: { $0.0.bitPattern != $0.1.bitPattern }) {
                mismatches.append(seed)
            }
            made += s.made
            steals += s.steals
            changes += s.changes
            peak = max(peak, s.peak)
        }
        #expect(mismatches.isEmpty, "seeds whose replay differs: \(mismatches)")
        #expect(made > sessions * 5, "voices were made: \(made)")
        #expect(changes > sessions / 2, "live changes were made: \(changes)")
        #expect(steals >= sessions * 4, "voices were stolen: \(steals)")
        #expect(peak >= voiceLimit, "the limit was reached: \(peak) voices at once")
    }

    @Test("Voices without live changes sum as their offline renders: one voice alone is its render exactly; where two or more sound, the limiter of their sum")
    func sumRule() throws {
        let (engine, device, clock) = try Self.engine(voiceLimit: 8, canRewind: false, periods: 400)
        let mixers = try Self.mixers()
        var rng = SplitMix64(seed: 5)
        // Voices made at chosen periods; each starts at the stream frame its play takes effect.
        let plan: [(period: Int, mixer: Int)] = [(2, 0), (10, 1), (12, 2), (30, 0), (31, 1), (60, 2), (61, 0), (62, 1)]
        var started: [(mixer: PresetMixer, slot: Int, frame: StreamFrame)] = []
        for period in 0..<200 {
            for p in plan where p.period == period {
                let voice = try engine.makeVoice(mixers[p.mixer])
                voice.play()
            }
            try Self.tick(engine, clock, &rng)
        }
        for case let .command(.play, slot, _, effective, _) in engine.loggedEvents {
            let id = engine.loggedEvents.compactMap { e -> Int? in
                if case .command(.attach(let id), slot, _, let f, _) = e, f <= effective { return id }
                return nil
            }.last!
            started.append((mixers[plan[id - 1].mixer], slot, effective))
        }
        #expect(started.count == plan.count)
        let played = device.recording
        let frames = played.count / 3
        // Each voice rendered alone, offline, from frame 0 of its timeline.
        var expected = [Float](repeating: 0, count: played.count)
        var sounding = [Int](repeating: 0, count: frames)
        for voice in started.sorted(by: { $0.slot < $1.slot }) {
            let length = Int(voice.mixer.frameCount)
            var alone = [Float](repeating: 0, count: length * 3)
            _ = try alone.withUnsafeMutableBufferPointer { try voice.mixer.render(into: $0, from: .zero) }
            let start = Int(voice.frame.index)
            for f in start..<min(start + length, frames) {
                for c in 0..<3 { expected[f * 3 + c] += alone[(f - start) * 3 + c] }
                sounding[f] += 1
            }
        }
        var overlapping = 0
        for f in 0..<frames where sounding[f] >= 2 {
            overlapping += 1
            for c in 0..<3 { expected[f * 3 + c] = Limiter.apply(expected[f * 3 + c]) }
        }
        #expect(overlapping > 5_000, "voices overlapped: \(overlapping) frames")
        let worst = zip(played, expected).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 1e-6, "largest difference \(worst)")
        // Alone, a voice is its render exactly.
        let lone = (0..<frames).filter { sounding[$0] == 1 }
        #expect(lone.count > 1_000)
        #expect(lone.allSatisfy { f in (0..<3).allSatisfy { played[f * 3 + $0] == expected[f * 3 + $0] } })
    }

    @Test("At the voice limit a new voice steals the lowest-priority, oldest one: it fades out over 1 ms, completes unfinished and leaves; a higher priority is never stolen")
    func steal() throws {
        let (engine, device, clock) = try Self.engine(voiceLimit: 2, canRewind: false, periods: 200)
        let mixers = try Self.mixers(loops: PlaybackTimeline.endless)
        var rng = SplitMix64(seed: 9)
        let low = try engine.makeVoice(mixers[1], priority: 0)
        let high = try engine.makeVoice(mixers[1], priority: 5)
        var lowCompleted: Bool?
        low.completion = { lowCompleted = $0 }
        low.play()
        high.play()
        for _ in 0..<20 { try Self.tick(engine, clock, &rng) }
        let third = try engine.makeVoice(mixers[0], priority: 1)
        third.play()
        for _ in 0..<20 { try Self.tick(engine, clock, &rng) }
        #expect(lowCompleted == false)
        #expect(low.hasEnded && !high.hasEnded && !third.hasEnded)
        // A fourth with a lower priority than both playing finds no voice to steal.
        #expect(throws: VoiceError.self) { try engine.makeVoice(mixers[2], priority: 0) }
        let steal = try #require(engine.loggedEvents.first { if case .command(.steal, low.slot, _, _, _) = $0 { return true } else { return false } })
        guard case let .command(_, _, _, at, state) = steal else { return }
        #expect(state.mode == .paused && state.ramp == .fadeOut)
        // The stolen voice's haptic channel falls to silence within the fade (48 frames).
        let played = device.recording
        let fade = TransportState.fadeFrames(at: Self.rate)
        #expect(fade == 48)
        // Its completion comes at the fade's end.
        let completion = engine.loggedEvents.first { if case .completion(low.slot, false, _) = $0 { return true } else { return false } }
        guard case let .completion(_, _, end)? = completion else {
            Issue.record("no completion for the stolen voice")
            return
        }
        #expect(end == at + FrameIndex(fade))
        #expect(played.count / 3 > Int(end.index) + 1000)
    }

    @Test("A voice stolen before any block mixed it leaves at once and silent: twenty starts in one period at a limit of one sound as the last alone")
    func unheardSteal() throws {
        func session(_ which: [Int]) throws -> (recording: [Float], events: [EngineEvent], slotsFree: Bool) {
            let (engine, device, clock) = try Self.engine(voiceLimit: 1, canRewind: false, periods: 60)
            let mixers = try Self.mixers(loops: PlaybackTimeline.endless)
            var rng = SplitMix64(seed: 3)
            for k in which { #expect(try engine.makeVoice(mixers[k % mixers.count]).play()) }
            for _ in 0..<40 { try Self.tick(engine, clock, &rng) }
            return (device.recording, engine.loggedEvents, engine.activeVoices.count == 1)
        }
        let burst = try session(Array(0..<20))
        let alone = try session([19])
        #expect(burst.slotsFree, "the nineteen stolen voices have left")
        let steals = burst.events.compactMap { e -> TransportState? in
            if case let .command(.steal, _, _, _, state) = e { return state } else { return nil }
        }
        #expect(steals.count == 19 && steals.allSatisfy { $0.ramp == .none }, "no fade for a voice never heard")
        #expect(burst.recording == alone.recording, "only the last voice sounds")
        let leftAtOnce = burst.events.filter { if case .detached = $0 { return true } else { return false } }.count
        #expect(leftAtOnce == 19)
    }
}

extension Array {
    /// A seeded random element (nil when empty).
    func randomElement(using rng: inout SplitMix64) -> Element? {
        isEmpty ? nil : self[Swift.min(Int(rng.unit() * Double(count)), count - 1)]
    }
}
