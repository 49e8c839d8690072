import PulsarCommandLine
import Glibc
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarPipeWire
import PulsarSession
import PulsarSimulation

/// `pulsar play INPUT --device sim[:…]`: plays a preset live through the engine, driven by an
/// optional transport script, writing the event log and (on the simulated device) a recording.
enum PlayCommand {
    static let help = """
    usage: pulsar play INPUT [INPUT…] [--mode M] [--preset ID] [--device auto|NAME|pw:[NODE]|sim[:ppm=P,jitter=MS,latency=MS,format=F,record=OUT.wav]]
                       [--script FILE] [--log FILE] [--clock-log FILE] [--layout L] [--rate HZ] [--profile P|--actuator A]
                       [--gain G] [--audio-gain G] [--no-haptics] [--offset MS] [--audio-offset MS]
                       [--duration MS] [--from MS] [--to MS] [--loop N|forever] [--reverse] [--time-unit U]
                       [--period FRAMES] [--buffer FRAMES] [--voices N] [--tick-rate HZ] [--verbose] [--quiet]
                       [--derive] [--haptic-device D [--haptic-layout L] [--latency main=MS,haptic=MS] [--sync-log FILE]]

    Plays a preset (or a pattern) through the real-time engine; several INPUTs play as voices of
    one engine, mixed on one device (voice 1 the first INPUT, voice 2 the second, …). Every
    transport command takes effect at a device frame; --log writes the event log that
    `pulsar render --replay` turns back into the same samples.

    Devices: `dualsense` opens the first usable DualSense (or Edge) `pulsar devices` finds, as
    hw:CARD=… with its 4 channels, in layout quad unless --layout says otherwise (`auto` with --layout quad picks it too);
    when PipeWire holds the controller, its Pro Audio sink at that sink's channel positions
    (AUX0–AUX3), or one line naming the command that switches the card to Pro Audio;
    `auto` (the default) plays on PipeWire's default sink, natively, when a PipeWire server
    answers (else on ALSA 'default') and, when there is no sound device, on the simulated device
    with one line saying so (--verbose says which and why); `pw:` plays a native PipeWire stream on the
    default sink, `pw:NODE` on the node with that node.name or object.serial (its timing from
    PipeWire's own clock; one line when no server or no such node answers); NAME is any ALSA PCM
    (`pipewire`, `pulse`, `hw:0,0`, `plughw:1,0`; see `pulsar devices`); `sim` is the simulated device, paced by the
    system clock: ppm sets its rate error, jitter its position-report jitter, latency its output
    latency, format= the sample format it takes (float, s32 or s16: integers pass through the
    converter an ALSA device uses), record= a WAV of exactly what it played, channels= the most
    channels it has, unplug= the ms of playing after which it is unplugged.

    A transport script has one command a line, `at <ms since start> <command> [args]`:
    play [MS], start V [MS], pause, resume, stop, seek MS, loop N|forever|off [reverse],
    offset MS, haptics on|off, gain audio|haptic G, intensity X [over MS] (0…4, a multiplier
    on the voice's haptics), sharpness X [over MS] (−1…1, an offset of the voice's frequency
    parameter; a pattern voice's), gain master G [over MS] (0…4, on every voice's haptics),
    position MS (a realtime voice's content position); `#` starts a comment. An intensity,
    sharpness or master gain change ramps linearly from its effective frame, over MS or,
    without one or with over 0, over 4 ms; one sent while such a change is under way follows
    it (docs/signal-model.md §13). A voice number may
    follow any command's name (`at 500 start 2`, `at 900 pause 2`, `at 950 seek 2 300`; `play`
    takes one only before a time: `play 2 300`); without one a line is voice 1's. Loop, offset,
    haptics and gain changes take effect at a device frame like the rest, continuing the
    content being heard. Without a script, or with one that never plays or starts a voice,
    every voice plays from the start at 0. A voice that ended (played out, stopped, stolen) and
    starts again does so with its last settings. The command ends when the script is done and
    no voice plays (every one ended, stopped, or paused with no terminal to resume it); an
    endless loop needs a `stop`, `q`, or Ctrl-C. --voices N voices play at once (default 32):
    one more steals the oldest.

    Two devices: --haptic-device D plays the touch on D and the sound on --device, under one
    clock — the main device's. D takes the haptic channel on every channel of its layout
    (--haptic-layout; default `quad` for a DualSense, with silence on its speaker pair, else
    `haptic`) at the content instant the main device is heard: its frames read the engine's
    stream through both devices' clocks, at a rate steered within 1000 ppm of their measured
    ratio, so two crystals hundreds of ppm apart stay within a fraction of a millisecond. The
    main device's layout defaults to the audio's pair (L,R). --latency adds each device's own
    output latency (the USB path, an amplifier) to what it reports; commands take effect where
    the stream is rendered to (no rewind). `auto` as D is the first DualSense found. --log
    holds both streams: `render --replay LOG --replay-device haptic` rebuilds the haptic one.

    On a terminal a status line shows voice 1's time, animation frame and loop, the voices
    playing, the device and underruns; keys: space pause/resume (every voice), ←/→ seek voice 1
    −/+500 ms, r restart (every voice), q quit.

    options: as `pulsar render`, plus
      --device D          auto, pw:[NODE], an ALSA PCM name, or sim[:…] (default auto)
      --script FILE       transport script
      --log FILE          event log (JSON lines)
      --clock-log FILE    one JSON line per display tick: monotonic time, the clock's content
                          time and animation frame, and (simulated device) the true content time
      --tick-rate HZ      display ticks per second for --clock-log and --sync-log (default 60)
      --haptic-device D   the touch on D (auto: the first DualSense), the sound on --device
      --haptic-layout L   D's layout (default quad for a DualSense, else haptic)
      --latency SPEC      main=MS,haptic=MS (or the devices' names): output latency beyond what
                          each device reports, 0…1000 ms (default 0)
      --sync-log FILE     one JSON line per display tick: timeNs and, per device, its name, the
                          content time its clock says is heard there (contentMs) and, on a
                          simulated device, the content time it really plays (trueContentMs)
      --loop N|forever    iterations of the segment (forever: until stopped)
      --period FRAMES     device period (default 128 = 2.7 ms at 48 kHz on sound devices, 256 on sim)
      --buffer FRAMES     device buffer (default 4 periods)
      --voices N          most voices playing at once, 1…128 (default 32)
      --mode M            pattern (default): a voice plays its timeline; realtime: the script's
                          `position` lines move its content and it follows (ramps between them,
                          the transients it passes fired, either way; a move over 250 ms is a
                          jump that fires none); or V=M,… voice by voice
      --derive            a preset of audio alone (no haptics in its manifest): derive its pattern
                          from its audio (docs/derive.md, the envelope method on --profile)
      --verbose           ALSA's own messages, the negotiated format, real-time scheduling
      --quiet             no status line, no summary
      -h, --help          this help
    """

