import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// The player on the simulated device against the replay of its event log: what the device
/// actually played equals the offline render of the logged transport, sample for sample.
@Suite struct PlayerReplayTests {
    static func mixer(layout: ChannelLayout = .stereoHaptic) throws -> PresetMixer {
        let pattern = PatternData(
            continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 900, value: 0.6)],
                                                 frequency: [ValuePoint(time: 0, value: 0.1), ValuePoint(time: 900, value: 0.9)]),
            discretePattern: stride(from: 50.0, to: 900, by: 70).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.7) })
        var settings = MixSettings(layout: layout)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "p", name: "P", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(loopCount: 2, reverse: true))
    }

    /// Runs a seeded random schedule of commands; returns the device and the events.
    static func run(seed: UInt64, canRewind: Bool, periods: Int = 600, commandChance: Double = 0.08) throws -> (SimulatedDevice, [EngineEvent], TransportRenderer) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.canRewind = canRewind
        behaviour.recordingCapacity = periods * 256 + 4096
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let renderer = TransportRenderer(mixer: try mixer())
        let player = try PlayerCore(renderer: renderer, device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3, periodFrames: 256, bufferFrames: 1024))
        var rng = SplitMix64(seed: seed)
        player.send(.play(fromTimelineFrame: 0))
        var events: [EngineEvent] = []
        for _ in 0..<periods {
            if rng.unit() < commandChance {
                let total = renderer.mixer.frameCount
                let commands: [TransportCommand] = [.pause, .resume, .seek(toTimelineFrame: FrameIndex(rng.unit() * Double(total))),
                                                    .play(fromTimelineFrame: FrameIndex(rng.unit() * Double(total))), .stop]
                player.send(commands[Int(rng.unit() * Double(commands.count))])
            }
            if rng.unit() < 0.01 { device.injectUnderrun() }
            try player.step()
            while let e = player.events.pop() { events.append(e) }
            clock.advance(seconds: 256.0 / 48_000 * (0.5 + rng.unit()))
        }
        // Let the device play what is queued.
        clock.advance(seconds: 1)
        _ = try? device.availableFrames()
        while let e = player.events.pop() { events.append(e) }
        return (device, events, renderer)
    }

    @Test("Random schedules: the device stream equals the replay of the log", arguments: [1, 2, 3, 4, 5] as [UInt64], [true, false])
    func replayEqualsDevice(seed: UInt64, canRewind: Bool) throws {
        let (device, events, renderer) = try Self.run(seed: seed, canRewind: canRewind)
        let played = device.recording
        let frames = played.count / 3
        #expect(frames > 48_000)
        let replay = Replay(events: events)
        let replayed = try replay.deviceStream(frames: frames, renderer: renderer)
        let firstDifference = zip(played, replayed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at sample \(firstDifference ?? -1) of \(played.count)")
        let commands = events.filter { if case .command = $0 { return true } else { return false } }.count
        #expect(commands > 5)
    }

    @Test("1 000 seeded command schedules: every device stream equals its replay")
    func thousandSchedules() throws {
        var mismatches: [UInt64] = []
        for seed in UInt64(1_000)..<UInt64(2_000) {
            let (device, events, renderer) = try Self.run(seed: seed, canRewind: seed % 2 == 0, periods: 40, commandChance: 0.3)
            let frames = device.recording.count / 3
            let replayed = try Replay(events: events).deviceStream(frames: frames, renderer: renderer)
            if replayed != device.recording { mismatches.append(seed) }
        }
        #expect(mismatches.isEmpty, "seeds whose replay differs: \(mismatches.prefix(10))")
    }

    @Test("Effective frames: at the write head without rewind, just past the heard position with it")
    func effectiveFrames() throws {
        for canRewind in [false, true] {
            let (device, events, _) = try Self.run(seed: 9, canRewind: canRewind, periods: 200)
            _ = device
            var last: FrameIndex = -1
            for case let .command(_, _, effective, state) in events {
                #expect(effective >= last, "effective frames never go back")
                #expect(state.anchor <= effective, "a state starts at its effective frame, or earlier when the command changed nothing")
                last = effective
            }
        }
    }

    @Test("The event log round-trips through text, and its replay still equals the device")
    func logRoundTrip() throws {
        let (device, events, renderer) = try Self.run(seed: 11, canRewind: true)
        let frames = device.recording.count / 3
        let header = EngineLog.Header(input: "p.json", preset: nil, layout: "stereo+haptic", sampleRate: 48_000, profile: "wideband",
                                      loopCount: 2, reverse: true)
        let text = EngineLog.text(header: header, events: events, playedFrames: FrameIndex(frames))
        #expect(text.split(separator: "\n").allSatisfy { !$0.contains("\"position\"") })
        let parsed = try EngineLog.parse(text)
        #expect(parsed.header == header)
        #expect(parsed.playedFrames == FrameIndex(frames))
        let logged = events.filter { if case .position = $0 { return false } else { return true } }
        #expect(parsed.events == logged)
        let same = try Replay(events: parsed.events).deviceStream(frames: frames, renderer: renderer) == device.recording
        #expect(same)
    }

    @Test("A broken log is refused with its line number", arguments: [
        ("", 1), ("{\"event\": \"command\"}\n", 1), ("{\"event\":\"header\"}\n", 1),
        ("{\"event\":\"header\",\"input\":\"x\",\"layout\":\"mix\",\"profile\":\"wideband\",\"sampleRate\":48000,\"gain\":1,\"audioGain\":1,\"hapticOffset\":0,\"loopCount\":1}\nnot json\n", 2),
    ])
    func brokenLogs(text: String, line: Int) {
        #expect(throws: EngineLog.ParseError.self) { try EngineLog.parse(text) }
        do { _ = try EngineLog.parse(text) } catch { #expect(error.line == line, "\(error)") }
    }
}
