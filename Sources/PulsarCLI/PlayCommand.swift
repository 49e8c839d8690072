import PulsarCommandLine
import Foundation
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottie
import PulsarEngine
import PulsarSimulation

/// `pulsar play INPUT --device sim[:…]`: plays a preset live through the engine, driven by an
/// optional transport script, writing the event log and (on the simulated device) a recording.
enum PlayCommand {
    static let help = """
    usage: pulsar play INPUT [--preset ID] [--device auto|NAME|sim[:ppm=P,jitter=MS,latency=MS,format=F,record=OUT.wav]]
                       [--script FILE] [--log FILE] [--clock-log FILE] [--layout L] [--rate HZ] [--profile P]
                       [--gain G] [--audio-gain G] [--no-haptics] [--offset MS] [--audio-offset MS]
                       [--duration MS] [--from MS] [--to MS] [--loop N|forever] [--reverse]
                       [--period FRAMES] [--buffer FRAMES] [--tick-rate HZ] [--verbose] [--quiet]

    Plays a preset (or a pattern) through the real-time engine. Every transport command takes
    effect at a device frame; --log writes the event log that `pulsar render --replay` turns
    back into the same samples.

    Devices: `auto` (the default) plays on ALSA 'default' and, when there is no sound device,
    on the simulated device with one line saying so; NAME is any ALSA PCM (`pipewire`, `pulse`,
    `hw:0,0`, `plughw:1,0`; see `pulsar devices`); `sim` is the simulated device, paced by the
    system clock: ppm sets its rate error, jitter its position-report jitter, latency its output
    latency, format= the sample format it takes (float, s32 or s16: integers pass through the
    converter an ALSA device uses), record= a WAV of exactly what it played.

    A transport script has one command a line, `at <ms since start> <command> [args]`:
    play [MS], pause, resume, stop, seek MS, loop N|forever|off [reverse], offset MS,
    haptics on|off, gain audio|haptic G; `#` starts a comment. Loop, offset, haptics and gain
    changes take effect at a device frame like the rest, continuing the content being heard.
    Without a script the preset plays from the start. The command ends when playback completes
    or stops (an endless loop needs a `stop`, `q`, or Ctrl-C).

    On a terminal a status line shows time, animation frame, loop, device and underruns; keys:
    space pause/resume, ←/→ seek −/+500 ms, r restart, q quit.

    options: as `pulsar render`, plus
      --device D          auto, an ALSA PCM name, or sim[:…] (default auto)
      --script FILE       transport script
      --log FILE          event log (JSON lines)
      --clock-log FILE    one JSON line per display tick: monotonic time, the clock's content
                          time and animation frame, and (simulated device) the true content time
      --tick-rate HZ      display ticks per second for --clock-log (default 60)
      --loop N|forever    iterations of the segment (forever: until stopped)
      --period FRAMES     device period (default 128 = 2.7 ms at 48 kHz on sound devices, 256 on sim)
      --buffer FRAMES     device buffer (default 4 periods)
      --verbose           ALSA's own messages, the negotiated format, real-time scheduling
      --quiet             no status line, no summary
      -h, --help          this help
    """

    /// The name its messages begin with.
    static let command = "pulsar play"

    /// Plays the input as the command line asks: options, content, device, the control loop, outputs.
    static func run(_ words: [String]) throws(CommandFailure) {
        let options = try PlayOptions(words)
        let content = try PlayContent(options)
        let output = try openOutput(options, content)
        let loop = PlayLoop(options: options, output: output, durationMs: content.mixer.durationMilliseconds)
        defer { loop.restoreTerminal() }
        try loop.run()
        loop.playOut()
        try finish(options, content, output, ticks: loop.ticks)
    }