    /// The name its messages begin with.
    static let command = "pulsar play"

    static let options: [Arguments.Option] = [
        .value("--preset", completion: .presets), .value("--device", completion: .devices),
        .value("--script", completion: .files), .value("--log", completion: .files),
        .value("--layout", completion: .layouts), .value("--rate"),
        .value("--profile", completion: .profiles), .value("--actuator", completion: .files), .value("--gain"),
        .value("--audio-gain"), .flag("--no-haptics"),
        .value("--offset"), .value("--audio-offset"),
        .value("--duration"), .value("--from"),
        .value("--to"), .value("--loop", completion: .choices(["forever"])),
        .flag("--reverse"), .value("--period"),
        .value("--buffer"), .flag("--verbose"), .flag("--derive"),
        .value("--time-unit", completion: .timeUnits), .flag("--quiet"),
        .value("--clock-log", completion: .files), .value("--tick-rate"),
        .value("--voices"), .value("--mode", completion: .choices(["pattern", "realtime"])),
        .value("--haptic-device", completion: .devices), .value("--haptic-layout", completion: .hapticLayouts),
        .value("--latency"), .value("--sync-log", completion: .files),
    ]

    /// Plays the inputs as the command line asks: options, content, device, the control loop, outputs.
    static func run(_ words: [String]) throws(CommandFailure) {
        let options = try PlayOptions(words)
        let contents = try PlayContent.all(options)
        let output = try openOutput(options, contents)
        let voices = SessionVoices(engine: output.engine, contents: contents, modes: options.modes,
                                   keepsFirstVoiceHistory: options.clockLogPath != nil, log: output.session.log)
        let loop = PlayLoop(options: options, output: output, voices: voices, durationMs: contents[0].mixer.durationMilliseconds)
        defer { loop.restoreTerminal() }
        try loop.run()
        loop.playOut()
        try finish(options, contents, voices, output, ticks: loop.ticks, sync: loop.syncText)
    }

