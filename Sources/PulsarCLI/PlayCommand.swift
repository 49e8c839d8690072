import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// `pulsar play INPUT --device sim[:…]`: plays a preset live through the engine, driven by an
/// optional transport script, writing the event log and (on the simulated device) a recording.
enum PlayCommand {
    static let help = """
    usage: pulsar play INPUT [--preset ID] [--device sim[:ppm=P,jitter=MS,latency=FRAMES,record=OUT.wav]]
                       [--script FILE] [--log FILE] [--layout L] [--rate HZ] [--profile P] [--gain G]
                       [--audio-gain G] [--no-haptics] [--offset MS] [--audio-offset MS] [--duration MS]
                       [--from MS] [--to MS] [--loop N] [--reverse] [--period FRAMES] [--quiet]

    Plays a preset (or a pattern) through the real-time engine. The device is the simulated one,
    paced by the monotonic clock (the ALSA backend is not built yet): ppm sets its rate error,
    jitter its position-report jitter, latency its latency in frames, record= a WAV of exactly
    what it played. Every transport command takes effect at a device frame; --log writes the
    event log that `pulsar render --replay` turns back into the same samples.

    A transport script has one command a line, `at <ms since start> <command> [args]`:
    play [MS], pause, resume, stop, seek MS; `#` starts a comment. Without a script the preset
    plays once from the start. The command ends when playback completes or stops.

    options: as `pulsar render`, plus
      --device D          sim[:ppm=P,jitter=MS,latency=FRAMES,record=OUT.wav] (default sim)
      --script FILE       transport script
      --log FILE          event log (JSON lines)
      --period FRAMES     device period (default 256; buffer = 4 periods)
      -h, --help          this help
    """

    struct ScriptLine {
        var at: Double
        var command: String
        var argument: Double?
        var line: Int
    }

