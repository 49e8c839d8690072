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
    usage: pulsar play INPUT [--preset ID] [--device sim[:ppm=P,jitter=MS,latency=MS,record=OUT.wav]]
                       [--script FILE] [--log FILE] [--clock-log FILE] [--layout L] [--rate HZ] [--profile P]
                       [--gain G] [--audio-gain G] [--no-haptics] [--offset MS] [--audio-offset MS]
                       [--duration MS] [--from MS] [--to MS] [--loop N|forever] [--reverse] [--period FRAMES]
                       [--tick-rate HZ] [--quiet]

    Plays a preset (or a pattern) through the real-time engine. The device is the simulated one,
    paced by the monotonic clock (the ALSA backend is not built yet): ppm sets its rate error,
    jitter its position-report jitter, latency its output latency in ms, record= a WAV of exactly
    what it played. Every transport command takes effect at a device frame; --log writes the
    event log that `pulsar render --replay` turns back into the same samples.

    A transport script has one command a line, `at <ms since start> <command> [args]`:
    play [MS], pause, resume, stop, seek MS, loop N|forever|off [reverse], offset MS,
    haptics on|off, gain audio|haptic G; `#` starts a comment. Loop, offset, haptics and gain
    changes take effect at a device frame like the rest, continuing the content being heard.
    Without a script the preset plays from the start. The command ends when playback completes
    or stops (an endless loop needs a `stop`, or Ctrl-C).

    options: as `pulsar render`, plus
      --device D          sim[:ppm=P,jitter=MS,latency=MS,record=OUT.wav] (default sim)
      --script FILE       transport script
      --log FILE          event log (JSON lines)
      --clock-log FILE    one JSON line per display tick: monotonic time, the clock's content
                          time and animation frame, and the simulated device's true content time
      --tick-rate HZ      display ticks per second for --clock-log (default 60)
      --loop N|forever    iterations of the segment (forever: until stopped)
      --period FRAMES     device period (default 256; buffer = 4 periods)
      -h, --help          this help
    """

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
            .init(names: ["--clock-log"], takesValue: true), .init(names: ["--tick-rate"], takesValue: true),
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
                case "latency": guard let v = Double(kv[1]), v.isFinite, v >= 0, v <= 1000 else { throw CommandFailure(.usage, "\(command): --device latency is in ms, 0...1000") }
                    behaviour.latencyFrames = Int((v / 1000 * Double(setup.rate.hertz)).rounded())
                case "record": recordPath = kv[1]
                default: throw CommandFailure(.usage, "\(command): --device: unknown setting '\(kv[0])' (ppm, jitter, latency, record)")
                }
            }
        }
        let script = try args.value("--script").map { p throws(CommandFailure) in try TransportScript(contentsOf: p).lines } ?? []
        let tickRate = try args.number("--tick-rate", command: command) ?? 60
        guard tickRate >= 1, tickRate <= 1000 else { throw CommandFailure(.usage, "\(command): --tick-rate must be 1…1000 Hz") }
        let clockLogPath = args.value("--clock-log")

        let input = try PresetInput(inputPath, setup: setup, strict: false)
        let preset = try input.select(args.value("--preset"), command: command)
        let options = try MixOptions(args, setup: setup, isBundle: input.isBundle, endlessLoops: true, command: command)
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
        if recordPath != nil || args.value("--log") != nil || clockLogPath != nil {
            let once = Double(mixer.timeline.isEndless ? mixer.timeline.segmentLength : mixer.frameCount) / Double(setup.rate.hertz)
            let seconds = min(once + scriptSpan + 10, 3600)
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
        var pending = script.isEmpty ? [TransportScript.Line(at: 0, command: .play(nil), line: 0)] : script
        var ticks: [(time: MonotonicTime, content: Double?, frame: Double?)] = []
        var nextTick = start
        player.start()
        let rate = setup.rate
        while !done || !pending.isEmpty {
            let elapsedMs = monotonic.now().seconds(since: start) * 1000
            while let next = pending.first, next.at <= elapsedMs {
                pending.removeFirst()
                do {
                    try perform(next.command, on: player)
                } catch {
                    player.shutdown()
                    throw CommandFailure(.dataError, "pulsar: error: \(args.value("--script") ?? "script"):\(next.line): \(error)")
                }
            }
            player.poll()
            if let failure = player.failure {
                player.shutdown()
                throw CommandFailure(.unavailable, "pulsar: error: device: \(failure)")
            }
            let now = monotonic.now()
            if clockLogPath != nil, now >= nextTick {
                ticks.append((now, player.contentTime(at: now), player.animationFrame(at: now)))
                nextTick = nextTick.adding(seconds: 1 / tickRate)
                if nextTick < now { nextTick = now.adding(seconds: 1 / tickRate) }
            }
            // Nothing will play any more: stopped with no script left.
            if pending.isEmpty, player.clock.isIdle { done = true }
            usleep(1000)
        }
        // Let the device play out what is queued, then stop the thread.
        usleep(UInt32(Double(period * 4) / Double(rate.hertz) * 1e6) + 20_000)
        player.poll()
        player.shutdown()
        player.poll()

        let channels = mixer.channelCount
        let playedFrames = FrameIndex(device.recording.count / channels)
        if let clockLogPath {
            try writeClockLog(clockLogPath, ticks: ticks, device: device, player: player, rate: rate)
        }
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

    /// One script command, on the control thread.
    static func perform(_ command: TransportScript.Command, on player: HapticPlayer) throws(PresetMixer.SetupError) {
        switch command {
        case .play(let ms):
            if let ms {
                let m = player.mixer
                let frame = m.settings.sampleRate.nearestFrame(atMilliseconds: ms) - m.timeline.segmentStart
                player.play(fromFrame: min(max(frame, 0), m.timeline.segmentLength - 1))
            } else {
                player.play()
            }
        case .pause: player.pause()
        case .resume: player.resume()
        case .stop: player.stop()
        case .seek(let ms): player.setTimestamp(ms)
        case let .loop(count, reverse): try player.setLoop(true, count: count, reverse: reverse)
        case .loopOff: try player.setLoop(false)
        case .offset(let ms): try player.adjust(MixAdjustment(hapticOffset: ms))
        case .haptics(let on): try player.adjust(MixAdjustment(hapticsEnabled: on))
        case .audioGain(let g): try player.adjust(MixAdjustment(audioGain: g))
        case .hapticGain(let g): try player.adjust(MixAdjustment(hapticGain: g))
        }
    }

    /// `--clock-log`: per tick, the clock's answer beside the truth the simulated device knows —
    /// its exact consumption at that instant (interpolated between its updates, less its
    /// latency), mapped to stream frames across underrun gaps and through the transport states.
    static func writeClockLog(_ path: String, ticks: [(time: MonotonicTime, content: Double?, frame: Double?)],
                              device: SimulatedDevice, player: HapticPlayer, rate: SampleRate) throws(CommandFailure) {
        let timeline = device.timeline
        let lost: [Range<FrameIndex>] = player.loggedEvents.compactMap {
            if case let .underrun(from, to, _) = $0, to > from { return from..<to }
            return nil
        }
        let latency = Double(device.behaviour.latencyFrames)
        var cursor = 0
        var text = ""
        for tick in ticks {
            while cursor + 1 < timeline.count, timeline[cursor + 1].time <= tick.time { cursor += 1 }
            var truth: Double?
            if !timeline.isEmpty, timeline[cursor].time <= tick.time {
                let a = timeline[cursor]
                var consumed = Double(a.consumed)
                if cursor + 1 < timeline.count {
                    let b = timeline[cursor + 1]
                    let span = Double(b.time.nanoseconds - a.time.nanoseconds)
                    if span > 0 { consumed += Double(b.consumed - a.consumed) * Double(tick.time.nanoseconds - a.time.nanoseconds) / span }
                }
                // The device counts whole frames: the exact position lies in [n, n + 1).
                var stream = max(consumed + 0.5 - latency, 0)
                for gap in lost where Double(gap.lowerBound) <= stream { stream += Double(gap.count) }
                truth = player.clock.contentFrame(atStreamFrame: stream) * 1000 / Double(rate.hertz)
            }
            func number(_ v: Double?) -> JSONValue { v.map { .num(($0 * 1e6).rounded() / 1e6) } ?? JSONValue(.null) }
            let line: JSONValue = .obj(["timeNs": .num(Double(tick.time.nanoseconds)), "contentMs": number(tick.content),
                                        "animationFrame": number(tick.frame), "trueContentMs": number(truth),
                                        "errorSamples": number(tick.content.flatMap { c in truth.map { (c - $0) * Double(rate.hertz) / 1000 } })])
            text += JSONWriter(indent: 0).write(line).replacingOccurrences(of: "\n", with: "") + "\n"
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: cannot write \(path): \(error.localizedDescription)")
        }
    }
}
