import PulsarCommandLine
import PulsarCore
import PulsarLint

/// `pulsar lint PATTERN [--profile P | --actuator A] [--json] [--strict]`: what a device cannot
/// do with a design, one line each (docs/actuators.md, "Lint").
enum LintCommand {
    static let help = """
    usage: pulsar lint PATTERN [--profile P | --actuator A] [--rate HZ] [--time-unit U] [--json]
                       [--strict] [--quiet]

    Says what a device cannot do with a design: each finding one line with its time, its rule
    and its figure against the bound, then a summary. PATTERN is Pulsar JSON, AHAP or a .haptic
    clip; the device is a profile (--profile, default wideband: the pattern as today's model
    plays it) or an actuator (--actuator NAME|FILE.acf: an envelope one as today's model plays it
    on its band, a burst one as Meta's renderer plays it through the config, a JSON or AHAP
    pattern as the clip it maps to). Rules:
      transients-merge    a transient starts while the one before still sounds on the device
                          (within its burst): the two are felt as one
      energy-above-1khz   in a 50 ms window, more than -40 dB of the energy above 1 kHz: clicks
      outside-band        in a 50 ms window, more than -10 dB of the energy outside the band
      step                a jump between two samples larger than a full-scale sine at twice
                          the band's top makes: a click
      transient-shape     a transient the device plays as less than one cycle, or over half an
                          octave outside its band: an emphasis it cannot shape
    and, where the actuator states its figure (its config's limits; never on a --profile):
      transients-close    two transients closer than it separates (limits.separation_ms)
      transient-short     a transient shorter on the device than its rise (limits.rise_ms)
      response            the amplitude moving by 0.3 or more faster than its rise
      sustained-drive     RMS over limits.sustained_window_ms above limits.sustained_rms
    Windows quieter than -60 dBFS are not judged. A config that band-limits its bursts gets a
    note of what that costs: the bursts' power kept, in dB of the whole waveforms. Exit 0 (findings are warnings), 1 with
    --strict when there are findings, 64 for a bad command line, 65/66 for an unreadable pattern.

    options:
      --profile P         the device's band: wideband (default), lra, lra:HZ or FMIN:FMAX in Hz
      --actuator A        the pattern through an actuator config: a shipped name or a .acf file
      --rate HZ           the rate the design is rendered at for the spectral rules (default 48000)
      --time-unit U       how to read a Pulsar JSON pattern's times: auto (default), ms or s
      --json              the findings as one JSON object
      --strict            exit 1 when there is any finding
      --quiet             no warnings about the pattern
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [
        .value("--profile", completion: .profiles), .value("--actuator", completion: .files), .value("--rate"),
        .flag("--json"), .flag("--strict"), .flag("--quiet"), .value("--time-unit", completion: .timeUnits),
    ]

    static let command = "pulsar lint"

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: command)
        let input = try args.singleInput(command: command)
        let setup = try RenderSetup(args, command: command)
        let loaded = try setup.load(input)
        let device = try lint(loaded, input: input, setup: setup).device
        let findings = LintRules.check(device)
        if args.flag("--json") {
            print(LintAnalysis.json(findings, device: device, input: input), terminator: "")
        } else {
            for f in findings {
                print("\(input): \(LintRules.format(f.fromMs))–\(LintRules.format(f.toMs)) ms: \(f.rule): \(f.message)")
            }
            if let note = LintRules.bandLimitNote(device) { print("\(input): note: \(note.text)") }
            let rules = Set(findings.map(\.rule)).sorted()
            print("\(input) on \(device.name): \(findings.count) finding\(findings.count == 1 ? "" : "s")" + (rules.isEmpty ? "" : " (\(rules.joined(separator: ", ")))"))
        }
        if args.flag("--strict"), !findings.isEmpty {
            throw CommandFailure(.findings, "\(command): \(findings.count) finding\(findings.count == 1 ? "" : "s") on \(device.name) (--strict)")
        }
    }

    /// `loaded` on the command line's device (`LintAnalysis.lint`); a design the device cannot
    /// render is a usage error.
    static func lint(_ loaded: LoadedPattern, input: String, setup: RenderSetup) throws(CommandFailure) -> LintAnalysis.ActuatorLint {
        do {
            return try LintAnalysis.lint(loaded, input: input, actuator: setup.device, rate: setup.rate)
        } catch {
            throw CommandFailure(.usage, "pulsar: error: \(error)")
        }
    }
}