    /// Opens the device the options name and an engine on it for the contents' layout.
    private static func openOutput(_ options: PlayOptions, _ contents: [SessionContent]) throws(CommandFailure) -> PlayOutput {
        let monotonic = SystemMonotonicClock()
        let mixer = contents[0].mixer, rate = options.setup.rate
        ALSAErrorLog.shared.isVerbose = options.verbose

        // A simulated device keeps what it plays when anything is to be checked against it.
        var clock = SessionClock(monotonic)
        if options.logPath != nil || options.clockLogPath != nil || options.syncLogPath != nil || options.device.recordPath != nil
            || options.hapticDevice?.recordPath != nil {
            let once = contents.map { c in Double(c.mixer.timeline.isEndless ? c.mixer.timeline.segmentLength : c.mixer.frameCount) }.max()!
            let seconds = min(once / Double(rate.hertz) + (options.script.last?.at ?? 0) / 1000 + 10, 3600)
            clock.recordingFrames = Int(seconds * Double(rate.hertz))
        }
        let request = SessionEngine.Request(main: options.device, haptic: options.hapticDevice.map { ($0, options.hapticLayout ?? .haptic) },
                                            sampleRate: rate, channels: mixer.channelCount, periodFrames: options.period,
                                            bufferFrames: options.buffer, voiceLimit: options.voiceLimit, latency: options.latency)
        let session: Session
        do throws(SessionError) {
            // The engine keeps its events for the summary's count and the clock log, logged or not.
            session = try Session(request, logPath: options.logPath, keepsEvents: true, clock: clock,
                                  fallback: DeviceChoice.fallbackNotice(command))
        } catch {
            throw error.failure(command, option: "--device")
        }
        session.log?.derivesHaptics = options.args.flag("--derive")
        if options.verbose {
            if case .auto = options.device, session.name != "sim" { Console.error("\(command): auto: \(DeviceSpec.autoChoiceText())") }
            if let alsa = session.device as? ALSADevice { reportALSA(alsa, session.engine.configuration) }
            if let stream = session.device as? PipeWireDevice { reportPipeWire(stream, session.engine.configuration) }
        }
        return PlayOutput(session: session, monotonic: monotonic,
                          choice: options.args.value("--device") ?? "auto", hapticChoice: options.args.value("--haptic-device"))
    }

    /// `--verbose`: what a PipeWire stream asked for (its quantum comes with the summary, once
    /// the graph has run a cycle).
    private static func reportPipeWire(_ stream: PipeWireDevice, _ c: DeviceConfiguration) {
        Console.error("\(command): PipeWire '\(stream.target ?? "default sink")': float, \(c.sampleRate.hertz) Hz, \(c.channels) channels, latency asked \(c.periodFrames) frames (node.latency), rendered in the stream's process callback unless a second device plays")
    }

    /// `--verbose`: what the ALSA device settled on.
    private static func reportALSA(_ alsa: ALSADevice, _ c: DeviceConfiguration) {
        Console.error("\(command): ALSA '\(alsa.name)': \(alsa.sampleFormatName ?? "?"), \(c.sampleRate.hertz) Hz, \(c.channels) channels, period \(c.periodFrames), buffer \(c.bufferFrames) frames; pause \(alsa.capabilities.canPause ? "yes" : "no"), rewind \(alsa.capabilities.canRewind ? "yes" : "no")")
    }

    /// Writes the clock log, the event log and the recording asked for, then prints the summary.
    private static func finish(_ options: PlayOptions, _ contents: [SessionContent], _ voices: SessionVoices, _ output: PlayOutput,
                               ticks: [PlayLoop.Tick], sync loopSyncText: String) throws(CommandFailure) {
        let engine = output.engine
        let channels = engine.mainChannels
        let sim = output.device as? SimulatedDevice
        let (played, hapticPlayed) = output.session.played
        let hapticChannels = engine.hapticDeviceConfiguration?.channels ?? 0
        if let syncLogPath = options.syncLogPath {
            try writing { try OutputFile.write(Array(loopSyncText.utf8), to: syncLogPath) }
        }
        if let clockLogPath = options.clockLogPath {
            try writeClockLog(clockLogPath, ticks: ticks, device: sim, engine: engine, voice: voices.firstVoiceHistory, rate: options.setup.rate)
        }
        do throws(SessionError) {
            try output.session.writeLog()
            try output.session.writeRecordings()
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(error)")
        }
        if !options.setup.quiet {
            let deviceName = output.name
            let made = voices.madeCount
            let voiceCount = voices.contents.count > 1 || made > 1 ? "; \(made) voices" : ""
            func named(_ n: String, _ device: OutputDevice?) -> String {
                if n == "sim" { return "the simulated device" }
                if let stream = device as? PipeWireDevice {
                    return "PipeWire '\(stream.target ?? "default sink")'" + (stream.quantum > 0 ? " (quantum \(stream.quantum))" : "")
                }
                return "ALSA '\(n)'"
            }
            let touch = hapticPlayed.map { ", touch: \($0) frames × \(hapticChannels) channels on \(named(output.hapticName ?? "?", output.session.hapticDevice)) (\(engine.hapticDeviceUnderruns) underruns)" } ?? ""
            Console.error("played \(played) frames × \(channels) channels on \(named(deviceName, output.device))\(voiceCount)\(touch); \(engine.loggedEvents.count) events, \(engine.underruns) underruns")
        }
    }

