#if canImport(Glibc)
import Glibc
#endif
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCommandLine
import PulsarCore
import PulsarSession
import PulsarDrift
import PulsarEngine
import PulsarPlot
import PulsarSimulation
import Synchronization

/// `pulsar drift [INPUT] --device D [--device D2] --seconds N`: plays silence (or a preset, looped)
/// through the real engine and measures, from each device's own position readings, its rate
/// against `CLOCK_MONOTONIC`, the readings' jitter and granularity, and the device-slaved clock's
/// error and lock-in (docs/drift.md).
enum DriftCommand {
    static let help = """
    usage: pulsar drift [INPUT [--preset ID]] [--device auto|NAME|pw:[NODE]|sim[:…]] [--device B] [--seconds N]
                        [--rate HZ] [--period FRAMES] [--buffer FRAMES] [--layout L]
                        [--profile P] [--time-unit U] [--json FILE] [--plot FILE.png|FILE.svg] [--quiet]

    Measures how a device's clock drifts against the system's monotonic clock, and how well the
    engine's device-slaved clock follows it. It plays silence (or INPUT's preset, looped, so the
    measurement covers real work) through the real engine for N seconds (default 60) and reads
    the device's own position reports:

      rate        the device's sample rate against CLOCK_MONOTONIC, its error in ppm with a 95 %
                  interval, and what a wall clock would be off by after an hour
      jitter      the readings' distance from the fitted line (p50 / p99 / max), and the
                  granularity (frames per position update)
      clock       the device-slaved clock's prediction for each reading against the reading
                  (p50 / p99 / max, samples and µs), and its lock-in: when it first stays within
                  one sample (of the truth on the simulated device, of the fitted line otherwise)
      device      late wake-ups of the real-time thread, underruns, the period and buffer
                  negotiated, the scheduling class

    On the simulated device (`sim:ppm=P,jitter=MS,granularity=N,latency=MS`) the run is on
    simulated time — an hour in seconds, and says so — and the truth is reported too: the
    configured ppm and the clock's error against the frame really being heard. `sim:…,paced`
    runs it on the system clock instead, as `pulsar play` does. Two --device options measure
    both devices in one run and report their rate ratio in ppm: what sound on one and haptics
    on the other would drift by.

    options:
      --device D          auto (the default), an ALSA PCM name (see `pulsar devices`), or sim[:…]
      --seconds N         how long to measure (default 60; at most 86400)
      --rate HZ           the nominal sample rate (default 48000)
      --period FRAMES     device period (default 128 on sound devices, 256 on sim)
      --buffer FRAMES     device buffer (default 4 periods)
      --layout L          channels of silence (default 2: `0,0`) or INPUT's layout (`pulsar play`'s)
      --profile P         INPUT's actuator band, as `pulsar render` takes it (default wideband)
      --time-unit U       how to read a Pulsar JSON INPUT's times: auto (default), ms or s
      --json FILE         the figures as one JSON object ("complete": false when the run ended early)
      --plot FILE         the clock's error and the readings' residuals over time (PNG or SVG)
      --quiet             no progress line, no summary
      -h, --help          this help

    Exit codes: 0 measured; 64 usage; 65/66 bad or missing INPUT; 69 a device could not be opened
    or failed during the run (what was measured until then is still written to --json and
    --plot); 74 an output could not be written; 130 interrupted (partial results written).
    """

    static let command = "pulsar drift"

    static let options: [Arguments.Option] = [
        .value("--preset", completion: .presets), .value("--device", completion: .devices, repeats: true),
        .value("--seconds"), .value("--rate"),
        .value("--period"), .value("--buffer"),
        .value("--layout", completion: .layouts), .value("--json", completion: .files),
        .value("--plot", completion: .files), .flag("--quiet"),
        .value("--profile", completion: .profiles), .value("--time-unit", completion: .timeUnits),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let options = try DriftOptions(words)
        let mixer = try DriftContent.mixer(options)
        let rig = try DriftRig(options, mixer: mixer)
        if !options.quiet, rig.isSimulatedTime {
            Console.error("\(command): simulated device on simulated time: \(format(options.seconds)) s of playing in however long the machine takes")
        }
        var session = DriftSession(probes: rig.probes, pacing: rig.pacing, seconds: options.seconds)
        let interrupt = DriftInterrupt()
        var progress = DriftProgress(enabled: !options.quiet && Console.stderrIsTerminal, total: options.seconds, probes: rig.probes)
        let started = SystemMonotonicClock().now()
        let outcome = session.run(progress: { progress.update($0) }, shouldStop: { interrupt.isSet })
        progress.finish()
        interrupt.restore()
        rig.noteScheduling()
        let complete: Bool
        if case .complete = outcome { complete = true } else { complete = false }
        let results = rig.probes.map { $0.result(complete: complete) }
        try write(results, probes: rig.probes, options: options)
        if !options.quiet {
            Console.out(DriftSummary.text(results, simulatedTime: rig.isSimulatedTime,
                                          machineSeconds: SystemMonotonicClock().now().seconds(since: started)))
        }
        try finish(outcome, options: options)
    }