    /// Opens the device the options name and a player of the content on it.
    private static func openOutput(_ options: PlayOptions, _ content: PlayContent) throws(CommandFailure) -> PlayOutput {
        let monotonic = SystemMonotonicClock()
        let mixer = content.mixer, rate = options.setup.rate
        ALSAErrorLog.shared.isVerbose = options.verbose

        // The device: ALSA by name, the simulated one, or (auto) ALSA `default` falling back to it.
        func simulated(_ b: SimulatedDevice.Behaviour) -> SimulatedDevice {
            var behaviour = b
            if options.logPath != nil || options.clockLogPath != nil || options.device.recordPath != nil {
                let once = Double(mixer.timeline.isEndless ? mixer.timeline.segmentLength : mixer.frameCount) / Double(rate.hertz)
                let seconds = min(once + (options.script.last?.at ?? 0) / 1000 + 10, 3600)
                behaviour.recordingCapacity = Int(seconds * Double(rate.hertz))
            }
            return SimulatedDevice(clock: monotonic, behaviour: behaviour)
        }
        let (player, device, name) = try options.device.openPlayer(mixer: mixer, monotonic: monotonic, period: options.period,
                                                                   buffer: options.buffer, animationFrameRate: content.timing?.frameRate,
                                                                   simulated: simulated, command: command)
        if options.verbose, let alsa = device as? ALSADevice { reportALSA(alsa, player.configuration) }
        return PlayOutput(player: player, device: device, name: name, monotonic: monotonic)
    }

    /// `--verbose`: what the ALSA device settled on.
    private static func reportALSA(_ alsa: ALSADevice, _ c: DeviceConfiguration) {
        Console.error("\(command): ALSA '\(alsa.name)': \(alsa.sampleFormatName ?? "?"), \(c.sampleRate.hertz) Hz, \(c.channels) channels, period \(c.periodFrames), buffer \(c.bufferFrames) frames; pause \(alsa.capabilities.canPause ? "yes" : "no"), rewind \(alsa.capabilities.canRewind ? "yes" : "no")")
    }

    /// Writes the clock log, the event log and the recording asked for, then prints the summary.
    private static func finish(_ options: PlayOptions, _ content: PlayContent, _ output: PlayOutput,
                               ticks: [PlayLoop.Tick]) throws(CommandFailure) {
        let player = output.player
        let channels = content.mixer.channelCount
        let sim = output.device as? SimulatedDevice
        let played = playedFrames(player, device: sim, channels: channels)
        if let clockLogPath = options.clockLogPath {
            try writeClockLog(clockLogPath, ticks: ticks, device: sim, player: player, rate: options.setup.rate)
        }
        if let log = options.logPath {
            try writeEventLog(log, options, content, player: player, playedFrames: played)
        }
        if let recordPath = options.device.recordPath, let sim {
            try writing { _ = try WAVExporter().export(sim.recording, to: recordPath, sampleRate: options.setup.rate, channels: channels) }
        }
        if !options.setup.quiet {
            let deviceName = output.name
            Console.error("played \(played) frames × \(channels) channels on \(deviceName == "sim" ? "the simulated device" : "ALSA '\(deviceName)'"); \(player.loggedEvents.count) events, \(player.underruns) underruns")
        }
    }

    /// Frames the device played: the simulated device counts them; otherwise everything written
    /// (the queue was played out) less what underruns lost.
    private static func playedFrames(_ player: HapticPlayer, device sim: SimulatedDevice?, channels: Int) -> FrameIndex {
        let lostFrames = player.loggedEvents.reduce(FrameIndex(0)) {
            if case let .underrun(from, to, _) = $1 { return $0 + max(to - from, 0) }
            return $0
        }
        let recorded = sim.flatMap { $0.behaviour.recordingCapacity > 0 ? FrameIndex($0.recording.count / channels) : nil }
        return recorded ?? max(player.streamWritten.index - lostFrames, 0)
    }

