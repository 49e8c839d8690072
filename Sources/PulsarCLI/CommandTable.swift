import PulsarCommandLine
import PulsarCore

/// One subcommand of `pulsar`: what `pulsar --help` lists, what `pulsar COMMAND --help` prints,
/// the options its parser accepts and its entry point. The man pages and the shell completions
/// are made from these and nothing else.
struct CLICommand: Sendable {
    var name: String
    /// One line for the command list of `pulsar --help` and the NAME of its man page.
    var summary: String
    var help: String
    /// Exactly the options `run` parses with.
    var options: [Arguments.Option]
    /// What its positional arguments are, for a shell completing them.
    var operands: Arguments.Completion = .files
    var run: @Sendable ([String]) throws(CommandFailure) -> Void

    /// Every command, in the order `pulsar --help` lists them.
    static let all: [CLICommand] = [
        CLICommand(name: "render", summary: "synthesize a pattern's haptic waveform into a WAV file",
                   help: RenderCommand.help, options: RenderCommand.options, run: RenderCommand.run),
        CLICommand(name: "info", summary: "show what a pattern file holds",
                   help: InfoCommand.help, options: InfoCommand.options, run: InfoCommand.run),
        CLICommand(name: "convert", summary: "convert a pattern between Pulsar JSON and AHAP",
                   help: ConvertCommand.help, options: ConvertCommand.options, run: ConvertCommand.run),
        CLICommand(name: "pack", summary: "pack a bundle folder into a .pulsar file (manifest checked, hash filled in)",
                   help: PackCommand.help, options: PackCommand.options, run: PackCommand.run),
        CLICommand(name: "play", summary: "play a preset live (ALSA, or the simulated device), with a script, a log and a clock log",
                   help: PlayCommand.help, options: PlayCommand.options, run: PlayCommand.run),
        CLICommand(name: "devices", summary: "list the ALSA playback devices play can use",
                   help: DevicesCommand.help, options: DevicesCommand.options, operands: .none, run: DevicesCommand.run),
        CLICommand(name: "frame", summary: "render one animation frame to a PNG (with lottie-ios dynamic properties)",
                   help: FrameCommand.help, options: FrameCommand.options, run: FrameCommand.run),
        CLICommand(name: "keypaths", summary: "list an animation's keypaths",
                   help: KeypathsCommand.help, options: KeypathsCommand.options, run: KeypathsCommand.run),
        CLICommand(name: "view", summary: "play a preset in a window: the animation in step with its sound and haptics",
                   help: ViewCommand.help, options: ViewCommand.options, run: ViewCommand.run),
        CLICommand(name: "video", summary: "write a preset's animation, sound and haptics as a video (.mp4, .mkv, .webm)",
                   help: VideoCommand.help, options: VideoCommand.options, run: VideoCommand.run),
        CLICommand(name: "drift", summary: "measure a device's clock drift and the engine's device-slaved clock on it",
                   help: DriftCommand.help, options: DriftCommand.options, run: DriftCommand.run),
        CLICommand(name: "latency", summary: "measure trigger latency on a device: by the engine's clock, and by a capture",
                   help: LatencyCommand.help, options: LatencyCommand.options, operands: .none, run: LatencyCommand.run),
        CLICommand(name: "follow", summary: "touch from any sound, live: a capture or a file followed onto a device's haptic channels",
                   help: FollowCommand.help, options: FollowCommand.options, operands: .none, run: FollowCommand.run),
        CLICommand(name: "derive", summary: "derive haptics from a sound: an editable pattern, or Android's HapticGenerator channel",
                   help: DeriveCommand.help, options: DeriveCommand.options, run: DeriveCommand.run),
        CLICommand(name: "actuators", summary: "list the actuators a design renders for: the profiles and the shipped actuator configs",
                   help: ActuatorsCommand.help, options: ActuatorsCommand.options, operands: .none, run: ActuatorsCommand.run),
        CLICommand(name: "lint", summary: "say what a device cannot do with a pattern: transients that merge, clicks, drive outside its band",
                   help: LintCommand.help, options: LintCommand.options, run: LintCommand.run),
        CLICommand(name: "plot", summary: "draw a pattern or preset (curves, transients, rendered output, audio) to a PNG or SVG",
                   help: PlotCommand.help, options: PlotCommand.options, run: PlotCommand.run),
    ]

