import PulsarAudio
import PulsarCommandLine
import PulsarCore
import PulsarLint
import PulsarPlot

/// `pulsar plot INPUT -o OUT.png|OUT.svg`: one picture of a pattern or preset on one time axis
/// (`PresetPlot`), drawn through cairo and written all or nothing.
enum PlotCommand {
    static let help = """
    usage: pulsar plot INPUT [--preset ID] -o OUT.png|OUT.svg [--size WxH] [--from MS] [--to MS]
                       [--layout L] [--rate HZ] [--profile P] [--spectrum] [--time-unit U] [--quiet]
           pulsar plot PATTERN --actuator NAME|FILE.acf -o OUT.png|OUT.svg [--size WxH] [--from MS]
                       [--to MS] [--rate HZ] [--time-unit U] [--quiet]

    Draws a pattern file (.json, .ahap, .haptic) or a bundle preset on one time axis in ms:
    the amplitude and frequency curves from the pattern's own points (the frequency as 0…1
    and in Hz through the actuator profile), the transients as stems as tall as their
    amplitude, the rendered output (min/max per pixel column, through the real mixer), the
    preset's audio alone when it has audio, and the animation's markers as named lines. The
    format follows the extension of OUT; the file appears only when complete.

    With --actuator, the pattern through that actuator config (docs/actuators.md): the clip the
    config's renderer reads, the config's band and the carrier's and bursts' frequencies in Hz,
    the haptic channel it draws, and each `pulsar lint` finding shaded and named by its rule.

    options:
      -o, --output PATH   the .png or .svg file to write (required)
      --preset ID         which preset of a bundle (needed when it has several)
      --size WxH          picture size in pixels, each side \(Figure.sides.lowerBound)…\(Figure.sides.upperBound) (default 1600x1000)
      --from MS, --to MS  the time span to draw (default: the whole content)
      --layout L          the output channels drawn: haptic (default), mix, stereo+haptic, quad,
                          or a map like L+H,R+H (channels fed alike share a panel)
      --rate HZ           render rate, 8000...192000 (default 48000)
      --profile P         actuator band: wideband (default), lra, lra:HZ, or FMIN:FMAX in Hz
      --spectrum          add a spectrogram of the haptic render
      --actuator A        draw the pattern through an actuator config (a shipped name or a .acf
                          file) with what `pulsar lint --actuator A` finds
      --time-unit U       how to read a Pulsar JSON pattern's times: auto (default), ms or s
      --quiet             no warnings, no summary line
      -h, --help          this help
    """

    static let defaultSize = (width: 1600, height: 1000)

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files), .value("--preset", completion: .presets),
        .value("--size"), .value("--from"),
        .value("--to"), .value("--layout", completion: .choices(["haptic", "mix", "stereo+haptic", "quad"])),
        .value("--rate"), .value("--profile", completion: .profiles),
        .flag("--spectrum"), .value("--time-unit", completion: .timeUnits), .value("--actuator", completion: .files),
        .flag("--quiet"),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar plot"
        let args = try Arguments(words, options: options, command: command)
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "\(command): missing -o OUT.png or OUT.svg (see '\(command) --help')")
        }
        guard let format = PlotFormat(path: output) else {
            throw CommandFailure(.usage, "\(command): -o \(MessageText.excerpt(output)): the output must end in .png or .svg")
        }
        let inputPath = try args.singleInput(command: command)
        try Arguments.refuseOverwriting([output], inputs: [inputPath], command: command)
        let size = try CanvasOptions.size(args, command: command, sides: Figure.sides, maximumPixels: Int.max) ?? defaultSize
        let setup = try RenderSetup(args, command: command)
        let mix = try MixOptions(args, setup: setup, isBundle: false, command: command)
        if let from = mix.range.from, let to = mix.range.to, from >= to {
            throw CommandFailure(.usage, "\(command): --from \(JSONWriter.format(from)) must be before --to \(JSONWriter.format(to))")
        }
        if args.value("--actuator") != nil {
            try runActuator(args: args, input: inputPath, setup: setup, range: mix.range, size: size, output: output)
            return
        }
        let input = try PresetInput(inputPath, setup: setup, strict: false)
        let preset = try input.select(args.value("--preset"), command: command)
        let settings = try mix.settings(for: preset, setup: setup, command: command)

        let options = PresetPlot.Options(width: size.width, height: size.height, settings: settings, range: mix.range,
                                         spectrum: args.flag("--spectrum"))
        let figure: Figure
        do {
            figure = try PresetPlot(preset: preset, options: options).figure()
            try figure.write(to: output)
        } catch let error as PresetPlot.Failure {
            throw CommandFailure(error, input: inputPath, command: command)
        } catch let error as PlotError {
            throw CommandFailure(error, command: command)
        } catch {
            throw CommandFailure(.software, "pulsar: error: \(error)")
        }
        if !setup.quiet {
            Console.error("wrote \(output): \(size.width)×\(size.height) \(format.rawValue), \(figure.panels.count) panels")
        }
    }
}

extension PlotCommand {
    /// `--actuator A`: the pattern through the config, with the lint's findings.
    static func runActuator(args: Arguments, input: String, setup: RenderSetup, range: PlaybackRange,
                            size: (width: Int, height: Int), output: String) throws(CommandFailure) {
        let command = "pulsar plot"
        for option in ["--preset", "--layout", "--profile", "--spectrum"] where args.flag(option) || args.value(option) != nil {
            throw CommandFailure(.usage, "\(command): --actuator takes no \(option) (the config is the device; its haptic channel is drawn)")
        }
        if PresetInput.looksLikeBundle(input) {
            throw CommandFailure(.usage, "\(command): --actuator draws a pattern file (.haptic, .json, .ahap), not a bundle")
        }
        let lint = try LintCommand.lint(try setup.load(input), input: PathText.lastComponent(input), setup: setup)
        let length = max(Double(lint.device.samples.count) * 1000 / Double(setup.rate.hertz), 1)
        let span = (range.from ?? 0)...max(range.to ?? length, (range.from ?? 0) + 1)
        let figure = ActuatorPlot(lint: lint, width: size.width, height: size.height, span: span).figure()
        do {
            try figure.write(to: output)
        } catch {
            throw CommandFailure(error, command: command)
        }
        if !setup.quiet {
            Console.error("wrote \(output): \(size.width)×\(size.height), \(figure.panels.count) panels, \(lint.device.name)")
        }
    }
}

extension CommandFailure {
    /// A figure that could not be made: the mixer's refusals as `render` maps them, unreadable
    /// audio or animation as data (65), the picture's own problems by `PlotError`.
    init(_ error: PresetPlot.Failure, input: String, command: String) {
        switch error {
        case .mixer(let e): self.init(e, input: input, command: command, fromCommandLine: true)
        case .audio(let e): self.init(e, input: input)
        case .animation(let e): self.init(.dataError, "pulsar: error: \(e)")
        case .plot(let e): self.init(e, command: command)
        }
    }

    /// A size the figure cannot use is the option's fault (64); failing to write is I/O (74);
    /// cairo failing or refusing our own values is a bug (70).
    init(_ error: PlotError, command: String) {
        switch error {
        case .badSize, .tooSmall, .unknownFormat: self.init(.usage, "\(command): \(error)")
        case .writeFailed: self.init(.ioError, "pulsar: error: \(error)")
        case .noPanels, .badData, .cairo: self.init(.software, "pulsar: error: \(error)")
        }
    }
}