    /// `--log`: the event log, headed by what `pulsar render --replay` needs to rebuild the mix.
    private static func writeEventLog(_ path: String, _ options: PlayOptions, _ content: PlayContent, player: HapticPlayer,
                                      playedFrames: FrameIndex) throws(CommandFailure) {
        let setup = options.setup, settings = content.settings, range = content.range
        let header = EngineLog.Header(input: options.inputPath, preset: content.input.isBundle ? content.preset.id : nil,
                                      layout: settings.layout.name, sampleRate: setup.rate.hertz, profile: setup.profile.name,
                                      audioOffset: settings.audioOffset, duration: range.duration,
                                      mix: LiveMix(settings: settings, range: range))
        try writing {
            try OutputFile.write(Array(EngineLog.text(header: header, events: player.loggedEvents, playedFrames: playedFrames,
                                                      firstWrite: player.firstWriteTime, wakeups: player.wakeups).utf8), to: path)
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

    /// One script command, on the control thread; false when the player cannot take it yet (its
    /// command queue is full, or too many mix changes are in flight): the caller retries.
    static func perform(_ command: TransportScript.Command, on player: HapticPlayer) throws(PresetMixer.SetupError) -> Bool {
        switch command {
        case .play(let ms):
            guard let ms else { return player.play() }
            let m = player.mixer
            let content = m.settings.sampleRate.contentFrame(atMilliseconds: ms)
            return player.play(fromFrame: m.timeline.timelineFrame(of: content, inIteration: 0))
        case .pause: return player.pause()
        case .resume: return player.resume()
        case .stop: return player.stop()
        case .seek(let ms): return player.setTimestamp(ms)
        case let .loop(count, reverse):
            return try live(player) { $0.loopCount = count.map { max($0, 1) } ?? PlaybackTimeline.endless; $0.reverse = reverse }
        case .loopOff: return try live(player) { $0.loopCount = 1; $0.reverse = false }
        case .offset(let ms): return try live(player) { $0.hapticOffset = ms }
        case .haptics(let on): return try live(player) { $0.hapticsEnabled = on }
        case .audioGain(let g): return try live(player) { $0.audioGain = g }
        case .hapticGain(let g): return try live(player) { $0.hapticGain = g }
        }
    }

    /// Makes a live change: true when made, false when the player is busy (the caller retries),
    /// the mixer's refusal thrown.
    private static func live(_ player: HapticPlayer, _ edit: (inout LiveMix) -> Void) throws(PresetMixer.SetupError) -> Bool {
        do {
            try player.adjust(edit)
            return true
        } catch {
            switch error {
            case .busy: return false
            case .refused(let why): throw why
            }
        }
    }

    /// `--clock-log`: per tick, the clock's answer beside the truth the simulated device knows —
    /// its exact consumption at that instant (interpolated between its updates, less its
    /// latency), mapped to stream frames across underrun gaps and through the transport states.
    static func writeClockLog(_ path: String, ticks: [PlayLoop.Tick],
                              device: SimulatedDevice?, player: HapticPlayer, rate: SampleRate) throws(CommandFailure) {
        let timeline = device?.timeline ?? []
        let lost: [Range<StreamFrame>] = player.loggedEvents.compactMap {
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
                truth = player.clock.contentFrame(atStreamFrame: stream) * 1000 / Double(rate.hertz)
            }
            func number(_ v: Double?) -> JSONValue { v.map { .num(($0 * 1e6).rounded() / 1e6) } ?? JSONValue(.null) }
            let line: JSONValue = .obj(["timeNs": .num(Double(tick.time.nanoseconds)), "contentMs": number(tick.content),
                                        "animationFrame": number(tick.frame), "trueContentMs": number(truth),
                                        "errorSamples": number(tick.content.flatMap { c in truth.map { (c - $0) * Double(rate.hertz) / 1000 } })])
            text += JSONWriter(indent: 0).write(line).replacingOccurrences(of: "\n", with: "") + "\n"
        }
        try writing { try OutputFile.write(Array(text.utf8), to: path) }
    }
}

/// The command line of `pulsar play`, checked before anything is opened.
struct PlayOptions {
    /// Everything parsed; the mix options are read from it once the input is open.
    let args: Arguments
    let inputPath: String
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

    private static let accepted: [Arguments.Option] = [
        .init(names: ["--preset"], takesValue: true), .init(names: ["--device"], takesValue: true),
        .init(names: ["--script"], takesValue: true), .init(names: ["--log"], takesValue: true),
        .init(names: ["--layout"], takesValue: true), .init(names: ["--rate"], takesValue: true),
        .init(names: ["--profile"], takesValue: true), .init(names: ["--gain"], takesValue: true),
        .init(names: ["--audio-gain"], takesValue: true), .init(names: ["--no-haptics"], takesValue: false),
        .init(names: ["--offset"], takesValue: true), .init(names: ["--audio-offset"], takesValue: true),
        .init(names: ["--duration"], takesValue: true), .init(names: ["--from"], takesValue: true),
        .init(names: ["--to"], takesValue: true), .init(names: ["--loop"], takesValue: true),
        .init(names: ["--reverse"], takesValue: false), .init(names: ["--period"], takesValue: true),
        .init(names: ["--buffer"], takesValue: true), .init(names: ["--verbose"], takesValue: false),
        .init(names: ["--time-unit"], takesValue: true), .init(names: ["--quiet"], takesValue: false),
        .init(names: ["--clock-log"], takesValue: true), .init(names: ["--tick-rate"], takesValue: true),
    ]

