#if canImport(Glibc)
import Glibc
#endif
import PulsarAudio
import PulsarBundle
import PulsarCommandLine
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarPipeWire
import PulsarSession

/// One input through one reader, as a fuzz target runs it and as `make test` replays the
/// findings kept under `Tests/Fixtures/fuzz/<target>/`: the same function either way. Each
/// entry must return for any bytes — a crash, a trap, a hang or an allocation beyond bounds is
/// a finding. Errors thrown by the readers are the expected outcome for most inputs and are
/// dropped.
///
/// Thread rules: each call is independent; `bundle` and `ahap-audio` use scratch files named by
/// the process, so one process calls them from one thread at a time.
public enum FuzzEntry {
    /// The targets by name: the name is the fixture folder and the `make fuzz` target.
    public static let targets: [String: @Sendable ([UInt8]) -> Void] = [
        "pattern": pattern, "bundle": bundle, "lottie": lottie, "replay": replay, "script": script, "arguments": arguments,
        "script-play": scriptPlay, "ogg": ogg, "ahap-audio": ahapAudio, "capi": capi, "pw-dump": pipeWireDump,
        "actuator": actuator, "video-options": videoOptions,
    ]

    /// A PipeWire graph in `pw-dump`'s JSON, as `pulsar devices` and `--device dualsense` read
    /// it: its cards, nodes and positions, and every haptic card's state in words.
    public static func pipeWireDump(_ bytes: [UInt8]) {
        guard let snapshot = try? PipeWireSnapshot(json: bytes) else { return }
        for card in snapshot.cards { _ = (card.usbID, snapshot.sinks(of: card).map(\.positions)) }
        for card in PipeWireHapticCard.all(in: snapshot) { _ = (card.lines, card.obstacle, card.hapticPositions, card.switchCommand) }
        _ = PipeWireGraph.autoObstacle(.success(snapshot.nodes))
    }

    /// Pulsar JSON, AHAP and Lofelt `.haptic`: decoded as each format and by content; a pattern
    /// that loads is rendered (its first 4096 samples and its last).
    public static func pattern(_ bytes: [UInt8]) {
        for format in [PatternFormat.pulsarJSON, .ahap, .lofelt, nil] {
            guard let loaded = try? PatternLoader().decode(bytes, format: format) else { continue }
            renderEdges(loaded.pattern)
            if let clip = loaded.lofeltClip { renderEdges(MetaHapticRenderer(clip: clip, config: consoleConfig, sampleRate: SampleRate(48_000)!)) }
            // Any pattern as the clip it maps to, through a config with every key of this project's.
            let mapped = LofeltClip(pattern: loaded.pattern, emphasis: limitedConfig.emphasis)
            renderEdges(MetaHapticRenderer(clip: mapped, config: limitedConfig, sampleRate: SampleRate(48_000)!))
        }
    }

    /// An actuator config (JSON5, either model): read and checked; one that a rate of 8 kHz can
    /// play renders a clip with a ramp and emphases at frequencies 0, ½ and 1 through it, read
    /// through its laws, as the mixer renders for it, and a burst one mirrored as well.
    public static func actuator(_ bytes: [UInt8]) {
        guard let actuator = try? Actuator.decode(bytes, name: "fuzz").actuator else { return }
        let rate = SampleRate(8_000)!
        guard actuator.problem(at: rate) == nil else { return }
        let clip = LofeltClip(amplitude: [
            .init(time: 0, amplitude: 0.2), .init(time: 0.01, amplitude: 0.9, emphasis: .init(amplitude: 1, frequency: 0)),
            .init(time: 0.02, amplitude: 0.5, emphasis: .init(amplitude: 0.5, frequency: 0.5)),
            .init(time: 0.04, amplitude: 0.1, emphasis: .init(amplitude: 1, frequency: 1)), .init(time: 0.1, amplitude: 0),
        ], frequency: [.init(time: 0, frequency: 0), .init(time: 0.1, frequency: 1)])
        let pattern = clip.pattern(amplitude: actuator.amplitudeLaw, frequency: actuator.frequencyLaw)
        guard let renderer = try? ActuatorRenderer(pattern: pattern, clip: clip, actuator: actuator, profile: actuator.profile, sampleRate: rate) else { return }
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { block.deallocate() }
        _ = renderer.render(into: block, from: 0)
        _ = renderer.render(into: block, from: max(renderer.frameCount - 4096, 0))
        // Backwards, mirrored about a point inside the clip and one before it (points move later).
        if let config = actuator.burstConfig {
            for axis in [0.03, -0.02] {
                let mirrored = ActuatorRenderer(mirroring: clip, around: axis, config: config, gain: 1.5, sampleRate: rate)
                _ = mirrored.render(into: block, from: 0)
            }
        }
    }