    /// Runs `write`; its failure becomes the command's "cannot write" I/O error.
    private static func writing(_ write: () throws -> Void) throws(CommandFailure) {
        do {
            try write()
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
        }
    }

    /// `--clock-log`: per tick, the clock's answer beside the truth the simulated device knows —
    /// its exact consumption at that instant (interpolated between its updates, less its
    /// latency), mapped to stream frames across underrun gaps and through the transport states.
    static func writeClockLog(_ path: String, ticks: [PlayLoop.Tick],
                              device: SimulatedDevice?, engine: HapticEngine, voice instances: [HapticVoice], rate: SampleRate) throws(CommandFailure) {
        let timeline = device?.timeline ?? []
        let lost: [Range<StreamFrame>] = engine.loggedEvents.compactMap {
            if case let .underrun(from, to, _) = $0, to > from { return from..<to }
            return nil
        }
        let latency = Double(device?.behaviour.latencyFrames ?? 0)
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
                for gap in lost where Double(gap.lowerBound.index) <= stream { stream += Double(gap.upperBound - gap.lowerBound) }
                // Voice 1's instance heard at that stream frame: the last one attached by then.
                let attached = engine.loggedEvents.compactMap { e -> (id: Int, frame: Double)? in
                    if case let .command(.attach(id), _, _, frame, _) = e { return (id, Double(frame.index)) }
                    return nil
                }
                let id = attached.last { $0.frame <= stream }?.id
                if let voice = instances.last(where: { $0.id == id }) ?? instances.first {
                    truth = voice.track.contentFrame(atStreamFrame: stream) * 1000 / Double(rate.hertz)
                }
            }
            func number(_ v: Double?) -> JSONValue { v.map { .num(($0 * 1e6).rounded() / 1e6) } ?? JSONValue(.null) }
            let line: JSONValue = .obj(["timeNs": .num(Double(tick.time.nanoseconds)), "contentMs": number(tick.content),
                                        "animationFrame": number(tick.frame), "trueContentMs": number(truth),
                                        "errorSamples": number(tick.content.flatMap { c in truth.map { (c - $0) * Double(rate.hertz) / 1000 } })])
            text += JSONWriter(indent: 0).write(line).replacing("\n", with: "") + "\n"
        }
        try writing { try OutputFile.write(Array(text.utf8), to: path) }
    }
}

/// The command line of `pulsar play`, checked before anything is opened.
struct PlayOptions {
    /// Everything parsed; the mix options are read from it once the inputs are open.
    let args: Arguments
    /// The INPUTs: voice 1, 2, … in order.
    let inputPaths: [String]
    let setup: RenderSetup
    let verbose: Bool
    let device: DeviceChoice
    let scriptPath: String?
    let script: [TransportScript.Line]
    /// Display ticks per second for `--clock-log`.
    let tickRate: Double
    let logPath: String?
    let clockLogPath: String?
    let period: Int
    let buffer: Int
    /// Most voices playing at once.
    let voiceLimit: Int
    /// Each voice's mode (`--mode M` for all, or `--mode V=M,…`).
    let modes: [HapticVoice.Mode]
    /// Two devices: touch on this one, sound on `device` (`--haptic-device`), in its layout.
    let hapticDevice: DeviceChoice?
    let hapticLayout: ChannelLayout?
    /// `--latency`: each device's output latency beyond what it reports, seconds.
    let latency: (main: Double, haptic: Double)
    let syncLogPath: String?