    /// `--json` and `--plot`, each whole or not at all.
    private static func write(_ results: [DriftResult], probes: [DriftProbe], options: DriftOptions) throws(CommandFailure) {
        if let path = options.jsonPath {
            do {
                try OutputFile.write(Array(DriftJSON.text(results).utf8), to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
            }
        }
        if let path = options.plotPath {
            guard let figure = DriftPlot.figure(results, probes: probes) else {
                if !options.quiet { Console.error("pulsar drift: warning: too few position readings to plot; \(path) not written") }
                return
            }
            do {
                try figure.write(to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: \(error)")
            }
        }
    }

    /// The exit for a run that did not complete; nothing for one that did.
    private static func finish(_ outcome: DriftOutcome, options: DriftOptions) throws(CommandFailure) {
        let partial = [options.jsonPath, options.plotPath].compactMap { $0 }
        let written = partial.isEmpty ? "" : "; what was measured until then is in \(partial.joined(separator: " and "))"
        switch outcome {
        case .complete:
            return
        case let .deviceFailed(name, error):
            throw CommandFailure(.unavailable, "pulsar: error: device '\(MessageText.oneLine(name))': \(error)\(written)")
        case .interrupted:
            throw CommandFailure(.interrupted, "\(command): interrupted\(written)")
        }
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(printf: "%.3g", v)
    }
}

/// The command line of `pulsar drift`, checked before anything is opened.
struct DriftOptions {
    let args: Arguments
    let inputPath: String?
    let setup: RenderSetup
    let devices: [(text: String, choice: DeviceChoice)]
    let seconds: Double
    let period: Int
    let buffer: Int
    let jsonPath: String?
    let plotPath: String?
    var quiet: Bool { setup.quiet }

    init(_ words: [String]) throws(CommandFailure) {
        let command = DriftCommand.command
        args = try Arguments(words, options: DriftCommand.options, command: command)
        guard args.positionals.count <= 1 else {
            throw CommandFailure(.usage, "\(command): at most one INPUT (a bundle or a pattern), got \(args.positionals.count)")
        }
        inputPath = args.positionals.first
        if inputPath == nil, args.value("--preset") != nil {
            throw CommandFailure(.usage, "\(command): --preset needs an INPUT bundle")
        }
        setup = try RenderSetup(args, command: command)
        let texts = args.repeatedValues("--device").isEmpty ? ["auto"] : args.repeatedValues("--device")
        guard texts.count <= 2 else { throw CommandFailure(.usage, "\(command): at most two --device options, got \(texts.count)") }
        var devices: [(String, DeviceChoice)] = []
        for text in texts { devices.append((text, try DeviceChoice(parsing: text, rate: setup.rate, command: command))) }
        self.devices = devices
        seconds = try args.number("--seconds", in: 0.001...86_400, command: command) ?? 60
        (period, buffer) = try devices[0].1.periodAndBuffer(args, command: command)
        jsonPath = args.value("--json")
        plotPath = args.value("--plot")
        if let plotPath, !(plotPath.hasSuffix(".png") || plotPath.hasSuffix(".svg")) {
            throw CommandFailure(.usage, "\(command): --plot writes a .png or a .svg file, not '\(MessageText.oneLine(plotPath))'")
        }
        try Arguments.refuseOverwriting([jsonPath, plotPath], inputs: [inputPath], command: command)
    }
}

/// What `pulsar drift` plays: silence, or INPUT's preset looped without end.
enum DriftContent {
    static func mixer(_ options: DriftOptions) throws(CommandFailure) -> PresetMixer {
        let command = DriftCommand.command
        guard let path = options.inputPath else { return try silence(options) }
        let input = try PresetInput(path, setup: options.setup, strict: false)
        let preset = try input.select(options.args.value("--preset"), command: command)
        let mix = try MixOptions(options.args, setup: options.setup, isBundle: input.isBundle, endlessLoops: true, command: command)
        var settings = mix.settings
        settings.preloadAudio = true
        var range = mix.range
        range.loopCount = PlaybackTimeline.endless
        do {
            return try PresetMixer(preset: preset, settings: settings, range: range)
        } catch {
            throw CommandFailure(error, input: path, command: command, fromCommandLine: true)
        }
    }

    /// A second of zero amplitude, looped without end, in `--layout`'s channel count (2 by default).
    private static func silence(_ options: DriftOptions) throws(CommandFailure) -> PresetMixer {
        let command = DriftCommand.command
        var channels = 2
        if let text = options.args.value("--layout") {
            guard let layout = ChannelLayout(parsing: text) else {
                throw CommandFailure(.usage, "\(command): --layout must be mix, stereo+haptic, quad, haptic or a map like 0,0, not '\(MessageText.oneLine(text))'")
            }
            channels = layout.channelCount
        }
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 1000, value: 0)]))
        let layout = ChannelLayout(name: "silence", channels: Array(repeating: [.silence], count: channels))
        var settings = MixSettings(sampleRate: options.setup.rate, layout: layout, profile: options.setup.profile)
        settings.preloadAudio = true
        do {
            return try PresetMixer(preset: PresetHandle(id: "silence", name: "silence", duration: 0, pattern: pattern),
                                   settings: settings, range: PlaybackRange(loopCount: PlaybackTimeline.endless))
        } catch {
            throw CommandFailure(.software, "pulsar: error: silence: \(error)")
        }
    }
}

