import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarPipeWire
import PulsarSimulation
import Testing
@testable import PulsarSession

/// The session layer every front end sets its devices up through: one reading of a device's
/// name, one set of defaults, one scheduling rule.
@Suite struct SessionTests {
    static let rate = SampleRate(48_000)!

    @Test("Device names: auto, the simulated device with its options, ALSA names; a bad one says why and is usage")
    func parsing() throws {
        guard case .auto = try DeviceSpec(parsing: "auto", rate: Self.rate) else { Issue.record("auto"); return }
        guard case .simulated(let plain) = try DeviceSpec(parsing: "sim", rate: Self.rate) else { Issue.record("sim"); return }
        #expect(plain.behaviour.rateErrorPPM == 0 && plain.record == nil)
        guard case .simulated(let spec) = try DeviceSpec(parsing: "sim:ppm=150,record=out.wav,paced", rate: Self.rate) else { Issue.record("sim:…"); return }
        #expect(spec.behaviour.rateErrorPPM == 150 && spec.record == "out.wav" && spec.paced)
        #expect(try DeviceSpec(parsing: "sim:record=x.wav", rate: Self.rate).recordPath == "x.wav")
        guard case .alsa(let name) = try DeviceSpec(parsing: "hw:CARD=Foo,DEV=0", rate: Self.rate) else { Issue.record("alsa"); return }
        #expect(name == "hw:CARD=Foo,DEV=0")
        #expect(try DeviceSpec(parsing: "sim", rate: Self.rate).isSimulated && !(try DeviceSpec(parsing: "pipewire", rate: Self.rate).isSimulated))
        guard case .pipewire(nil) = try DeviceSpec(parsing: "pw:", rate: Self.rate) else { Issue.record("pw:"); return }
        guard case .pipewire("test-sink") = try DeviceSpec(parsing: "pw:test-sink", rate: Self.rate) else { Issue.record("pw:NODE"); return }
        guard case .pipewire("42") = try DeviceSpec(parsing: "pw:42", rate: Self.rate) else { Issue.record("pw:SERIAL"); return }
        for (text, says) in [("", "needs auto, dualsense[:pro-audio], pw:[NODE], sim"), ("sim:ppm=x", "ppm"), ("sim:jitter", "is not key=value"),
                             ("pw:a,b", "pw:NODE names one node")] {
            do {
                _ = try DeviceSpec(parsing: text, rate: Self.rate)
                Issue.record("'\(text)' was taken")
            } catch {
                #expect(error.kind == .usage, "'\(text)'")
                #expect(error.description.contains(says), "'\(text)': \(error.description)")
            }
        }
    }

    @Test("dualsense with no haptic card is 'unavailable', naming where it looked")
    func dualsenseAbsent() throws {
        try #require(SoundCards.haptic().isEmpty, "this test runs where no haptic card is plugged in")
        for text in ["dualsense", "dualsense:pro-audio"] {
            do {
                _ = try DeviceSpec(parsing: text, rate: Self.rate)
                Issue.record("\(text) taken")
            } catch {
                #expect(error.kind == .unavailable)
                #expect(error.description.hasPrefix("dualsense: no haptic sound card found in"), "\(error.description)")
            }
        }
    }

    @Test("Defaults: 128-frame periods on a sound device, 256 on the simulated one, 4 periods of buffer, 32 voices")
    func defaults() {
        #expect(SessionPolicy.defaultPeriod(simulated: false) == 128 && SessionPolicy.defaultPeriod(simulated: true) == 256)
        #expect(SessionPolicy.defaultBufferPeriods == 4 && SessionPolicy.bufferRange(period: 128) == 256...8_192)
        #expect(SessionPolicy.periodRange == 16...16_384 && SessionPolicy.voiceLimitRange == 1...128 && SessionPolicy.defaultVoiceLimit == 32)
    }

    @Test("SCHED_FIFO when either device is a sound device, not for simulated devices alone")
    func schedulingRule() {
        let sim = { SimulatedDevice(clock: ManualClock(), behaviour: .init()) }
        #expect(!SessionPolicy.wantsRealtime(main: sim(), haptic: nil))
        #expect(!SessionPolicy.wantsRealtime(main: sim(), haptic: sim()))
        #expect(SessionPolicy.wantsRealtime(main: ALSADevice(name: "null"), haptic: nil))
        #expect(SessionPolicy.wantsRealtime(main: ALSADevice(name: "null"), haptic: sim()))
        #expect(SessionPolicy.wantsRealtime(main: sim(), haptic: ALSADevice(name: "null")), "a haptic sound device beside a simulated main one")
        #expect(SessionPolicy.wantsRealtime(main: PipeWireDevice(), haptic: nil) && SessionPolicy.wantsRealtime(main: sim(), haptic: PipeWireDevice()))
    }

