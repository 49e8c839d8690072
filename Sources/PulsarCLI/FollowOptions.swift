import Glibc
import PulsarALSA
import PulsarAudio
import PulsarCommandLine
import PulsarCore
import PulsarDerive
import PulsarEngine
import PulsarPipeWire
import PulsarSession
import PulsarSimulation

/// The command line of `pulsar follow`, checked before anything is opened.
struct FollowOptions {
    let sourceText: String
    let deviceText: String
    let device: DeviceSpec
    let settings: FollowSettings
    let layout: ChannelLayout
    let mix: Bool
    let seconds: Double?
    let period: Int
    let buffer: Int
    let captureRate: SampleRate
    let logPath: String?
    let jsonPath: String?
    let quiet: Bool

    init(_ words: [String]) throws(CommandFailure) {
        let command = FollowCommand.command
        let args = try Arguments(words, options: FollowCommand.options, command: command)
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "\(command): takes no INPUT (got '\(MessageText.excerpt(args.positionals[0]))'); the sound is --from") }
        guard let from = args.value("--from"), !from.isEmpty, !from.contains("\n") else {
            throw CommandFailure(.usage, "\(command): needs --from FILE or a PipeWire capture (pw:NODE.monitor, pw:NODE, pw:)")
        }
        sourceText = from
        let hz = try args.integer("--rate", default: 48_000, in: 8_000...192_000, command: command)
        captureRate = SampleRate(hz)!
        deviceText = args.value("--to") ?? "auto"
        device = try DeviceSpec(parsing: deviceText, rate: captureRate, command: command)
        (period, buffer) = try device.periodAndBuffer(args, command: command)
        var settings = FollowSettings()
        if let m = args.value("--method") {
            guard let method = FollowSettings.Method(rawValue: m) else { throw CommandFailure(.usage, "\(command): --method is envelope or android, not '\(MessageText.excerpt(m))'") }
            settings.method = method
        }
        if let b = args.value("--band") {
            let parts = b.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let lo = Double(parts[0]), let hi = Double(parts[1]), lo.isFinite, hi.isFinite, lo < hi else {
                throw CommandFailure(.usage, "\(command): --band '\(MessageText.excerpt(b))': LO:HI in Hz, LO below HI (e.g. 30:120)")
            }
            settings.band = lo...hi
        }
        if let p = args.value("--profile") {
            guard let profile = ActuatorProfile(parsing: p) else { throw CommandFailure(.usage, "\(command): --profile '\(MessageText.excerpt(p))': wideband, lra, lra:HZ or FMIN:FMAX") }
            settings.profile = profile
        }
        if let name = args.value("--actuator") {
            guard args.value("--profile") == nil else { throw CommandFailure(.usage, "\(command): --actuator and --profile both name the device: give one") }
            settings.profile = try ActuatorCatalog.actuator(name, rate: SampleRate(hz)!, quiet: args.flag("--quiet"), command: command).profile
        }
        settings.gainDB = try Self.number(args, "--gain", settings.gainDB)
        settings.gateDB = try Self.number(args, "--gate", settings.gateDB)
        settings.attackMilliseconds = try Self.number(args, "--attack", settings.attackMilliseconds)
        settings.releaseMilliseconds = try Self.number(args, "--release", settings.releaseMilliseconds)
        settings.transients = !args.flag("--no-transients")
        do { try settings.validate(sampleRate: hz) } catch { throw CommandFailure(.usage, "\(command): \(error.message)") }
        self.settings = settings
        mix = args.flag("--mix")
        if let l = args.value("--layout") {
            guard let layout = ChannelLayout(parsing: l) else { throw CommandFailure(.usage, "\(command): --layout '\(MessageText.excerpt(l))' is not a layout (haptic, quad, stereo+haptic, mix, android or a channel map)") }
            self.layout = layout
        } else {
            layout = device.preferredLayout.flatMap(ChannelLayout.init(parsing:)) ?? .haptic
        }
        seconds = try args.value("--seconds").map { (text: String) throws(CommandFailure) -> Double in
            guard let s = Double(text), s.isFinite, s > 0, s <= 86_400 else { throw CommandFailure(.usage, "\(command): --seconds '\(MessageText.excerpt(text))': a number of seconds in (0, 86400]") }
            return s
        }
        logPath = args.value("--log")
        jsonPath = args.value("--json")
        quiet = args.flag("--quiet")
        let inputLog = logPath.map { PathText.sibling(of: $0, named: FollowLog.inputName(forLog: $0)) }
        try Arguments.refuseOverwriting([logPath, inputLog, jsonPath, device.recordPath], inputs: [CaptureSpec(source: from) != nil ? nil : from], command: command)
    }

    private static func number(_ args: Arguments, _ name: String, _ fallback: Double) throws(CommandFailure) -> Double {
        guard let text = args.value(name) else { return fallback }
        guard let v = Double(text), v.isFinite else { throw CommandFailure(.usage, "\(FollowCommand.command): \(name) '\(MessageText.excerpt(text))' is not a number") }
        return v
    }

    /// The source: a capture (`CaptureSpec(source:)`: `pw:…`, an ALSA capture name), else an audio file.
    func openSource() throws(CommandFailure) -> FollowSource {
        let command = FollowCommand.command
        if let capture = CaptureSpec(source: sourceText) {
            do throws(SessionError) {
                return .capture(try capture.open(channels: 2, rate: captureRate.hertz, period: period))
            } catch {
                throw CommandFailure(.unavailable, "\(command): --from \(sourceText): \(error.description)")
            }
        }
        let decoded: DecodedAudio
        do {
            decoded = try DeriveAudio.read(sourceText, channels: .mean)
        } catch {
            throw CommandFailure(error.rule == .missingAudio ? .noInput : .dataError, "pulsar: error: \(error)")
        }
        return .file(FileFollowSource(samples: decoded.samples, channels: 1, sampleRate: decoded.sampleRate))
    }

    /// The device, opened at `rate` with the layout's channels; a simulated one that records
    /// keeps up to `seconds` (an hour at most).
    func openDevice(rate: Int, seconds: Double?) throws(CommandFailure) -> (OutputDevice, String) {
        let spec = device.isSimulated || deviceText != "auto" ? device : DeviceSpec.resolvedAuto()
        let recorded = self.device.recordPath == nil ? 0 : Int(min(seconds ?? 600, 3600) * Double(rate))
        let (device, name) = spec.device(clock: SessionClock(recordingFrames: recorded))
        do {
            _ = try device.open(DeviceConfiguration(sampleRate: SampleRate(rate)!, channels: layout.channelCount, periodFrames: period, bufferFrames: buffer))
        } catch {
            throw CommandFailure(.unavailable, "pulsar: error: device '\(MessageText.oneLine(name))': \(error)")
        }
        return (device, name)
    }
}