    /// The shipped DualSense config's numbers: band-limited, risen bursts, the ducking ramped.
    private static let limitedConfig = MetaActuatorConfig(
        continuous: .init(gain: 1, emphasisDucking: 0, frequencyMin: 60, frequencyMax: 300, duckingRampMs: 2),
        emphasis: .init(gain: 0.8, fadeOutPercent: 100, frequencyMin: .init(outputFrequency: 100, durationMs: 20, shape: .sine),
                        frequencyMax: .init(outputFrequency: 160, durationMs: 12.5, shape: .square), bandLimitHertz: 400, riseMs: 3))

    /// Meta's console config, which `pattern` renders a `.haptic` clip through.
    private static let consoleConfig = MetaActuatorConfig(
        continuous: .init(gain: 1, emphasisDucking: 0.5, frequencyMin: 20, frequencyMax: 250),
        emphasis: .init(gain: 1, fadeOutPercent: 0, frequencyMin: .init(outputFrequency: 55, durationMs: 27, shape: .sine),
                        frequencyMax: .init(outputFrequency: 130, durationMs: 20, shape: .square)))

    /// A `.pulsar` ZIP: opened (every entry and manifest rule), each preset mixed at 8 kHz with
    /// its audio decoded, and its first block rendered. (A bundle folder goes through the same
    /// manifest and pattern readers, which the other entries cover.)
    public static func bundle(_ bytes: [UInt8]) {
        let path = "/tmp/pulsar-fuzz-bundle-\(getpid()).pulsar"
        defer { unlink(path) }
        guard (try? OutputFile.write(bytes, to: path)) != nil, let opened = try? PresetBundle.open(path) else { return }
        for preset in opened.presets {
            var settings = MixSettings(sampleRate: SampleRate(8_000)!)
            settings.preloadAudio = true
            guard let mixer = try? PresetMixer(preset: preset, settings: settings) else { continue }
            let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024 * mixer.channelCount)
            defer { block.deallocate() }
            _ = try? mixer.render(into: block, from: .zero)
        }
    }

    /// Lottie JSON or a dotLottie archive: the model, its timing, and every keypath.
    public static func lottie(_ bytes: [UInt8]) {
        guard let animation = try? LottieAnimation(bytes: bytes) else { return }
        _ = animation.allHierarchyKeypaths()
        _ = animation.timing.frame(atMilliseconds: 1000)
    }

    /// An event log or a follow log: rebuilt as `render --replay` rebuilds it (`SessionReplay`), every logged
    /// voice playing a small fixed pattern with its own settings, and at most 1 s of the main
    /// device's stream rendered (0.1 s of a haptic device's).
    public static func replay(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if FollowLog.isFollowLog(text) {
            // A follow log: read as `render --replay` reads it, then replayed over a silent input
            // when it played at most a second.
            guard let log = try? FollowLog(text: text), log.frames <= 48_000 else { return }
            _ = try? log.replay(input: [Float](repeating: 0, count: Int(log.frames) * log.channels))
            return
        }
        var pattern = PatternData()
        pattern.continuousPattern.amplitude = [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 200, value: 0)]
        pattern.continuousPattern.frequency = [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 200, value: 0.5)]
        let preset = PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern)
        guard let session = try? SessionReplay(logText: String(decoding: bytes, as: UTF8.self), path: "log", open: { _, _, _, _ in preset }) else { return }
        let limit = FrameIndex(session.rate.hertz)
        render(session, .main, frames: limit)
        render(session, .haptic, frames: limit / 10)
    }

    /// The first `frames` (at most) of `device`'s stream, when the log has that device.
    private static func render(_ session: SessionReplay, _ device: SessionReplay.Device, frames limit: FrameIndex) {
        guard var reader = try? session.reader(of: device) else { return }
        let channels = reader.stream.layout.channelCount
        let frames = Int(min(reader.stream.frames, limit))
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(frames, 1) * channels)
        defer { block.deallocate() }
        _ = try? reader.render(into: UnsafeMutableBufferPointer(rebasing: block[0..<(frames * channels)]))
    }

    /// A transport script.
    public static func script(_ bytes: [UInt8]) {
        _ = try? TransportScript(text: String(decoding: bytes, as: UTF8.self), name: "script")
    }

    /// A transport script played by `pulsar play`'s voices on an engine stepped offline
    /// (`ScriptPlay`): three voices, every command.
    public static func scriptPlay(_ bytes: [UInt8]) {
        ScriptPlay.run(String(decoding: bytes, as: UTF8.self))
    }

    /// An Ogg Vorbis file: its comments, `ANDROID_HAPTIC` and its warning, the audio and haptic
    /// streams decoded in part (`OggEntry`).
    public static func ogg(_ bytes: [UInt8]) {
        OggEntry.run(bytes)
    }

    /// An AHAP with `AudioCustom` events converted to a bundle folder among links and files
    /// that lead out of its folder; writing or copying outside is a trap (`AHAPAudioEntry`).
    public static func ahapAudio(_ bytes: [UInt8]) {
        AHAPAudioEntry.run(bytes)
    }

    /// A sequence of C API calls on engines, voices and mixes (`CAPIEntry`); nothing when
    /// libpulsar is not at hand (`CAPI.isAvailable`).
    public static func capi(_ bytes: [UInt8]) {
        CAPIEntry.run(bytes)
    }

    /// A command line (words separated by NUL bytes) against `render`'s and `play`'s options,
    /// then every typed accessor on every option.
    public static func arguments(_ bytes: [UInt8]) {
        let words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let valued = ["--preset", "--rate", "--profile", "--gain", "--offset", "--audio-offset", "--duration", "--from", "--to",
                      "--loop", "--layout", "--format", "-o", "--script", "--log", "--size", "--at", "--frame", "--set"]
        let flags = ["--quiet", "--reverse", "--no-haptics", "--strict", "--verbose"]
        let options = valued.map { Arguments.Option(names: [$0], takesValue: true) } + flags.map { Arguments.Option(names: [$0], takesValue: false) }
        guard let args = try? Arguments(words, options: options, command: "pulsar fuzz") else { return }
        for name in valued {
            _ = try? args.number(name, command: "c")
            _ = try? args.milliseconds(name, signed: true, command: "c")
            _ = try? args.number(name, in: 0...16, command: "c")
            _ = try? args.integer(name, default: 1, in: 1...1_000_000, command: "c")
            _ = args.repeatedValues(name)
        }
        _ = try? args.singleInput(command: "c")
    }

    /// Renders a clip's first and last 4096 samples through a Meta config.
    private static func renderEdges(_ renderer: MetaHapticRenderer) {
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { block.deallocate() }
        _ = renderer.render(into: block, from: 0)
        _ = renderer.render(into: block, from: max(renderer.frameCount - 4096, 0))
    }

    /// Renders a pattern's first and last 4096 samples at 48 kHz.
    private static func renderEdges(_ pattern: PatternData) {
        guard let renderer = try? PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!) else { return }
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096)
        defer { block.deallocate() }
        _ = renderer.render(into: block, from: 0)
        _ = renderer.render(into: block, from: max(renderer.frameCount - 4096, 0))
    }
}
