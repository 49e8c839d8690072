import PulsarCommandLine
import PulsarBundle
import PulsarCore

/// The options shared by commands that load and render a pattern, turned into library values.
struct RenderSetup {
    var rate: SampleRate
    /// The signal model's band and gain: `--profile`, or the `--actuator`'s (`Actuator.profile`).
    var profile: ActuatorProfile
    /// `--actuator`, nil when the device is a `--profile`.
    var actuator: Actuator?
    var timeUnit: TimeUnitPolicy
    var quiet: Bool
    /// Whether the command line named the device (`--actuator` or `--profile`): a bundle
    /// preset's own actuator is used only when it did not.
    var deviceGiven = false
    /// `--gain`, kept for a preset's own actuator.
    var gain: Double?

    init(_ args: Arguments, command: String) throws(CommandFailure) {
        let hz = try args.integer("--rate", default: 48_000, in: SampleRate.supported, command: command)
        rate = SampleRate(hz)!
        let profileText = args.value("--profile") ?? "wideband"
        guard var profile = ActuatorProfile(parsing: profileText) else {
            throw CommandFailure(.usage, "\(command): --profile must be wideband, lra, lra:HZ or FMIN:FMAX, not '\(profileText)'")
        }
        let gain = try args.number("--gain", command: command)
        if let gain { profile.gain = gain }
        self.gain = gain
        deviceGiven = args.value("--profile") != nil || args.value("--actuator") != nil
        if let problem = profile.problem(at: rate) {
            throw CommandFailure(.usage, "\(command): --profile \(profileText): \(problem)")
        }
        quiet = args.flag("--quiet")
        if let name = args.value("--actuator") {
            guard args.value("--profile") == nil else {
                throw CommandFailure(.usage, "\(command): --actuator and --profile both name the device: give one")
            }
            var actuator = try ActuatorCatalog.actuator(name, rate: rate, quiet: quiet, command: command)
            if let gain { actuator.gain = gain }
            profile = actuator.profile
            self.actuator = actuator
        }
        self.profile = profile
        timeUnit = try args.choice("--time-unit", default: TimeUnitPolicy.automatic, command: command)
    }

    /// The setup for `preset`: the actuator its manifest names when the command line names no
    /// device (docs/bundle-format.md), else this one.
    func applying(_ preset: PresetHandle, command: String) throws(CommandFailure) -> RenderSetup {
        guard !deviceGiven, let name = preset.actuator else { return self }
        var setup = self
        var actuator: Actuator
        do {
            actuator = try ActuatorCatalog.actuator(name, rate: rate, quiet: quiet, command: command, shippedOnly: true)
        } catch {
            // The manifest, not the command line, named it: a data error.
            guard error.code == .usage else { throw error }
            let shipped = ActuatorCatalog.shipped
            throw CommandFailure(.dataError, "pulsar: error: preset \(MessageText.quoted(preset.id)) names actuator \(MessageText.quoted(name)) in its manifest, which "
                                 + (shipped.names.contains(name) ? "cannot play at \(rate.hertz) Hz" : "is not shipped (\(shipped.list))"))
        }
        if let gain { actuator.gain = gain }
        (setup.actuator, setup.profile) = (actuator, actuator.profile)
        return setup
    }

    /// The device the design is rendered for: `--actuator`, else `--profile` as an actuator.
    var device: Actuator { actuator ?? Actuator(profile: profile) }


    /// The defaults (48 kHz, wideband, times read automatically), for commands that only open
    /// their input.
    init(quiet: Bool) {
        rate = SampleRate(48_000)!
        profile = .wideband
        timeUnit = .automatic
        self.quiet = quiet
    }

    /// Loads a pattern file, printing its warnings (unless quiet) and mapping failures to exit codes.
    func load(_ path: String) throws(CommandFailure) -> LoadedPattern {
        do {
            let loaded = try PatternLoader(timeUnit: timeUnit).load(contentsOf: path)
            if !quiet {
                WarningPrinter.print(loaded.warnings)
            }
            return loaded
        } catch {
            throw CommandFailure(Self.exitCode(for: error), "pulsar: error: \(error)")
        }
    }

    func renderer(for pattern: PatternData) throws(CommandFailure) -> PatternRenderer {
        do {
            return try PatternRenderer(pattern: pattern, sampleRate: rate, profile: profile)
        } catch {
            throw CommandFailure(.usage, "pulsar: error: \(error)")
        }
    }

    static func exitCode(for diagnostic: PatternDiagnostic) -> ExitCode {
        switch diagnostic.rule {
        case .missingInput, .unreadable: return .noInput
        default: return .dataError
        }
    }
}
