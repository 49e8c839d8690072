import PulsarCommandLine
import PulsarCore

/// The options shared by commands that load and render a pattern, turned into library values.
struct RenderSetup {
    var rate: SampleRate
    var profile: ActuatorProfile
    var timeUnit: TimeUnitPolicy
    var quiet: Bool

    init(_ args: Arguments, command: String) throws(CommandFailure) {
        let hz = try args.integer("--rate", default: 48_000, in: SampleRate.supported, command: command)
        rate = SampleRate(hz)!
        let profileText = args.value("--profile") ?? "wideband"
        guard var profile = ActuatorProfile(parsing: profileText) else {
            throw CommandFailure(.usage, "\(command): --profile must be wideband, lra, lra:HZ or FMIN:FMAX, not '\(profileText)'")
        }
        if let gain = try args.number("--gain", command: command) { profile.gain = gain }
        if let problem = profile.problem(at: rate) {
            throw CommandFailure(.usage, "\(command): --profile \(profileText): \(problem)")
        }
        self.profile = profile
        timeUnit = try args.choice("--time-unit", default: TimeUnitPolicy.automatic, command: command)
        quiet = args.flag("--quiet")
    }

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