    /// Parses `words`, reads the script, and refuses outputs that would overwrite an input.
    init(_ words: [String]) throws(CommandFailure) {
        let command = PlayCommand.command
        args = try Arguments(words, options: Self.accepted, command: command)
        inputPath = try args.singleInput(command: command)
        setup = try RenderSetup(args, command: command)
        verbose = args.flag("--verbose")
        device = try DeviceChoice(parsing: args.value("--device") ?? "auto", rate: setup.rate, command: command)
        scriptPath = args.value("--script")
        script = try scriptPath.map { p throws(CommandFailure) in try TransportScript(contentsOf: p).lines } ?? []
        tickRate = try args.number("--tick-rate", in: 1...1000, command: command) ?? 60
        logPath = args.value("--log")
        clockLogPath = args.value("--clock-log")
        try Arguments.refuseOverwriting([logPath, clockLogPath, device.recordPath], inputs: [inputPath, scriptPath],
                                        command: command)
        (period, buffer) = try device.periodAndBuffer(args, command: command)
    }
}

/// What `pulsar play` plays: the input, the preset chosen from it, and its mixer.
struct PlayContent {
    let input: PresetInput
    let preset: PresetHandle
    let settings: MixSettings
    let range: PlaybackRange
    let mixer: PresetMixer
    /// The animation's timing, when the preset has one.
    let timing: LottieTiming?

    /// Opens the input, picks the preset, and builds its mixer with the audio preloaded.
    init(_ options: PlayOptions) throws(CommandFailure) {
        let command = PlayCommand.command
        input = try PresetInput(options.inputPath, setup: options.setup, strict: false)
        preset = try input.select(options.args.value("--preset"), command: command)
        let mix = try MixOptions(options.args, setup: options.setup, isBundle: input.isBundle, endlessLoops: true, command: command)
        var settings = mix.settings
        settings.preloadAudio = true
        self.settings = settings
        range = mix.range
        do {
            mixer = try PresetMixer(preset: preset, settings: settings, range: range)
        } catch {
            throw CommandFailure(error, input: options.inputPath, command: command, fromCommandLine: true)
        }
        timing = preset.animation.flatMap { LottieTiming(lottieJSON: $0.data) }
    }
}

/// The player `pulsar play` opened, its device, the device's name, and the clock both run on.
struct PlayOutput {
    let player: HapticPlayer
    let device: OutputDevice
    let name: String
    let monotonic: SystemMonotonicClock
}

/// The control loop of `pulsar play`: script lines at their times, keys, the device's failure,
/// clock-log ticks and the status line, until nothing will play any more.
///
/// Thread rules: the control thread only (the player's `completion` arrives there, from `poll`).
final class PlayLoop {
    /// One display tick of `--clock-log`: when, and what the clock said.
    typealias Tick = (time: MonotonicTime, content: Double?, frame: Double?)

    private let options: PlayOptions
    private let player: HapticPlayer
    private let monotonic: SystemMonotonicClock
    private let interactive: Bool
    private let keys: KeyReader?
    private var status: StatusLine
    private let start: MonotonicTime
    /// The script, or one `play` at 0 without one.
    private let pending: [TransportScript.Line]
    // Lines are taken by index (removing the first of an array would make a long script quadratic).
    private var nextLine = 0
    /// Times a due line waited because the player could not take it yet.
    private var delayedLines = 0
    private(set) var ticks: [Tick] = []
    private var nextTick: MonotonicTime
    private var paused = false
    private var done = false

    /// Takes the terminal's keys and status line when interactive; the clock starts now.
    init(options: PlayOptions, output: PlayOutput, durationMs: Double) {
        self.options = options
        player = output.player
        monotonic = output.monotonic
        interactive = !options.setup.quiet && StatusLine.isAvailable
        keys = interactive ? KeyReader() : nil
        status = StatusLine(device: output.name, durationMs: durationMs)
        start = monotonic.now()
        pending = options.script.isEmpty ? [TransportScript.Line(at: 0, command: .play(nil), line: 0)] : options.script
        nextTick = start
        player.completion = { [weak self] _ in self?.done = true }
    }

