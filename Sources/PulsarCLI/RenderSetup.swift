import PulsarCommandLine
import PulsarBundle
import PulsarCore
import PulsarSession

/// The options shared by commands that load and render a pattern (`--rate`, `--profile`,
/// `--actuator`, `--gain`, `--time-unit`, `--quiet`), resolved by the session layer's
/// `ContentDevice`: this type only reads the command line, prints warnings and maps refusals to
/// exit codes.
struct RenderSetup {
    var content: ContentDevice
    var timeUnit: TimeUnitPolicy
    var quiet: Bool

    var rate: SampleRate { content.rate }
    /// The signal model's band and gain: `--profile`, or the `--actuator`'s (`Actuator.profile`).
    var profile: ActuatorProfile { content.profile }
    /// `--actuator`, nil when the device is a `--profile`.
    var actuator: Actuator? { content.actuator }

    init(_ args: Arguments, command: String) throws(CommandFailure) {
        let hz = try args.integer("--rate", default: 48_000, in: SampleRate.supported, command: command)
        let gain = try args.number("--gain", command: command)
        quiet = args.flag("--quiet")
        var warnings: [ContentWarning] = []
        do {
            content = try ContentDevice(rate: SampleRate(hz)!, profile: args.value("--profile"), actuator: args.value("--actuator"),
                                        gain: gain, warnings: &warnings)
        } catch {
            throw error.failure(command: command)
        }
        if !quiet { WarningPrinter.print(warnings) }
        timeUnit = try args.choice("--time-unit", default: TimeUnitPolicy.automatic, command: command)
    }

    /// The setup for `preset`: the actuator its manifest names when the command line names no
    /// device (docs/bundle-format.md), else this one.
    func applying(_ preset: PresetHandle, command: String) throws(CommandFailure) -> RenderSetup {
        var setup = self
        var warnings: [ContentWarning] = []
        do {
            setup.content = try content.applying(preset, warnings: &warnings)
        } catch {
            throw error.failure(command: command)
        }
        if !quiet { WarningPrinter.print(warnings) }
        return setup
    }

    /// The device the design is rendered for: `--actuator`, else `--profile` as an actuator.
    var device: Actuator { content.device }

    /// The defaults (48 kHz, wideband, times read automatically), for commands that only open
    /// their input.
    init(quiet: Bool) {
        content = ContentDevice()
        timeUnit = .automatic
        self.quiet = quiet
    }

    /// Loads a pattern file, printing its warnings (unless quiet) and mapping failures to exit codes.
    func load(_ path: String) throws(CommandFailure) -> LoadedPattern {
        var warnings: [ContentWarning] = []
        defer { if !quiet { WarningPrinter.print(warnings) } }
        do {
            return try ContentInput.pattern(at: path, timeUnit: timeUnit, warnings: &warnings)
        } catch {
            throw error.failure(command: "pulsar")
        }
    }

    func renderer(for pattern: PatternData) throws(CommandFailure) -> PatternRenderer {
        do {
            return try PatternRenderer(pattern: pattern, sampleRate: rate, profile: profile)
        } catch {
            throw CommandFailure(.usage, "pulsar: error: \(error)")
        }
    }
}
