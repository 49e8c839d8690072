import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarDerive
import PulsarSession

/// `pulsar render INPUT -o OUT.wav`: exactly what a device would receive from an uninterrupted
/// play of a preset (or a pattern), as a WAV file.
enum RenderCommand {
    static let help = """
    usage: pulsar render INPUT -o OUT.wav [--preset ID] [--layout L] [--rate 48000]
                         [--format float|s16|s24] [--profile P|--actuator A] [--gain G] [--audio-gain G]
                         [--no-haptics] [--offset MS] [--audio-offset MS] [--duration MS]
                         [--from MS] [--to MS] [--loop N] [--reverse] [--strict]
                         [--time-unit auto|ms|s] [--derive] [--quiet]
           pulsar render AUDIO --haptics-from-audio android|envelope -o OUT.wav [--layout L] [--rate HZ] …
           pulsar render --replay LOG [--replay-device main|haptic] -o OUT.wav [--format F] [--quiet]

    Renders a preset of a bundle (.pulsar file or unpacked folder) — haptics mixed with its audio
    in the channel layout of the target hardware — or a single pattern file (.json, .ahap,
    .haptic) into a WAV file (docs/mixing.md, docs/signal-model.md), or, when OUT ends in .ogg, an
    Ogg Vorbis file (quality 0.6) whose comments carry ANDROID_HAPTIC=N when the layout ends in N
    haptic channels after its audio — Android's haptic-coupled audio; `--layout android` is
    L, R, H (`--replay` writes .ogg too). The file appears only when complete; on any error
    nothing is left behind.

    An audio file as INPUT (.ogg, .wav, .flac, .mp3, …) renders its audio as L, R and M and, for
    Android haptic-coupled audio (ANDROID_HAPTIC=N), its haptic channels as H: `--layout haptic`
    (the default here) extracts them.

    The haptic channel is rendered for a device: --profile (a band on the signal model), or
    --actuator A, a shipped actuator's name or a .acf file (docs/actuators.md; `pulsar
    actuators` lists them): an envelope actuator is the signal model on its band, reading a
    .haptic clip through its laws; a burst actuator renders as Meta's renderer does through its
    config — the clip's raw values, a sine carrier, emphasis bursts, the sum clipped to ±1 — a
    Pulsar JSON or AHAP pattern as the clip it maps to. A bundle preset that names an actuator
    in its manifest is rendered for it unless --profile or --actuator is given.

    options:
      -o, --output PATH   the WAV (or .ogg) file to write (required)
      --preset ID         which preset of a bundle (needed when it has several)
      --layout L          mix (bundles' default: L+H, R+H), stereo+haptic (L, R, H), quad (L, R, H, H:
                          a DualSense), haptic (patterns' default), android (L, R, H), or a map like L+H,R+H,0
      --rate HZ           sample rate, 8000...192000 (default 48000)
      --format F          float (32-bit, default), s16 or s24 (WAV only)
      --profile P         actuator band: wideband (60-300 Hz, default), lra (170 Hz +-10%),
                          lra:HZ, or FMIN:FMAX in Hz
      --gain G            haptic gain before the haptic limiter, (0, 16] (default 1)
      --audio-gain G      gain on the preset audio, on top of its volume (default 1)
      --no-haptics        silence the haptics (channels stay)
      --offset MS         shift haptics against audio and animation (positive: later)
      --audio-offset MS   replace the preset's audio offset (negative trims the audio's start)
      --duration MS       override the duration (else: preset, animation, then content)
      --from MS, --to MS  play only this segment of the content
      --loop N            play the segment N times (default 1)
      --reverse           boomerang: every second iteration runs backwards
      --strict            check the bundle's manifest hash
      --replay-device D   with --replay of a two-device play: main (default) or haptic, the
                          stream of that device
      --replay LOG        rebuild the device stream of a logged play (its input and settings
                          come from the log's header)
      --time-unit U       how to read a Pulsar JSON pattern's times: auto (default), ms or s
      --derive            a preset of audio alone (no haptics in its manifest): derive its pattern
                          from its audio (docs/derive.md, the envelope method on --profile)
      --haptics-from-audio M
                          with an AUDIO input: H is derived from the audio (docs/derive.md):
                          android, Android's HapticGenerator on its first channel at --rate;
                          envelope, the pattern `pulsar derive` makes, rendered on --profile and
                          mixed like a bundle's (default layout stereo+haptic)
      --actuator A        the device: a shipped actuator's name or a .acf file (instead of
                          --profile)
      --max-output SIZE   refuse, before writing, an output larger than SIZE (default 4G; e.g.
                          500M, 20G, or none): an input can make an output far longer than it looks
      --quiet             no warnings, no summary, no progress bar
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files),
        .value("--preset", completion: .presets),
        .value("--layout", completion: .layouts),
        .value("--rate"),
        .value("--format", completion: .choices(["float", "s16", "s24"])),
        .value("--profile", completion: .profiles),
        .value("--gain"),
        .value("--audio-gain"),
        .flag("--no-haptics"),
        .value("--offset"),
        .value("--audio-offset"),
        .value("--duration"),
        .value("--from"),
        .value("--to"),
        .value("--loop"),
        .flag("--reverse"),
        .flag("--strict"),
        .value("--time-unit", completion: .timeUnits),
        .flag("--quiet"),
        .value("--max-output"),
        .value("--actuator", completion: .files),
        .value("--replay", completion: .files),
        .value("--replay-device", completion: .choices(["main", "haptic"])),
        .flag("--derive"),
        .value("--haptics-from-audio", completion: .choices(DeriveSettings.Method.allCases.map(\.rawValue))),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar render"
        let args = try Arguments(words, options: options, command: command)
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "\(command): missing -o OUT.wav (see '\(command) --help')")
        }
        let format = try args.choice("--format", default: SampleFormat.float, command: command)
        if output.lowercased().hasSuffix(".ogg"), args.value("--format") != nil {
            throw CommandFailure(.usage, "\(command): --format is a WAV's sample format; an .ogg output is Ogg Vorbis")
        }
        if let log = args.value("--replay") {
            guard args.positionals.isEmpty else {
                throw CommandFailure(.usage, "\(command): --replay takes its input from the log; give no INPUT")
            }
            try Arguments.refuseOverwriting([output], inputs: [log], command: command)
            let which = args.value("--replay-device") ?? "main"
            guard let device = SessionReplay.Device(rawValue: which) else {
                throw CommandFailure(.usage, "\(command): --replay-device is main or haptic, not '\(MessageText.excerpt(which))'")
            }
            try ReplayRender.run(log: log, output: output, format: format, quiet: args.flag("--quiet"), device: device,
                                 budget: try OutputBudget(args, command: command))
            return
        }
        if args.value("--replay-device") != nil {
            throw CommandFailure(.usage, "\(command): --replay-device needs --replay LOG")
        }
        let inputPath = try args.singleInput(command: command)
        try Arguments.refuseOverwriting([output], inputs: [inputPath], command: command)
        let setup = try RenderSetup(args, command: command)
        var fromAudio: DeriveSettings.Method?
        if let text = args.value("--haptics-from-audio") {
            guard let method = DeriveSettings.Method(rawValue: text) else {
                throw CommandFailure(.usage, "\(command): --haptics-from-audio must be android or envelope, not '\(MessageText.excerpt(text))'")
            }
            fromAudio = method
        }
        if fromAudio != nil, !AudioFileInput.isAudio(inputPath) {
            throw CommandFailure(.usage, "\(command): --haptics-from-audio takes an audio INPUT (.wav, .flac, .ogg, .mp3, …); a bundle preset of audio alone takes --derive")
        }
        if fromAudio == .envelope {
            try renderEnvelope(of: inputPath, args: args, setup: setup, output: output, format: format)
            return
        }
        if AudioFileInput.isAudio(inputPath) {
            let text = args.value("--layout") ?? (fromAudio == nil ? "haptic" : "stereo+haptic")
            guard let layout = ChannelLayout(parsing: text) else {
                throw CommandFailure(.usage, "\(command): --layout must be mix, stereo+haptic, quad, haptic, android or a map like L+H,R+H, not '\(MessageText.excerpt(text))'")
            }
            try AudioFileInput.render(inputPath, layout: layout, rate: setup.rate, output: output, format: format, quiet: setup.quiet,
                                      generated: fromAudio == .android, budget: try OutputBudget(args, command: command))
            return
        }
        let input = try PresetInput(inputPath, setup: setup, strict: args.flag("--strict"))
        let preset = try input.select(args.value("--preset"), command: command, derive: args.flag("--derive"), profile: setup.profile, quiet: setup.quiet)
        try render(preset, input: inputPath, isBundle: input.isBundle, args: args, setup: setup, output: output, format: format)
    }

    /// `--haptics-from-audio envelope`: the audio file as a preset of audio alone, its pattern
    /// derived, mixed as a bundle's preset is (default layout stereo+haptic).
    static func renderEnvelope(of path: String, args: Arguments, setup: RenderSetup, output: String, format: SampleFormat) throws(CommandFailure) {
        let audioOnly: ContentInput
        do {
            audioOnly = try ContentInput(audioFile: path)
        } catch {
            throw error.failure
        }
        let preset = try PresetInput(path: path, presets: audioOnly.presets).select(nil, command: command, derive: true, profile: setup.profile, quiet: setup.quiet)
        try render(preset, input: path, isBundle: true, args: args, setup: setup, output: output, format: format, defaultLayout: "stereo+haptic")
    }

    static let command = "pulsar render"

    /// Refuses (64), before anything is written, an output larger than `--max-output` allows.
    static func checkBudget(_ budget: OutputBudget, frames: FrameIndex, channels: Int, rate: SampleRate, format: SampleFormat,
                            output: String) throws(CommandFailure) {
        let bytesPerSample: Double = format == .s16 ? 2 : format == .s24 ? 3 : 4
        let seconds = Double(frames) / Double(rate.hertz)
        try budget.check(Double(frames) * Double(channels) * bytesPerSample, output: output,
                         what: String(printf: "%.1f s", seconds) + " × \(channels) channels at \(rate.hertz) Hz, \(format.rawValue)", command: command)
    }

    /// Mixes `preset` (its audio and its pattern) into `output`.
    static func render(_ preset: PresetHandle, input inputPath: String, isBundle: Bool, args: Arguments, setup: RenderSetup,
                       output: String, format: SampleFormat, defaultLayout: String? = nil) throws(CommandFailure) {
        let setup = try setup.applying(preset, command: command)

        let options = try MixOptions(args, setup: setup, isBundle: isBundle, defaultLayout: defaultLayout, command: command)
        let layout = options.settings.layout
        let mixer: PresetMixer
        do {
            mixer = try PresetMixer(preset: preset, settings: options.settings, range: options.range)
        } catch {
            throw CommandFailure(error, input: inputPath, command: command, fromCommandLine: true)
        }
        try checkBudget(try OutputBudget(args, command: command), frames: mixer.frameCount, channels: mixer.channelCount, rate: setup.rate, format: format, output: output)

        // A bar only when it is worth watching: more than ten minutes of output.
        var bar = ProgressBar(label: "rendering", enabled: !setup.quiet && Console.stderrIsTerminal
                              && mixer.frameCount > FrameIndex(setup.rate.hertz) * 600)
        let report: WAVExporter.Report
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        do {
            let container = WAVExporter.Container(forOutput: output, layout: layout)
            report = try WAVExporter(format: format, container: container).export(mixer, to: output) { bar.update($0) }
        } catch {
            bar.finish()
            throw CommandFailure(error, input: inputPath)
        }
        bar.finish()
        if !setup.quiet {
            let ms = setup.rate.milliseconds(atFrame: report.frames)
            var line = "wrote \(output): \(report.frames) frames (\(String(printf: "%.3f", ms)) ms) × \(report.channels) channels (\(layout.name)) at \(setup.rate.hertz) Hz, \(WAVExporter.Container(forOutput: output, layout: layout) == .wav ? format.rawValue : "Ogg Vorbis"), peak \(String(printf: "%.3f", report.peak))"
            if report.limitedSamples > 0 { line += ", \(report.limitedSamples) samples limited" }
            if let actuator = setup.actuator { line += ", for actuator \(actuator.name)" }
            Console.error(line)
        }
    }
}
