import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// `pulsar render --replay LOG` rebuilds, from the log alone, the samples a device played.
@Suite("Replay CLI")
struct ReplayCLITests {
    @Test("A play on the simulated device, logged, replays to the same samples")
    func replay() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.3}, {"time": 600, "value": 0.7}], "frequency": [{"time": 0, "value": 0.2}, {"time": 600, "value": 0.8}]}, "discretePattern": [{"time": 100, "amplitude": 0.6, "frequency": 0.9}, {"time": 420, "amplitude": 0.4, "frequency": 0.1}]}"#, to: "p.json")
        let header = EngineLog.Header(input: pattern, preset: nil, layout: "mix", sampleRate: 48_000, profile: "lra",
                                      mix: LiveMix(loopCount: 3, reverse: true, hapticGain: 0.8))
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
        let player = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 2, periodFrames: 256, bufferFrames: 1024))
        var events: [EngineEvent] = []
        let script: [Int: TransportCommand] = [0: .play(fromTimelineFrame: 0), 20: .pause, 30: .resume, 60: .seek(toTimelineFrame: 30_000),
                                               90: .pause, 95: .seek(toTimelineFrame: 4_000), 100: .resume, 200: .play(fromTimelineFrame: 70_000)]
        for period in 0..<400 {
            if let command = script[period] { player.send(EngineCommand(command)) }
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
        #expect(events.contains { if case .completion(_, true, _) = $0 { return true } else { return false } }, "the last play ran to its end")

        let broken = try dir.write("{\"event\": \"header\"}\n", to: "bad.jsonl")
        let bad = try CLI.run(["render", "--replay", broken, "-o", dir.file("bad.wav")])
        #expect(bad.status == 65 && bad.stderr.contains("bad.jsonl:1:"), "\(bad)")
        #expect(!dir.exists(dir.file("bad.wav")))
    }

    @Test("pulsar play on the simulated device with a script: its recording equals render --replay of its log")
    func playThenReplay() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.4}, {"time": 500, "value": 0.6}]}, "discretePattern": [{"time": 120, "amplitude": 0.5, "frequency": 0.5}]}"#, to: "p.json")
        let script = try dir.write("""
        # seeks, pauses and a restart
        at 0 play
        at 80 pause
        at 140 resume
        at 200 seek 300
        at 260 play 100
        """, to: "s.txt")
        let r = try CLI.run(["play", pattern, "--loop", "2", "--reverse", "--device", "sim:ppm=200,jitter=0.5,record=\(dir.file("r.wav"))",
                             "--script", script, "--log", dir.file("l.jsonl")])
        #expect(r.status == 0, "\(r)")
        try Self.expectRecordingEqualsReplay(in: dir, atLeast: 24_000)
    }

    /// `render --replay l.jsonl` in `dir` gives exactly the simulated device's `r.wav`.
    static func expectRecordingEqualsReplay(in dir: TempDir, atLeast frames: Int) throws {
        let replay = try CLI.run(["render", "--replay", dir.file("l.jsonl"), "-o", dir.file("p.wav")])
        #expect(replay.status == 0, "\(replay)")
        let recorded = try AudioFileContents(contentsOf: dir.file("r.wav"))
        let replayed = try AudioFileContents(contentsOf: dir.file("p.wav"))
        #expect(recorded.frameCount > frames)
        let same = recorded.samples == replayed.samples
        #expect(same, "bit-identical in float")
    }

    @Test("A bad script line is an error naming its line", arguments: [
        "at 0 play\nat 10 jump\n", "at x play\n", "at 0 seek\n", "at 50 pause\nat 10 resume\n",
        "at 0 loop 0\n", "at 0 loop forever sideways\n", "at 0 loop off reverse\n", "at 0 haptics maybe\n",
        "at 0 gain bass 1\n", "at 0 gain audio -1\n", "at 0 offset\n", "at 0 offset NaN\n",
    ])
    func badScript(text: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"discretePattern": [{"time": 0, "amplitude": 0.5, "frequency": 0.5}]}"#, to: "p.json")
        let script = try dir.write(text, to: "s.txt")
        let r = try CLI.run(["play", pattern, "--script", script, "--device", "sim"])
        #expect(r.status == 65, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains("s.txt:"), "\(r)")
    }

    @Test("A script with CRLF line ends: a bad second line is named as line 2, on one clean line; a good one plays")
    func crlfScript() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"discretePattern": [{"time": 0, "amplitude": 0.5, "frequency": 0.5}]}"#, to: "p.json")
        let bad = try dir.write("at 0 play\r\nat 10 jump\r\n", to: "bad.txt")
        let r = try CLI.run(["play", pattern, "--script", bad, "--device", "sim"])
        #expect(r.status == 65 && r.stderr.contains("bad.txt:2:"), "\(r)")
        #expect(r.stderrLines.count == 1 && !r.stderr.contains("\r"), "\(r)")
        let good = try dir.write("at 0 play\r\nat 5 pause\r\nat 10 resume\r\n", to: "good.txt")
        let g = try CLI.run(["play", pattern, "--script", good, "--device", "sim"])
        #expect(g.status == 0, "\(g)")
    }

    @Test("The demo bundle played with a script full of seeks, pauses, loop, offset, haptics and gain changes: recording = replay; the clock log has a line per tick",
          .enabled(if: BundleCLITests.bundlesAvailable, "needs ../shared/corpus"))
    func demoBundleLiveChanges() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let bundle = (try BundleCLITests.bundles) + "/demo.pulsar"
        let script = try dir.write("""
        at 0 play
        at 120 loop 3 reverse
        at 200 pause
        at 260 resume
        at 330 seek 150
        at 400 offset 25
        at 470 haptics off
        at 540 haptics on
        at 600 gain audio 0.5
        at 650 gain haptic 1.5
        at 700 loop forever
        at 800 seek 20
        at 860 pause
        at 900 seek 400
        at 940 resume
        at 1000 loop off
        at 1100 loop 2
        at 1250 stop
        """, to: "s.txt")
        let r = try CLI.run(["play", bundle, "--preset", "verified", "--layout", "stereo+haptic",
                             "--device", "sim:ppm=200,jitter=0.5,record=\(dir.file("r.wav"))", "--script", script,
                             "--log", dir.file("l.jsonl"), "--clock-log", dir.file("c.jsonl")])
        #expect(r.status == 0, "\(r)")
        try Self.expectRecordingEqualsReplay(in: dir, atLeast: 48_000)
        let log = try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8)
        #expect(log.components(separatedBy: "\"name\": \"mix\"").count - 1 >= 9, "every loop, offset, haptics and gain line became a logged mix change")
        let ticks = try String(contentsOfFile: dir.file("c.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(ticks.count >= 50, "about 60 ticks a second for 1.25 s: \(ticks.count)")
        let parsed = ticks.compactMap { try? JSONParser().parse(Array($0.utf8)) }
        #expect(parsed.count == ticks.count)
        let times = parsed.compactMap { $0["timeNs"]?.number }
        #expect(times == times.sorted() && times.count == ticks.count)
        #expect(parsed.filter { $0["contentMs"]?.number != nil && $0["trueContentMs"]?.number != nil }.count > ticks.count / 2)
    }

    @Test("An endless loop is for live play only: render refuses --loop forever")
    func renderRefusesForever() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"discretePattern": [{"time": 0, "amplitude": 0.5, "frequency": 0.5}]}"#, to: "p.json")
        let r = try CLI.run(["render", pattern, "--loop", "forever", "-o", dir.file("o.wav")])
        #expect(r.status == 64, "\(r)")
        #expect(!dir.exists(dir.file("o.wav")))
    }

    @Test("--device auto without a sound server: one line says so, and the simulated device plays")
    func autoFallsBack() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let pattern = try dir.write(#"{"discretePattern": [{"time": 0, "amplitude": 0.5, "frequency": 0.5}]}"#, to: "p.json")
        // A runtime directory with no server in it: ALSA `default` (PipeWire's plugin) cannot connect.
        let empty = dir.file("run")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let r = try CLI.run(["play", pattern, "--device", "auto", "--log", dir.file("l.jsonl")],
                            environment: ["XDG_RUNTIME_DIR": empty, "PIPEWIRE_RUNTIME_DIR": empty, "PULSE_SERVER": "unix:" + empty + "/none"])
        #expect(r.status == 0, "\(r)")
        let notes = r.stderrLines.filter { $0.contains("no sound device") }
        #expect(notes.count == 1 && notes[0].contains("simulated device"), "\(r.stderr)")
        #expect(r.stderr.contains("on the simulated device"))
        #expect(FileManager.default.fileExists(atPath: dir.file("l.jsonl")))
    }

    @Test("pulsar devices lists the ALSA playback devices and the two built-in choices")
    func devices() throws {
        let r = try CLI.run(["devices"])
        #expect(r.status == 0, "\(r)")
        let names = r.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init)
        #expect(names.suffix(2) == ["auto", "sim"], "\(r.stdout)")
        #expect(try CLI.run(["devices", "extra"]).status == 64)
    }
}