/// The devices `pulsar drift` measures, a player on each, and how time passes: simulated when
/// every device is the simulated one and none asks to be paced, the system clock otherwise.
struct DriftRig {
    let probes: [DriftProbe]
    let pacing: DriftPacing

    var isSimulatedTime: Bool {
        if case .simulated = pacing { return true }
        return false
    }

    init(_ options: DriftOptions, mixer: PresetMixer) throws(CommandFailure) {
        let simulatedTime = options.devices.allSatisfy {
            if case .simulated(let spec) = $0.choice { return !spec.paced }
            return false
        }
        let manual = simulatedTime ? ManualClock() : nil
        let monotonic: MonotonicClock = manual ?? SystemMonotonicClock()
        pacing = manual.map { .simulated($0) } ?? .system
        var probes: [DriftProbe] = []
        for (index, device) in options.devices.enumerated() {
            // Each player its own mixer: a mixer keeps its render state.
            let content = index == 0 ? mixer : try Self.copy(of: mixer)
            let session = try device.choice.openPlayer(
                mixer: content, clock: SessionClock(monotonic), period: options.period, buffer: options.buffer, animationFrameRate: nil,
                command: DriftCommand.command)
            let (player, opened, name) = (session.player, session.device, session.name)
            let shown = device.text == "auto" ? (name == "sim" ? "sim (no sound device)" : name) : device.text
            let probe = DriftProbe(name: shown, player: player, simulated: opened as? SimulatedDevice)
            if simulatedTime { probe.scheduling = "none (simulated time: the command steps the engine itself)" }
            probes.append(probe)
        }
        self.probes = probes
    }

    private static func copy(of mixer: PresetMixer) throws(CommandFailure) -> PresetMixer {
        do {
            return try mixer.adjusted(to: mixer.live)
        } catch {
            throw CommandFailure(.software, "pulsar: error: \(error)")
        }
    }

    /// Records what the real-time threads got, once they have run.
    func noteScheduling() {
        guard !isSimulatedTime else { return }
        for probe in probes {
            switch probe.player.hasRealtimeScheduling {
            case true?: probe.scheduling = "SCHED_FIFO, priority \(HapticPlayer.realtimePriority)"
            case false?: probe.scheduling = "SCHED_OTHER (SCHED_FIFO refused)"
            case nil: probe.scheduling = "SCHED_OTHER (simulated device)"
            }
        }
    }
}

/// Ctrl-C (SIGINT) and SIGTERM during a drift run: a flag the run checks, so it stops, writes
/// what it measured and exits 130. The handler only stores to an atomic.
final class DriftInterrupt: Sendable {
    private static let flag = Atomic<Bool>(false)

    init() {
        signal(SIGINT) { _ in DriftInterrupt.flag.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in DriftInterrupt.flag.store(true, ordering: .relaxed) }
    }

    var isSet: Bool { Self.flag.load(ordering: .relaxed) }

    /// Puts the default handlers back.
    func restore() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// The progress line on a terminal: seconds so far and each device's running rate error.
struct DriftProgress {
    let enabled: Bool
    let total: Double
    let probes: [DriftProbe]
    private var lastDraw: MonotonicTime?
    private let clock = SystemMonotonicClock()

    init(enabled: Bool, total: Double, probes: [DriftProbe]) {
        self.enabled = enabled
        self.total = total
        self.probes = probes
    }

    /// Redraws at most twice a second of machine time.
    mutating func update(_ seconds: Double) {
        guard enabled else { return }
        let now = clock.now()
        if let lastDraw, now.seconds(since: lastDraw) < 0.5 { return }
        lastDraw = now
        var text = String(printf: "\rdrift %.1f / %@ s", seconds, DriftCommand.format(total))
        for probe in probes {
            text += "  \(probe.name): "
            if let ppm = probe.meter.quickPPM() { text += String(printf: "%+.2f ppm", ppm) } else { text += "…" }
            text += "  underruns \(probe.player.underruns)"
        }
        Console.writeError(text + "\u{1B}[K")
    }

    func finish() {
        guard enabled, lastDraw != nil else { return }
        Console.writeError("\r\u{1B}[2K")
    }
}