    /// Starts the player and runs until playback is over and the script done; a failure thrown.
    func run() throws(CommandFailure) {
        player.start()
        if options.verbose { reportScheduling() }
        while !done || nextLine < pending.count {
            try sendDueLines()
            for key in keys?.keys() ?? [] { act(on: key) }
            player.poll()
            if let failure = player.failure {
                player.shutdown()
                status.finish()
                throw CommandFailure(.unavailable, "pulsar: error: device: \(failure)")
            }
            let now = monotonic.now()
            recordTick(at: now)
            if interactive { status.update(player, now: now, paused: paused) }
            // Nothing will play any more: stopped with no script left.
            // (Not while a command just sent has yet to reach the clock: right after a resume the
            // clock still shows the pause.)
            if nextLine == pending.count, !player.hasPendingCommands, player.clock.isIdle, !paused || keys?.isActive != true { done = true }
            sleepUntilNextWake(from: now)
        }
    }

    /// `--verbose`: the real-time thread's scheduling, once it has had a moment to ask for it.
    private func reportScheduling() {
        usleep(20_000)
        let rt = player.hasRealtimeScheduling.map { $0 ? "SCHED_FIFO priority \(HapticPlayer.realtimePriority)" : "normal priority (SCHED_FIFO refused)" } ?? "normal priority (simulated device)"
        Console.error("\(PlayCommand.command): real-time thread: \(rt)")
    }

    /// Sends the script lines whose time has come, in order; a line the player cannot take yet waits.
    private func sendDueLines() throws(CommandFailure) {
        let elapsedMs = monotonic.now().seconds(since: start) * 1000
        while nextLine < pending.count, pending[nextLine].at <= elapsedMs {
            let next = pending[nextLine]
            let accepted: Bool
            do {
                accepted = try PlayCommand.perform(next.command, on: player)
            } catch {
                player.shutdown()
                throw CommandFailure(.dataError, "pulsar: error: \(options.scriptPath ?? "script"):\(next.line): \(error)")
            }
            // The player is full: the line waits (never dropped) until the real-time thread
            // has taken what is queued.
            guard accepted else {
                delayedLines += 1
                break
            }
            nextLine += 1
            if case .pause = next.command { paused = true }
            if case .resume = next.command { paused = false }
        }
    }

    /// A key from the terminal: pause / resume, seek ∓500 ms, restart, or quit.
    private func act(on key: PlayKey) {
        switch key {
        case .pauseResume:
            _ = paused ? player.resume() : player.pause()
            paused.toggle()
        case .seekBack, .seekForward:
            let at = player.contentTime(at: monotonic.now()) ?? 0
            player.setTimestamp(at + (key == .seekBack ? -500 : 500))
        case .restart:
            paused = false
            player.play()
        case .quit:
            nextLine = pending.count
            player.stop()
        }
    }

    /// `--clock-log`: notes the clock's answer at `now` when a display tick is due.
    private func recordTick(at now: MonotonicTime) {
        guard options.clockLogPath != nil, now >= nextTick else { return }
        ticks.append((now, player.contentTime(at: now), player.animationFrame(at: now)))
        nextTick = nextTick.adding(seconds: 1 / options.tickRate)
        if nextTick < now { nextTick = now.adding(seconds: 1 / options.tickRate) }
    }

    /// Sleeps to the next script line, clock-log tick or status/key check (10 ms at most;
    /// 1 ms while a line waits for the player).
    private func sleepUntilNextWake(from now: MonotonicTime) {
        var wake = now.adding(seconds: 0.010)
        if nextLine < pending.count { wake = min(wake, max(start.adding(seconds: pending[nextLine].at / 1000), now.adding(seconds: 0.001))) }
        if options.clockLogPath != nil { wake = min(wake, nextTick) }
        let sleep = wake.seconds(since: monotonic.now())
        if sleep > 0 { usleep(UInt32(sleep * 1e6)) }
    }

    /// Warns of late script lines, lets the device play out what is queued, then stops the thread.
    func playOut() {
        if delayedLines > 0, !options.setup.quiet {
            Console.error("pulsar: warning: \(delayedLines) times a script line waited for the player (its command queue or mix table was full): those lines took effect later than written")
        }
        usleep(UInt32(Double(player.configuration.bufferFrames) / Double(options.setup.rate.hertz) * 1e6) + 20_000)
        player.poll()
        player.shutdown()
        player.poll()
        status.finish()
    }

    /// Gives the terminal back: keys echo again and the status line is ended.
    func restoreTerminal() {
        keys?.restore()
        status.finish()
    }
}