    static func named(_ name: String) -> CLICommand? { all.first { $0.name == name } }
}

/// What `pulsar` itself says and takes, beside its commands.
enum PulsarTool {
    /// The NAME line of `pulsar(1)`.
    static let summary = "render, play, convert and inspect haptic patterns and preset bundles"

    /// The exit codes: their words in `pulsar --help`, their meaning in `pulsar(1)`.
    static let exitCodes: [(code: ExitCode, short: String, meaning: String)] = [
        (.ok, "ok", "success"),
        (.findings, "findings", "lint --strict found what the device cannot do"),
        (.usage, "usage", "a bad command line: an unknown option, a missing or malformed value"),
        (.dataError, "bad data", "an input breaks a rule of its format"),
        (.noInput, "missing input", "an input file does not exist or cannot be read"),
        (.unavailable, "device unavailable", "a device could not be opened, or failed"),
        (.software, "internal error", "something that should not happen did"),
        (.ioError, "I/O error", "an output could not be written"),
        (.interrupted, "interrupted", "stopped by SIGINT or SIGTERM"),
    ]

    /// An option of `pulsar` itself (it takes the place of COMMAND) that prints what a system
    /// needs to set `pulsar` up: its man pages and shell completions.
    struct SetupOption: Sendable {
        var option: Arguments.Option
        /// How the usage text shows it: the name and its argument.
        var synopsis: String
        var summary: String
        /// Whether its argument may be left out.
        var argumentIsOptional = false
    }

    static let setupOptions: [SetupOption] = [
        SetupOption(option: .value("--man-page", completion: .choices(CLICommand.all.map(\.name))), synopsis: "--man-page [COMMAND]",
                    summary: "print the man page of pulsar, or of COMMAND, as roff", argumentIsOptional: true),
        SetupOption(option: .value("--completion", completion: .choices(["bash", "zsh"])), synopsis: "--completion bash|zsh",
                    summary: "print the completion script of that shell"),
        SetupOption(option: .value("--complete-presets", completion: .files), synopsis: "--complete-presets PATH",
                    summary: "print the preset ids of the bundle PATH, one a line (nothing on failure)"),
        SetupOption(option: .flag("--complete-devices"), synopsis: "--complete-devices",
                    summary: "print the names --device takes, one a line"),
        SetupOption(option: .flag("--cli-reference"), synopsis: "--cli-reference",
                    summary: "print the command reference (docs/cli.md) as Markdown"),
    ]

    /// `--help` and `--version`, which take the place of COMMAND too.
    static let otherOptions: [Arguments.Option] = [.flag("--help", "-h"), .flag("--version", "-V")]

    /// `pulsar --help`.
    static var usage: String {
        let width = (CLICommand.all.map(\.name.count).max() ?? 0) + 2
        let setupWidth = (setupOptions.map(\.synopsis.count).max() ?? 0) + 2
        // A code and its words stay on one line.
        let exits = exitCodes.enumerated().map { "\($1.code.rawValue) \($1.short)" + ($0 + 1 < exitCodes.count ? "," : ".") }
        let sentence = "'pulsar COMMAND --help' describes a command. Exit codes:".split(separator: " ").map(String.init) + exits
        return """
        usage: pulsar COMMAND [OPTIONS]

        commands:
        \(CLICommand.all.map { "  " + padded($0.name, to: width) + $0.summary }.joined(separator: "\n"))

        \(wrapped(sentence, width: 90))

        setup:
        \(setupOptions.map { "  " + padded($0.synopsis, to: setupWidth) + $0.summary }.joined(separator: "\n"))
        """
    }

    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 1))
    }

    /// `units` joined by spaces, broken into lines of at most `width` characters between units.
    static func wrapped(_ units: [String], width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in units {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

extension Arguments.Completion {
    /// The named channel layouts `pulsar render --help` lists (a channel map is accepted too).
    static let layouts = Self.choices(["mix", "stereo+haptic", "quad", "haptic", "android"])
    /// The haptic device's layouts `pulsar play --help` names.
    static let hapticLayouts = Self.choices(["quad", "haptic"])
    /// The named actuator profiles (lra:HZ and FMIN:FMAX are accepted too).
    static let profiles = Self.choices(["wideband", "lra"])
    static let timeUnits = Self.choices(["auto", "ms", "s"])
    /// How an animation fills its canvas.
    static let contentModes = Self.choices(["fit", "fill", "stretch"])
}