    @Test("An engine on one and on two simulated devices: the request's period, buffer and voices; no SCHED_FIFO")
    func engines() throws {
        let clock = ManualClock()
        let make = SessionClock(clock)
        let one = try SessionEngine(.init(main: try DeviceSpec(parsing: "sim", rate: Self.rate), sampleRate: Self.rate, channels: 3, periodFrames: 64,
                                          bufferFrames: 256, voiceLimit: 5), clock: make)
        #expect(one.name == "sim" && one.hapticDevice == nil && !one.engine.realtime)
        #expect(one.engine.configuration.periodFrames == 64 && one.engine.configuration.bufferFrames == 256 && one.engine.voiceLimit == 5)
        let two = try SessionEngine(.init(main: try DeviceSpec(parsing: "sim", rate: Self.rate), haptic: (try DeviceSpec(parsing: "sim", rate: Self.rate), .haptic),
                                          sampleRate: Self.rate, channels: 3, periodFrames: 64, bufferFrames: 256, latency: (0.002, 0.004)),
                                    clock: make)
        #expect(two.hapticName == "sim" && two.hapticDevice is SimulatedDevice && !two.engine.realtime)
        #expect(two.engine.mainChannels == 2 && two.engine.hapticDeviceConfiguration?.channels == 1)
        one.engine.shutdown()
        two.engine.shutdown()
    }

    @Test("auto falls back to the simulated device only when the front end asks, and says why")
    func autoFallback() throws {
        let clock = ManualClock()
        let make = SessionClock(clock)
        let request = SessionEngine.Request(main: .alsa("no-such-pcm-name"), sampleRate: Self.rate, channels: 1, periodFrames: 64, bufferFrames: 256)
        do {
            _ = try SessionEngine(request, clock: make)
            Issue.record("an unknown ALSA name opened")
        } catch {
            #expect(error.kind == .device)
        }
        var told: [String] = []
        var auto = request
        auto.main = .auto
        if let opened = try? SessionEngine(auto, clock: make, fallback: { told.append("\($0)") }) {
            // Where a PipeWire server answers with a sink, auto plays on it natively; else where
            // ALSA `default` opens, on that; elsewhere the simulated device plays and the reason
            // is given once.
            let pipeWire = ((try? PipeWireGraph.nodes()) ?? []).contains(where: \.isSink)
            #expect(opened.name == (!told.isEmpty ? "sim" : pipeWire ? "pw:" : "default"))
            #expect(told.count <= 1)
            opened.engine.shutdown()
        }
    }

    @Test("A single player opens through the same path: its devices, its period and buffer, the same SCHED_FIFO rule as an engine's")
    func players() throws {
        let clock = ManualClock()
        let make = SessionClock(clock)
        let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.6), ValuePoint(time: 100, value: 0.6)],
                                                                       frequency: [ValuePoint(time: 0, value: 0.5)]))
        var settings = MixSettings(sampleRate: Self.rate, layout: .stereoHaptic)
        settings.preloadAudio = true
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings)
        let sim = try DeviceSpec(parsing: "sim", rate: Self.rate)
        let two = SessionEngine.Request(main: sim, haptic: (sim, .haptic), sampleRate: Self.rate, channels: 3, periodFrames: 64, bufferFrames: 256)
        let player = try SessionPlayer(two, mixer: mixer, animationFrameRate: nil, clock: make)
        #expect(player.name == "sim" && player.hapticName == "sim" && player.hapticDevice is SimulatedDevice && !player.player.asksRealtime)
        #expect(player.player.configuration.periodFrames == 64 && player.player.configuration.bufferFrames == 256)
        // A sound device among the two: both front ends' set-ups ask for SCHED_FIFO (ALSA's null
        // PCM, which needs no card).
        var withSound = two
        withSound.haptic = (.alsa("null"), .haptic)
        let engine = try SessionEngine(withSound, clock: make)
        let soundPlayer = try SessionPlayer(withSound, mixer: mixer, animationFrameRate: nil, clock: make)
        #expect(engine.engine.realtime && soundPlayer.player.asksRealtime)
        var mainSound = withSound
        (mainSound.main, mainSound.haptic) = (.alsa("null"), nil)
        let mainPlayer = try SessionPlayer(mainSound, mixer: mixer, animationFrameRate: nil, clock: make)
        #expect(mainPlayer.name == "null" && mainPlayer.hapticDevice == nil && mainPlayer.player.asksRealtime)
        for p in [player, soundPlayer, mainPlayer] { p.player.shutdown() }
        engine.engine.shutdown()
    }
}