    static func parseScript(_ path: String) throws(CommandFailure) -> [ScriptLine] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.noInput, "pulsar: error: \(path): cannot read the script")
        }
        var lines: [ScriptLine] = []
        for (i, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.isEmpty { continue }
            func bad(_ why: String) -> CommandFailure {
                CommandFailure(.dataError, "pulsar: error: \(path):\(i + 1): \(why)")
            }
            guard words.count >= 3, words[0] == "at", let at = Double(words[1]), at.isFinite, at >= 0 else {
                throw bad("expected 'at <ms> <command> [args]'")
            }
            let name = words[2]
            var argument: Double?
            switch name {
            case "pause", "resume", "stop":
                guard words.count == 3 else { throw bad("'\(name)' takes no argument") }
            case "seek":
                guard words.count == 4, let v = Double(words[3]), v.isFinite else { throw bad("'seek' needs a time in ms") }
                argument = v
            case "play":
                guard words.count <= 4 else { throw bad("'play' takes at most a time in ms") }
                if words.count == 4 {
                    guard let v = Double(words[3]), v.isFinite else { throw bad("'play' takes a time in ms") }
                    argument = v
                }
            default:
                throw bad("unknown command '\(name)' (play, pause, resume, stop, seek)")
            }
            if let last = lines.last, at < last.at { throw bad("times must not go back (\(words[1]) after \(last.at))") }
            lines.append(ScriptLine(at: at, command: name, argument: argument, line: i + 1))
        }
        return lines
    }

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar play"
        let args = try Arguments(words, options: [
            .init(names: ["--preset"], takesValue: true), .init(names: ["--device"], takesValue: true),
            .init(names: ["--script"], takesValue: true), .init(names: ["--log"], takesValue: true),
            .init(names: ["--layout"], takesValue: true), .init(names: ["--rate"], takesValue: true),
            .init(names: ["--profile"], takesValue: true), .init(names: ["--gain"], takesValue: true),
            .init(names: ["--audio-gain"], takesValue: true), .init(names: ["--no-haptics"], takesValue: false),
            .init(names: ["--offset"], takesValue: true), .init(names: ["--audio-offset"], takesValue: true),
            .init(names: ["--duration"], takesValue: true), .init(names: ["--from"], takesValue: true),
            .init(names: ["--to"], takesValue: true), .init(names: ["--loop"], takesValue: true),
            .init(names: ["--reverse"], takesValue: false), .init(names: ["--period"], takesValue: true),
            .init(names: ["--time-unit"], takesValue: true), .init(names: ["--quiet"], takesValue: false),
        ], command: command)
        let inputPath = try args.singleInput(command: command)
        let setup = try RenderSetup(args, command: command)

        // --device sim[:key=value,...]
        let deviceText = args.value("--device") ?? "sim"
        var behaviour = SimulatedDevice.Behaviour()
        var recordPath: String?
        let deviceParts = deviceText.split(separator: ":", maxSplits: 1).map(String.init)
        guard deviceParts.first == "sim" else {
            throw CommandFailure(.unavailable, "\(command): device '\(deviceText)' is not available (only the simulated device 'sim' is built)")
        }
        if deviceParts.count == 2 {
            for item in deviceParts[1].split(separator: ",") {
                let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw CommandFailure(.usage, "\(command): --device: '\(item)' is not key=value") }
                switch kv[0] {
                case "ppm": guard let v = Double(kv[1]), v.isFinite, abs(v) < 10_000 else { throw CommandFailure(.usage, "\(command): --device ppm must be a number") }
                    behaviour.rateErrorPPM = v
                case "jitter": guard let v = Double(kv[1]), v.isFinite, v >= 0, v < 100 else { throw CommandFailure(.usage, "\(command): --device jitter is in ms, 0...100") }
                    behaviour.jitterSeconds = v / 1000
                case "latency": guard let v = Int(kv[1]), v >= 0 else { throw CommandFailure(.usage, "\(command): --device latency is in frames") }
                    behaviour.latencyFrames = v
                case "record": recordPath = kv[1]
                default: throw CommandFailure(.usage, "\(command): --device: unknown setting '\(kv[0])' (ppm, jitter, latency, record)")
                }
            }
        }
        let script = try args.value("--script").map { p throws(CommandFailure) in try parseScript(p) } ?? []

        let input = try PresetInput(inputPath, setup: setup, strict: false)
        let preset = try input.select(args.value("--preset"), command: command)
        let options = try MixOptions(args, setup: setup, isBundle: input.isBundle, command: command)
        var settings = options.settings
        settings.preloadAudio = true
        let range = options.range
        let layout = settings.layout
        let mixer: PresetMixer
        do {
            mixer = try PresetMixer(preset: preset, settings: settings, range: range)
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(inputPath): \(error)")
        }
        let period = try args.integer("--period", default: 256, in: 16...16_384, command: command)
        let scriptSpan = (script.last?.at ?? 0) / 1000
        if recordPath != nil || args.value("--log") != nil {
            let seconds = Double(mixer.frameCount) / Double(setup.rate.hertz) + scriptSpan + 10
            behaviour.recordingCapacity = Int(seconds * Double(setup.rate.hertz))
        }
        let monotonic = SystemMonotonicClock()
        let device = SimulatedDevice(clock: monotonic, behaviour: behaviour)
        let timing = preset.animation.flatMap { AnimationTiming(lottieJSON: $0.data) }
        let player: HapticPlayer
        do {
            player = try HapticPlayer(mixer: mixer, device: device, monotonic: monotonic, periodFrames: period, bufferFrames: period * 4,
                                      animationFrameRate: timing?.frameRate)
        } catch {
            throw CommandFailure(.unavailable, "pulsar: error: device: \(error)")
        }
        var done = false
        player.completion = { _ in done = true }

        let start = monotonic.now()
        var pending = script.isEmpty ? [ScriptLine(at: 0, command: "play", argument: nil, line: 0)] : script
        player.start()
        let rate = setup.rate
        while !done || !pending.isEmpty {
            let elapsedMs = monotonic.now().seconds(since: start) * 1000
            while let next = pending.first, next.at <= elapsedMs {
                pending.removeFirst()
                switch next.command {
                case "play":
                    if let ms = next.argument {
                        let frame = rate.nearestFrame(atMilliseconds: ms) - mixer.timeline.segmentStart
                        player.send(.play(fromTimelineFrame: min(max(frame, 0), mixer.timeline.frameCount)))
                    } else {
                        player.play()
                    }
                case "pause": player.pause()
                case "resume": player.resume()
                case "stop": player.stop()
                default: player.setTimestamp(next.argument ?? 0)
                }
            }
            player.poll()
            if let failure = player.failure {
                player.shutdown()
                throw CommandFailure(.unavailable, "pulsar: error: device: \(failure)")
            }
            // Nothing will play any more: stopped with no script left.
            if pending.isEmpty, player.clock.isIdle { done = true }
            usleep(2000)
        }
        // Let the device play out what is queued, then stop the thread.
        usleep(UInt32(Double(period * 4) / Double(rate.hertz) * 1e6) + 20_000)
        player.poll()
        player.shutdown()
        player.poll()

        let channels = mixer.channelCount
        let playedFrames = FrameIndex(device.recording.count / channels)
        if let log = args.value("--log") {
            let header = EngineLog.Header(input: inputPath, preset: input.isBundle ? preset.id : nil, layout: layout.name,
                                          sampleRate: rate.hertz, profile: setup.profile.name, gain: setup.profile.gain,
                                          audioGain: settings.audioGain, hapticsEnabled: settings.hapticsEnabled,
                                          hapticOffset: settings.hapticOffset, audioOffset: settings.audioOffset,
                                          loopCount: range.loopCount, reverse: range.reverse, from: range.from, to: range.to,
                                          duration: range.duration)
            do {
                try Data(EngineLog.text(header: header, events: player.loggedEvents, playedFrames: playedFrames).utf8)
                    .write(to: URL(fileURLWithPath: log), options: .atomic)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(log): \(error.localizedDescription)")
            }
        }
        if let recordPath {
            do {
                _ = try WAVExporter().export(device.recording, to: recordPath, sampleRate: rate, channels: channels)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
            }
        }
        if !setup.quiet {
            Console.error("played \(playedFrames) frames × \(channels) channels on the simulated device; \(player.loggedEvents.count) events, \(player.underruns) underruns")
        }
    }
}