    /// Parses `words`, reads the script, and refuses outputs that would overwrite an input.
    init(_ words: [String]) throws(CommandFailure) {
        let command = PlayCommand.command
        args = try Arguments(words, options: PlayCommand.options, command: command)
        inputPaths = args.positionals
        guard !inputPaths.isEmpty else { throw CommandFailure(.usage, "\(command): expected at least one INPUT") }
        guard inputPaths.count <= 128 else { throw CommandFailure(.usage, "\(command): at most 128 INPUTs, not \(inputPaths.count)") }
        setup = try RenderSetup(args, command: command)
        verbose = args.flag("--verbose")
        device = try DeviceChoice(parsing: args.value("--device") ?? "auto", rate: setup.rate, command: command)
            .preferringHaptics(layout: args.value("--layout"), command: command)
        scriptPath = args.value("--script")
        script = try scriptPath.map { p throws(CommandFailure) in
            do throws(SessionError) { return try TransportScript(contentsOf: p).lines } catch { throw error.failure }
        } ?? []
        let inputCount = inputPaths.count
        if let line = script.first(where: { ($0.voice ?? 1) > inputCount }) {
            throw CommandFailure(.dataError, "pulsar: error: \(scriptPath ?? "script"):\(line.line): voice \(line.voice ?? 1) has no INPUT (\(inputCount) given)")
        }
        tickRate = try args.number("--tick-rate", in: 1...1000, command: command) ?? 60
        logPath = args.value("--log")
        clockLogPath = args.value("--clock-log")
        syncLogPath = args.value("--sync-log")
        let two = try TwoDevices(args, device: args.value("--device") ?? "auto", rate: setup.rate, command: command)
        (hapticDevice, hapticLayout, latency) = (two.device, two.layout, two.latency)
        try Arguments.refuseOverwriting([logPath, clockLogPath, syncLogPath, device.recordPath, hapticDevice?.recordPath],
                                        inputs: inputPaths + [scriptPath], command: command)
        (period, buffer) = try device.periodAndBuffer(args, command: command)
        voiceLimit = try args.integer("--voices", default: 32, in: 1...128, command: command)
        modes = try Self.modes(args.value("--mode"), voices: inputCount, command: command)
    }

    /// `--mode pattern|realtime` for every voice, or `V=M,…` voice by voice (the rest: pattern).
    static func modes(_ text: String?, voices: Int, command: String) throws(CommandFailure) -> [HapticVoice.Mode] {
        guard let text else { return Array(repeating: .pattern, count: voices) }
        if let all = HapticVoice.Mode(rawValue: text) { return Array(repeating: all, count: voices) }
        var modes = Array(repeating: HapticVoice.Mode.pattern, count: voices)
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, let v = Int(kv[0]), (1...voices).contains(v), let m = HapticVoice.Mode(rawValue: kv[1]) else {
                throw CommandFailure(.usage, "\(command): --mode is pattern, realtime, or V=M,… for voices 1…\(voices), not '\(MessageText.excerpt(text))'")
            }
            modes[v - 1] = m
        }
        return modes
    }
}

/// What `pulsar play` plays: every INPUT opened, its preset picked and mixed as the session
/// layer mixes content (the audio preloaded); one layout for all (a bundle among them makes the
/// default `mix`).
enum PlayContent {
    static func all(_ options: PlayOptions) throws(CommandFailure) -> [SessionContent] {
        let command = PlayCommand.command
        var inputs: [PresetInput] = []
        for path in options.inputPaths { inputs.append(try PresetInput(path, setup: options.setup, strict: false)) }
        // Two devices: the main device's layout defaults to the audio's pair, and the mix adds the
        // haptic device's channel.
        let defaultLayout = options.hapticDevice != nil ? "L,R" : options.device.preferredLayout
        var mix = try MixOptions(options.args, setup: options.setup, isBundle: inputs.contains { $0.isBundle }, endlessLoops: true,
                                 defaultLayout: defaultLayout, command: command)
        if options.hapticDevice != nil { mix.settings.layout = TwoDevices.mixLayout(mix.settings.layout) }
        var contents: [SessionContent] = []
        for input in inputs {
            let preset = try input.select(options.args.value("--preset"), command: command, derive: options.args.flag("--derive"),
                                          profile: options.setup.profile, quiet: options.setup.quiet)
            let settings = try mix.settings(for: preset, setup: options.setup, command: command)
            do {
                contents.append(try SessionContent(preset: preset, settings: settings, range: mix.range,
                                                   origin: .file(path: input.path, preset: input.isBundle ? preset.id : nil)))
            } catch {
                throw CommandFailure(error, input: input.path, command: command, fromCommandLine: true)
            }
        }
        return contents
    }
}

/// The engine `pulsar play` opened, its device, the device's name, and the clock both run on.
struct PlayOutput {
    let session: Session
    let monotonic: SystemMonotonicClock
    var engine: HapticEngine { session.engine }
    var device: OutputDevice { session.device }
    var name: String { session.name }
    /// Two devices: the haptic one and its name.
    var hapticDevice: OutputDevice? { session.hapticDevice }
    var hapticName: String? { session.hapticName }
    /// What `--device` and `--haptic-device` said (the sync log's names).
    var choice: String? = nil
    var hapticChoice: String? = nil
}
