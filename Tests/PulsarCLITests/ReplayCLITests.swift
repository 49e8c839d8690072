import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Testing

/// `pulsar render --replay LOG` rebuilds, from the log alone, the samples a device played.
@Suite("Replay CLI")
struct ReplayCLITests {
    @Test("A play on the simulated device, logged, replays to the same samples")
    func replay() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.3}, {"time": 600, "value": 0.7}], "frequency": [{"time": 0, "value": 0.2}, {"time": 600, "value": 0.8}]}, "discretePattern": [{"time": 100, "amplitude": 0.6, "frequency": 0.9}, {"time": 420, "amplitude": 0.4, "frequency": 0.1}]}"#, to: "p.json")
        let header = EngineLog.Header(input: pattern, preset: nil, layout: "mix", sampleRate: 48_000, profile: "lra", gain: 0.8,
                                      loopCount: 3, reverse: true)
        var settings = MixSettings(sampleRate: SampleRate(48_000)!, layout: .mix, profile: ActuatorProfile.lra())
        settings.profile.gain = 0.8
        settings.preloadAudio = true
        let loaded = try PatternLoader().load(contentsOf: pattern)
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: loaded.pattern), settings: settings,
                                    range: PlaybackRange(loopCount: 3, reverse: true))
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = 200_000
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let player = try PlayerCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 2, periodFrames: 256, bufferFrames: 1024))
        var events: [EngineEvent] = []
        let script: [Int: TransportCommand] = [0: .play(fromTimelineFrame: 0), 20: .pause, 30: .resume, 60: .seek(toTimelineFrame: 30_000),
                                               90: .pause, 95: .seek(toTimelineFrame: 4_000), 100: .resume, 200: .play(fromTimelineFrame: 70_000)]
        for period in 0..<400 {
            if let command = script[period] { player.send(command) }
            try player.step()
            while let e = player.events.pop() { events.append(e) }
            clock.advance(seconds: 256.0 / 48_000)
        }
        let frames = device.recording.count / 2
        let log = dir.file("play.jsonl")
        try EngineLog.text(header: header, events: events, playedFrames: FrameIndex(frames)).write(toFile: log, atomically: true, encoding: .utf8)

        let out = dir.file("replay.wav")
        let r = try CLI.run(["render", "--replay", log, "-o", out])
        #expect(r.status == 0, "\(r)")
        let wav = try AudioFileContents(contentsOf: out)
        #expect(wav.channels == 2 && wav.frameCount == frames)
        let same = wav.samples == device.recording
        #expect(same, "the replay equals what the device played, in float")
        #expect(events.contains { if case .completion(true, _) = $0 { return true } else { return false } }, "the last play ran to its end")

        let broken = try dir.write("{\"event\": \"header\"}\n", to: "bad.jsonl")
        let bad = try CLI.run(["render", "--replay", broken, "-o", dir.file("bad.wav")])
        #expect(bad.status == 65 && bad.stderr.contains("bad.jsonl:1:"), "\(bad)")
        #expect(!dir.exists(dir.file("bad.wav")))
    }
}
