#if canImport(Glibc)
import Glibc
#endif
import PulsarALSA
import PulsarAudio
import PulsarCommandLine
import PulsarCore
import PulsarDrift
import PulsarEngine
import PulsarPipeWire
import PulsarPlot
import PulsarSession
import PulsarSimulation

/// `pulsar latency --device D [--capture SOURCE]`: plays short clicks on D at random instants, as
/// an app's triggers come, and reports how long each took from the call to the device's edge —
/// by the engine's device-slaved clock and, with a capture, by the captured signal itself.
enum LatencyCommand {
    static let help = """
    usage: pulsar latency [--device auto|NAME|pw:[NODE]|sim[:…]] [--seconds N] [--period FRAMES] [--buffer FRAMES]
                          [--rate HZ] [--capture pw:[NODE][.monitor]|ALSA-NAME] [--seed N] [--json FILE] [--plot FILE.png|FILE.svg] [--quiet]

    Measures trigger latency on a device: the engine plays on it, and every 150–350 ms (at random
    instants) a click voice is made and played, as a game's trigger would be. Each click's
    latency is the frame where its first sample lies in the stream, less the frame the engine's
    device-slaved clock says is heard when the call begins: how long after the call the click
    reaches the device's edge.

    With --capture, the same clicks are found in a captured signal — a PipeWire sink's monitor
    (`pw:NODE.monitor`, what NODE plays), or a source fed from the device (a loopback cable, a
    microphone, an accelerometer's audio input) — and each one's latency is measured again from
    the capture's own timestamps: what reaches the actuator, to set `--latency` from. The two
    are reported side by side, with their difference per click.

    options:
      --device D          auto (the default), pw:[NODE], an ALSA PCM name (see `pulsar devices`), or sim[:…]
      --seconds N         how long to trigger (default 10; at most 3600)
      --period FRAMES     device period (default 128 on sound devices, 256 on sim); on PipeWire the
                          latency asked of the graph (node.latency)
      --buffer FRAMES     device buffer (default 4 periods)
      --rate HZ           the sample rate (default 48000)
      --capture SOURCE    a PipeWire capture: pw:NODE.monitor, pw:NODE (a source), pw: (the default source);
                          or an ALSA capture device (hw:1,0, plughw:…): its status's timestamps time it
      --seed N            the random instants' seed (default 1)
      --json FILE         the figures as one JSON object: clockLatencyMs and captureLatencyMs, each
                          {min, p50, p99, max, count}, captureMinusClockMs {min, p50, max}, the device,
                          period, quantum, trigger count, underruns, heldUp (calls the machine
                          held up over 0.5 ms: their latency includes it) and clockTimelineMoves
                          (the device's time line moved: a sound server held up)
      --plot FILE         each click's latency over the run (PNG or SVG)
      --quiet             no summary
      -h, --help          this help

    Exit codes: 0 measured; 64 usage; 69 a device or the capture could not be opened or failed
    (what was measured until then is still written); 74 an output could not be written; 130
    interrupted (partial results written).
    """

    static let command = "pulsar latency"

    static let options: [Arguments.Option] = [
        .value("--device", completion: .devices), .value("--seconds"), .value("--period"), .value("--buffer"), .value("--rate"),
        .value("--capture"), .value("--seed"), .value("--json", completion: .files), .value("--plot", completion: .files), .flag("--quiet"),
    ]

    /// Every channel of the device carries the click.
    static let layout = ChannelLayout(name: "H,H", channels: [[.haptic], [.haptic]])