/// What `pulsar follow` writes and says.
enum FollowOutputs {
    static func figures(_ c: FollowPlayer.Counters, follower: HapticFollower, source: FollowSource, device: String) -> JSONValue {
        func n(_ x: Double) -> JSONValue { JSONValue(.number(x)) }
        return JSONValue(.object([
            ("device", JSONValue(.string(device))), ("sampleRate", n(Double(source.sampleRate))), ("frames", n(Double(c.frames))),
            ("seconds", n(Double(c.frames) / Double(source.sampleRate))), ("missingFrames", n(Double(c.missing))),
            ("captureLostFrames", n(Double(c.captureLost))), ("underruns", n(Double(c.underruns))), ("onsets", n(Double(follower.onsets))),
            ("delayMs", c.delay.map { n(($0 * 1e5).rounded() / 100) } ?? JSONValue(.null)), ("lookAheadMs", n(0)),
        ]))
    }

    /// The status line: how long, the capture's delay to the device, onsets, what went missing.
    static func summary(_ c: FollowPlayer.Counters, follower: HapticFollower, source: FollowSource, device: String) -> String {
        let seconds = Double(c.frames) / Double(source.sampleRate)
        let delay = c.delay.map { String(printf: ", delay %.1f ms", $0 * 1000) } ?? ""
        return "followed \(String(printf: "%.2f", seconds)) s onto \(device)\(delay): \(follower.onsets) onsets, \(c.missing) frames missing, \(c.captureLost) lost by the capture, \(c.underruns) underruns"
    }

    /// What a simulated device asked to record (`record=OUT.wav`) played.
    static func writeRecording(_ device: OutputDevice, options: FollowOptions, rate: Int) throws(CommandFailure) {
        guard let path = options.device.recordPath, let sim = device as? SimulatedDevice else { return }
        do {
            _ = try WAVExporter().export(sim.recording, to: path, sampleRate: SampleRate(rate)!, channels: options.layout.channelCount)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(path): \(error)")
        }
    }

    static func write(_ figures: JSONValue, to path: String) throws(CommandFailure) {
        do {
            try OutputFile.write(Array((JSONWriter().write(figures) + "\n").utf8), to: path)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(path): \(error)")
        }
    }

    /// The log beside its input WAV (already written by the recorder).
    static func writeLog(_ path: String, options: FollowOptions, source: FollowSource, counters: FollowPlayer.Counters, inputFrames: Int64,
                         events: [FollowEvent], device: String) throws(CommandFailure) {
        let log = FollowLog(sampleRate: source.sampleRate, channels: source.channels, layout: options.layout, mix: options.mix,
                            settings: options.settings, input: FollowLog.inputName(forLog: path), frames: min(counters.frames, inputFrames), device: device,
                            live: { if case .capture = source { return true } else { return false } }(), delay: counters.delay, events: events)
        do {
            try OutputFile.write(Array(log.json.utf8), to: path)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(path): \(error)")
        }
    }

    /// The recorder of the follower's input for `--log` (its WAV beside the log).
    static func recorder(forLog path: String?, source: FollowSource) throws(CommandFailure) -> FollowRecorder? {
        guard let path else { return nil }
        let input = PathText.sibling(of: path, named: FollowLog.inputName(forLog: path))
        do {
            return try FollowRecorder(path: input, sampleRate: source.sampleRate, channels: source.channels)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(input): \(error)")
        }
    }
}
