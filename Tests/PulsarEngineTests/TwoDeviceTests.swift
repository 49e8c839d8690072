import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import Foundation
import Testing

/// Sound on one device, touch on another, one clock: two simulated devices whose crystals
/// differ by 300 ppm (one +150, one −150) and whose position readings jitter by ±0.3 ms, on a
/// driven clock. The truth is what each device really plays at an instant
/// (`SimulatedDevice.exactStreamFrame(at:)`), read through the segments the haptic device was
/// fed by — not the engine's own estimates.
@Suite struct TwoDeviceTests {
    static let rate = SampleRate(48_000)!

    /// A looping pattern with a sine-like amplitude, audio-free, in layout stereo+haptic (the
    /// haptic on both the main device's third channel and the haptic device's).
    static func mixer(seconds: Double = 4, layout: ChannelLayout = .stereoHaptic) throws -> PresetMixer {
        let ms = seconds * 1000
        let amplitude = stride(from: 0.0, through: ms, by: 50).map { ValuePoint(time: $0, value: 0.3 + 0.2 * sin($0 / 300)) }
        let transients = stride(from: 100.0, to: ms, by: 400).map { DiscretePoint(time: $0, amplitude: 0.9, frequency: 0.7) }
        let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: amplitude), discretePattern: transients)
        var settings = MixSettings(layout: layout)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(loopCount: PlaybackTimeline.endless))
    }

    struct Rig {
        let clock: ManualClock
        let main: SimulatedDevice
        let haptic: SimulatedDevice
        let engine: HapticEngine
        let voice: HapticVoice
    }

    static func rig(mainPPM: Double = 150, hapticPPM: Double = -150, jitter: Double = 0.0003, recordSeconds: Double = 0,
                    hapticLayout: ChannelLayout = .haptic, latency: (main: Double, haptic: Double) = (0, 0),
                    hapticLatencyFrames: Int = 0, mixLayout: ChannelLayout = .stereoHaptic,
                    granularity: Int = 1, periodFrames: Int = 256) throws -> Rig {
        let clock = ManualClock()
        var a = SimulatedDevice.Behaviour()
        a.rateErrorPPM = mainPPM
        a.jitterSeconds = jitter
        a.seed = 11
        a.recordingCapacity = Int(recordSeconds * 48_000)
        a.granularityFrames = granularity
        var b = a
        b.rateErrorPPM = hapticPPM
        b.seed = 12
        b.latencyFrames = hapticLatencyFrames
        let main = SimulatedDevice(clock: clock, behaviour: a), haptic = SimulatedDevice(clock: clock, behaviour: b)
        let output = HapticDeviceOutput(device: haptic, layout: hapticLayout, sampleRate: rate, latency: latency.haptic, mainLatency: latency.main)
        let engine = try HapticEngine(device: main, sampleRate: rate, channels: mixLayout.channelCount, monotonic: clock,
                                      periodFrames: periodFrames, bufferFrames: max(1024, 4 * periodFrames), hapticDevice: output)
        let voice = try engine.makeVoice(try mixer(layout: mixLayout))
        return Rig(clock: clock, main: main, haptic: haptic, engine: engine, voice: voice)
    }

    /// Content ms heard on each device at `time`, by the devices' truth.
    static func trueContent(_ rig: Rig, at time: MonotonicTime, segments: [FeedSegment],
                            latency: (main: Double, haptic: Double) = (0, 0)) -> (main: Double, haptic: Double)? {
        guard let a = rig.main.exactStreamFrame(at: time.adding(seconds: -latency.main)),
              let b = rig.haptic.exactStreamFrame(at: time.adding(seconds: -latency.haptic)),
              let s = FeedSegment.streamPosition(atDevicePosition: b, in: segments) else { return nil }
        let track = rig.voice.track
        return (track.contentFrame(atStreamFrame: a) * 1000 / 48_000, track.contentFrame(atStreamFrame: s) * 1000 / 48_000)
    }

    static func segments(_ engine: HapticEngine) -> [FeedSegment] {
        engine.loggedEvents.compactMap { if case .hapticDeviceSegment(let s) = $0 { return s } else { return nil } }
    }

    /// Runs `seconds` of driven time in steps of `stepFrames`; every 16 ms from `from` s on notes
    /// the true skew (ms, haptic minus main).
    static func run(_ rig: Rig, seconds: Double, latency: (main: Double, haptic: Double) = (0, 0),
                    stepFrames: Int = 256, from: Double = 0.2) throws -> [(t: Double, skew: Double)] {
        #expect(rig.voice.play())
        let step = Double(stepFrames) / 48_000
        var skews: [(t: Double, skew: Double)] = []
        var nextSample = 0.0
        var elapsed = 0.0
        var segments: [FeedSegment] = []
        rig.engine.onEvent = { if case .hapticDeviceSegment(let s) = $0 { segments.append(s) } }
        while elapsed < seconds {
            try rig.engine.step()
            rig.engine.poll()
            rig.clock.advance(seconds: step)
            elapsed += step
            if elapsed >= nextSample, elapsed > from {
                nextSample = elapsed + 0.016
                if let c = trueContent(rig, at: rig.clock.now(), segments: segments, latency: latency) {
                    var skew = c.haptic - c.main
                    // Across the loop's wrap the two sides may stand in different iterations.
                    let loop = 4000.0
                    if skew > loop / 2 { skew -= loop } else if skew < -loop / 2 { skew += loop }
                    skews.append((elapsed, skew))
                }
            }
        }
        return skews
    }

    /// The lock-in time (after which every sample stays within `bound` ms) and the samples after.
    static func lockIn(_ skews: [(t: Double, skew: Double)], bound: Double) -> (time: Double, after: [Double])? {
        guard let lastOut = skews.lastIndex(where: { abs($0.skew) > bound }) else { return (skews.first?.t ?? 0, skews.map(\.skew)) }
        guard lastOut + 1 < skews.count else { return nil }
        return (skews[lastOut + 1].t, skews[(lastOut + 1)...].map(\.skew))
    }

    @Test("±150 ppm and 0.3 ms jitter for five simulated minutes: the touch stays within 0.25 ms of the sound after lock-in")
    func skewHolds() throws {
        let rig = try Self.rig()
        let skews = try Self.run(rig, seconds: 300)
        let found = Self.lockIn(skews, bound: 0.25)
        let lock = try #require(found, "never locked: last skews \(skews.suffix(5).map(\.skew))")
        let sorted = lock.after.map(abs).sorted()
        let p99 = sorted[Int(Double(sorted.count - 1) * 0.99)], max = sorted.last!
        print("two devices ±150 ppm, 0.3 ms jitter, 300 s: lock-in \(lock.time) s, |skew| p50 \(sorted[sorted.count / 2]) p99 \(p99) max \(max) ms")
        #expect(lock.time < 10, "lock-in after \(lock.time) s")
        #expect(max <= 0.25)
        #expect(rig.engine.underruns == 0 && rig.engine.hapticDeviceUnderruns == 0)
        // Without the feed's control the two devices would have drifted 300 ppm × 300 s = 90 ms apart.
        let segments = Self.segments(rig.engine)
        let steps = Set(segments.map(\.step))
        #expect(steps.count > 1, "the feed's rate followed the clocks")
    }

    /// Two streams of one PipeWire graph, as the simulated devices stand for them: one clock (no
    /// rate error, no jitter), positions in steps of the quantum, the engine stepped once a quantum,
    /// and the touch's stream starting 1–3 cycles after the sound's (as two streams of one graph
    /// do; its positions say so). The feed jumps onto the clocks once both have played, but what
    /// the touch's device had queued by then plays as it was written: the touch is late by its
    /// start until that has played — its late start, its buffer, and up to four cycles while the
    /// readings show both streams moving. From then on it is within 0.1 ms.
    @Test("Two streams of one graph at quanta 64, 256 and 1024, the touch's starting cycles later, 30 simulated seconds: within 0.1 ms once what was queued before the alignment has played",
          arguments: [(64, 3), (256, 1), (1024, 2)])
    func oneGraph(_ quantum: Int, cyclesLate: Int) throws {
        let rig = try Self.rig(mainPPM: 0, hapticPPM: 0, jitter: 0, hapticLatencyFrames: cyclesLate * quantum,
                               granularity: quantum, periodFrames: quantum)
        let skews = try Self.run(rig, seconds: 30, stepFrames: quantum, from: 0)
        let buffer = try #require(rig.haptic.configuration).bufferFrames
        let settled = Double(cyclesLate * quantum + buffer + 4 * quantum) / 48_000
        let lastOff = skews.last { abs($0.skew) > 0.1 }
        let after = skews.filter { $0.t >= settled }.map { abs($0.skew) }
        print("measured: two streams of one graph at quantum \(quantum), touch \(cyclesLate) cycles late, 30 s: \(skews.count) readings, late until \(lastOff.map { String(format: "%.3f s (%.3f ms)", $0.t, $0.skew) } ?? "never"), then |skew| max \(after.max() ?? .infinity) ms")
        #expect(after.count > 1300 && (skews.first?.t ?? 1) < 0.05, "\(skews.count) readings, the first at \(skews.first?.t ?? -1) s")
        #expect((lastOff?.t ?? 0) < settled, "late until \(lastOff?.t ?? 0) s, past \(settled) s; the first: \(skews.prefix(12).map { String(format: "%.3f@%.3f", $0.skew, $0.t) })")
        #expect((after.max() ?? .infinity) <= 0.1)
        #expect(rig.engine.underruns == 0 && rig.engine.hapticDeviceUnderruns == 0)
    }

    @Test("The engine's own answer for the haptic device agrees with the truth within 0.25 ms after lock-in")
    func clockAnswer() throws {
        let rig = try Self.rig()
        _ = try Self.run(rig, seconds: 60)
        let now = rig.clock.now()
        let answered = try #require(rig.engine.hapticDeviceStreamFrame(at: now))
        let truthDevice = try #require(rig.haptic.exactStreamFrame(at: now))
        let truth = try #require(FeedSegment.streamPosition(atDevicePosition: truthDevice, in: Self.segments(rig.engine)))
        #expect(abs(answered - truth) / 48 <= 0.25, "answer \(answered), truth \(truth) stream frames")
    }

    @Test("Latency offsets: a haptic device that is 20 ms late is fed 20 ms ahead")
    func latencyOffset() throws {
        // The haptic device plays 20 ms after it reports (its latency not in its positions);
        // declared, the feed makes up for it.
        let latency = (main: 0.0, haptic: 0.020)
        let rig = try Self.rig(latency: latency)
        let skews = try Self.run(rig, seconds: 30, latency: latency)
        let found = Self.lockIn(skews, bound: 0.25)
        let lock = try #require(found, "never locked: last skews \(skews.suffix(5).map(\.skew))")
        #expect(lock.time < 10)
        // Undeclared, the same device is 20 ms behind.
        let plain = try Self.rig()
        let behind = try Self.run(plain, seconds: 30, latency: latency)
        #expect(abs((behind.last?.skew ?? 0) + 20) < 0.5, "undeclared: \(behind.last?.skew ?? 0) ms")
    }

    @Test("Each device's recording is its replay from the log, bit for bit, through seeks, pauses, intensity and an underrun on each")
    func replayBothDevices() throws {
        // The main device takes the haptics mixed into its pair too (a bass shaker beside the
        // controller), so its recording has something to compare.
        let rig = try Self.rig(recordSeconds: 12, hapticLayout: .quad, mixLayout: ChannelLayout(parsing: "L+H,R+H,H")!)
        #expect(rig.voice.play())
        let step = 256.0 / 48_000
        var t = 0.0
        var done: Set<Int> = []
        func at(_ s: Double, _ id: Int, _ body: () -> Void) { if t >= s, !done.contains(id) { done.insert(id); body() } }
        while t < 10 {
            at(1.0, 1) { _ = rig.voice.seek(toMs: 2500) }
            at(2.0, 2) { _ = rig.voice.pause() }
            at(2.5, 3) { _ = rig.voice.resume() }
            at(3.0, 4) { _ = rig.voice.setIntensity(0.4, over: 0.5) }
            at(4.0, 5) { rig.main.injectUnderrun() }
            at(6.0, 6) { rig.haptic.injectUnderrun() }
            at(7.0, 7) { _ = rig.voice.setSharpness(0.3, over: 0.2) }
            try rig.engine.step()
            rig.engine.poll()
            rig.clock.advance(seconds: step)
            t += step
        }
        #expect(rig.engine.underruns >= 1 && rig.engine.hapticDeviceUnderruns >= 1)
        let replay = Replay(events: rig.engine.loggedEvents)
        let renderer = try replay.renderer(base: rig.voice.mixer)
        let mainRecording = rig.main.recording, hapticRecording = rig.haptic.recording
        let mainFrames = mainRecording.count / 2
        let stream = try replay.deviceStream(frames: mainFrames, renderer: renderer)
        var mismatches = 0
        for f in 0..<mainFrames where stream[f * 3] != mainRecording[f * 2] || stream[f * 3 + 1] != mainRecording[f * 2 + 1] {
            mismatches += 1
        }
        #expect(mainFrames > 400_000)
        #expect(mismatches == 0, "main device: \(mismatches) frames differ")
        let hapticFrames = hapticRecording.count / 4
        let felt = try replay.hapticDeviceStream(frames: hapticFrames, layout: .quad, renderers: [renderer])
        #expect(hapticFrames > 400_000)
        #expect(felt == hapticRecording, "haptic device: \(zip(felt, hapticRecording).filter { $0 != $1 }.count) samples differ")
        // Channels 1–2 of the controller are silent (the audio is on the main device), 3–4 carry the touch.
        #expect((0..<hapticFrames).allSatisfy { hapticRecording[$0 * 4] == 0 && hapticRecording[$0 * 4 + 1] == 0 })
        #expect((0..<hapticFrames).contains { hapticRecording[$0 * 4 + 2] != 0 })
    }

    @Test("The haptic device's channel is the main stream's haptic channel, resampled: within −60 dB of it at one offset")
    func hapticIsTheStream() throws {
        // One crystal for both and no jitter: the feed's step stays within a few 2⁻²⁸ of 1, so
        // the haptic device's samples are the stream's haptic channel (here also the main
        // device's first channel) read at one offset, interpolated.
        let rig = try Self.rig(mainPPM: 0, hapticPPM: 0, jitter: 0, recordSeconds: 5, mixLayout: ChannelLayout(parsing: "H,0,H")!)
        _ = try Self.run(rig, seconds: 4)
        let a = rig.main.recording, b = rig.haptic.recording
        let main = (0..<(a.count / 2)).map { a[$0 * 2] }
        let segments = Self.segments(rig.engine)
        let last = try #require(segments.last)
        // Device frame f reads stream position cursor(f): compare from 1 s on, where it is locked.
        var worst: Float = 0, peak: Float = 0
        for f in 48_000..<min(b.count, 150_000) {
            let s = Int((last.cursor(at: HapticDeviceFrame(FrameIndex(f))) + FeedSegment.unit / 2) >> FeedSegment.fractionBits)
            guard s >= 0, s < main.count else { continue }
            worst = Swift.max(worst, abs(b[f] - main[s]))
            peak = Swift.max(peak, abs(main[s]))
        }
        #expect(peak > 0.3)
        #expect(worst <= peak * 1e-3, "worst difference \(worst) against a peak of \(peak)")
    }

    @Test("A .realtime voice on two devices: the app moves the content to and fro, and both devices' recordings are their replays")
    func realtimeOnBoth() throws {
        let clock = ManualClock()
        var a = SimulatedDevice.Behaviour()
        a.rateErrorPPM = 120
        a.jitterSeconds = 0.0002
        a.recordingCapacity = 5 * 48_000
        var b = a
        b.rateErrorPPM = -90
        b.seed = 77
        let main = SimulatedDevice(clock: clock, behaviour: a), haptic = SimulatedDevice(clock: clock, behaviour: b)
        let engine = try HapticEngine(device: main, sampleRate: Self.rate, channels: 3, monotonic: clock,
                                      hapticDevice: HapticDeviceOutput(device: haptic, layout: .haptic, sampleRate: Self.rate))
        let mixer = try Self.mixer(layout: ChannelLayout(parsing: "H,0,H")!)
        let voice = try engine.makeVoice(mixer, mode: .realtime)
        #expect(voice.play())
        for period in 0..<700 {
            // Forward, back over the transients, a jump, forward again.
            let ms: Double? = period % 10 == 0 ? (period < 300 ? Double(period) * 4 : period < 450 ? Double(600 - period) * 4 : 2500 + Double(period)) : nil
            if let ms { #expect(voice.setContentTime(ms)) }
            try engine.step()
            engine.poll()
            clock.advance(seconds: 256.0 / 48_000)
        }
        let replay = Replay(events: engine.loggedEvents)
        let renderers = try replay.voices.map { try $0.renderer(base: mixer) }
        let mainFrames = main.recording.count / 2
        let stream = try replay.deviceStream(frames: mainFrames, renderers: renderers)
        let recorded: [Float] = main.recording
        var differ = 0
        for f in 0..<mainFrames where stream[f * 3] != recorded[f * 2] || stream[f * 3 + 1] != recorded[f * 2 + 1] { differ += 1 }
        #expect(differ == 0)
        #expect(main.recording.contains { abs($0) > 0.3 }, "the realtime voice sounds")
        let felt = try replay.hapticDeviceStream(frames: haptic.recording.count, layout: .haptic, renderers: renderers)
        #expect(felt == haptic.recording)
    }
}