    static func run(_ words: [String]) throws(CommandFailure) {
        let options = try LatencyOptions(words)
        let click: PresetMixer
        do { click = try TriggerProbe.click(layout: layout, rate: options.rate) } catch {
            throw CommandFailure(.software, "\(command): the click does not render: \(error)")
        }
        let offset: Int64
        do throws(LatencyRun.ClickError) { offset = try LatencyRun.clickOffset(of: click) } catch {
            switch error {
            case .render(let why): throw CommandFailure(.software, "\(command): the click does not render: \(why)")
            case .silent: throw CommandFailure(.software, "\(command): the click is silent")
            }
        }
        let request = SessionEngine.Request(main: options.device, sampleRate: options.rate, channels: layout.channelCount,
                                            periodFrames: options.period, bufferFrames: options.buffer, voiceLimit: 8)
        let monotonic = SystemMonotonicClock()
        let session: SessionEngine
        do throws(SessionError) {
            // A simulated device asked to record (`sim:record=OUT.wav`) keeps the whole run.
            let recording = options.device.recordPath == nil ? 0 : Int((options.seconds + 10) * Double(options.rate.hertz))
            session = try SessionEngine(request, clock: SessionClock(monotonic, recordingFrames: recording),
                                        fallback: DeviceChoice.fallbackNotice(command))
        } catch {
            throw error.failure(command, option: "--device")
        }
        let capture = try options.captureSource.map { spec throws(CommandFailure) in try openCapture(spec, options) }
        var run = LatencyRun(engine: session.engine, click: click, capture: capture, clickOffset: offset, seed: options.seed)
        let interrupt = DriftInterrupt()
        let outcome = run.measure(seconds: options.seconds) { interrupt.isSet }
        interrupt.restore()
        let report = run.report(device: session.name, period: options.period, quantum: (session.device as? PipeWireDevice)?.quantum)
        try write(report, options: options)
        if let path = options.device.recordPath, let sim = PlayedFrames.recorder(session.device) {
            do {
                _ = try WAVExporter().export(sim.recording, to: path, sampleRate: options.rate, channels: layout.channelCount)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: \(MessageText.excerpt(path)): \(error)")
            }
        }
        if !options.quiet { Console.out(report.summary) }
        switch outcome {
        case .complete: return
        case .interrupted: throw CommandFailure(.interrupted, "\(command): interrupted")
        case .failed(let why): throw CommandFailure(.unavailable, "pulsar: error: device '\(MessageText.oneLine(session.name))': \(why)")
        }
    }

    /// `--json` and `--plot`, each whole or not at all.
    private static func write(_ report: LatencyReport, options: LatencyOptions) throws(CommandFailure) {
        if let path = options.jsonPath {
            do {
                try OutputFile.write(Array(report.json.utf8), to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
            }
        }
        if let path = options.plotPath {
            guard report.hasMeasurements else {
                if !options.quiet { Console.error("\(command): warning: no trigger was measured; \(path) not written") }
                return
            }
            do {
                try report.figure().write(to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: \(error)")
            }
        }
    }

    /// `pw:…` a PipeWire capture, anything else an ALSA capture device (`CaptureSpec`).
    private static func openCapture(_ spec: String, _ options: LatencyOptions) throws(CommandFailure) -> LatencyCapture {
        do throws(SessionError) {
            // Both kinds of capture the session layer opens are read as latency reads them.
            return try CaptureSpec(parsing: spec).open(channels: 2, rate: options.rate.hertz, period: options.period) as! LatencyCapture
        } catch {
            throw CommandFailure(.unavailable, "\(command): --capture \(MessageText.excerpt(spec)): \(error.description)")
        }
    }
}

/// The command line of `pulsar latency`, checked before anything is opened.
struct LatencyOptions {
    let device: DeviceSpec
    let rate: SampleRate
    let period: Int
    let buffer: Int
    let seconds: Double
    let seed: UInt64
    let captureSource: String?
    let jsonPath: String?
    let plotPath: String?
    let quiet: Bool
    let deviceText: String

    init(_ words: [String]) throws(CommandFailure) {
        let command = LatencyCommand.command
        let args = try Arguments(words, options: LatencyCommand.options, command: command)
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "\(command): takes no INPUT (got '\(args.positionals[0])')") }
        let hz = try args.integer("--rate", default: 48_000, in: 8_000...192_000, command: command)
        rate = SampleRate(hz)!
        deviceText = args.value("--device") ?? "auto"
        device = try DeviceSpec(parsing: deviceText, rate: rate, command: command)
        (period, buffer) = try device.periodAndBuffer(args, command: command)
        seconds = Double(try args.integer("--seconds", default: 10, in: 1...3600, command: command))
        seed = UInt64(try args.integer("--seed", default: 1, in: 0...Int(Int32.max), command: command))
        captureSource = args.value("--capture")
        if let source = captureSource, source.isEmpty || source.contains("\n") {
            throw CommandFailure(.usage, "\(command): --capture needs a PipeWire capture (pw:NODE.monitor, pw:NODE, pw:) or an ALSA capture device")
        }
        jsonPath = args.value("--json")
        plotPath = args.value("--plot")
        if let plot = plotPath, !(plot.hasSuffix(".png") || plot.hasSuffix(".svg")) {
            throw CommandFailure(.usage, "\(command): --plot '\(MessageText.excerpt(plot))': a .png or .svg file")
        }
        try Arguments.refuseOverwriting([jsonPath, plotPath, device.recordPath], inputs: [], command: command)
        quiet = args.flag("--quiet")
    }
}
