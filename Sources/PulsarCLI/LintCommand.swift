import PulsarCommandLine
import PulsarCore

/// `pulsar lint PATTERN [--profile P | --actuator A] [--json] [--strict]`: what a device cannot
/// do with a design, one line each (docs/actuators.md, "Lint").
enum LintCommand {
    static let help = """
    usage: pulsar lint PATTERN [--profile P | --actuator A] [--rate HZ] [--time-unit U] [--json]
                       [--strict] [--quiet]

    Says what a device cannot do with a design: each finding one line with its time, its rule
    and its figure against the bound, then a summary. PATTERN is Pulsar JSON, AHAP or a .haptic
    clip; the device is a profile (--profile, default wideband: the pattern as today's model
    plays it) or an actuator config (--actuator NAME|FILE.acf: the pattern as Meta's renderer
    plays it through the config, a JSON or AHAP pattern as the clip it maps to). Rules:
      transients-merge    a transient starts while the one before still sounds on the device
                          (within its burst): the two are felt as one
      energy-above-1khz   in a 50 ms window, more than -40 dB of the energy above 1 kHz: clicks
      outside-band        in a 50 ms window, more than -10 dB of the energy outside the band
      step                a jump between two samples larger than a full-scale sine at twice
                          the band's top makes: a click
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
    /// The longest design the spectral rules render.
    static let longestSeconds = 600.0

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: command)
        let input = try args.singleInput(command: command)
        let setup = try RenderSetup(args, command: command)
        let loaded = try setup.load(input)
        let device: LintDevice
        if let actuator = args.value("--actuator") {
            device = try acfLint(actuator, loaded: loaded, input: input, setup: setup).device
        } else {
            device = try profileDevice(loaded, setup: setup)
        }
        let findings = LintRules.check(device)
        if args.flag("--json") {
            print(json(findings, device: device, input: input), terminator: "")
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

    /// The design as today's model plays it on `--profile`.
    private static func profileDevice(_ loaded: LoadedPattern, setup: RenderSetup) throws(CommandFailure) -> LintDevice {
        let renderer = try setup.renderer(for: loaded.pattern)
        let frames = min(renderer.frameCount, FrameIndex(longestSeconds * Double(setup.rate.hertz)))
        let p = setup.profile
        return LintDevice(name: p.name, minimumHertz: p.minimumHertz, maximumHertz: p.maximumHertz,
                          transients: loaded.pattern.discretePattern.map { ($0.time, p.transientSeconds(for: $0.frequency) * 1000) },
                          samples: renderer.render(frames: 0..<frames), rate: setup.rate.hertz)
    }

    /// A pattern through an actuator config, as lint and `plot --actuator` see it: the clip the
    /// config's renderer reads, the config, and the device the rules judge.
    struct ACFLint {
        var input: String
        var clip: LofeltClip
        var config: MetaActuatorConfig
        var device: LintDevice
    }

    /// A pattern as Meta's renderer plays it through an actuator config (a `.haptic` clip's raw
    /// values, any other pattern as the clip it maps to).
    static func acfLint(_ actuator: String, loaded: LoadedPattern, input: String, setup: RenderSetup,
                        command: String = command) throws(CommandFailure) -> ACFLint {
        let path = try ActuatorCatalog.path(for: actuator, command: command)
        let config = try ActuatorCatalog.open(path, setup: setup, command: command)
        let clip = ActuatorCatalog.clip(of: loaded, through: config)
        let renderer = MetaHapticRenderer(clip: clip, config: config, sampleRate: setup.rate)
        let frames = min(renderer.frameCount, FrameIndex(longestSeconds * Double(setup.rate.hertz)))
        let bursts = clip.amplitude.compactMap { point in
            point.emphasis.map { (point.time * 1000, config.emphasis.burst(at: $0.frequency).durationMs) }
        }
        var device = LintDevice(name: PathText.stem(path), minimumHertz: config.continuous.frequencyMin, maximumHertz: config.continuous.frequencyMax,
                                transients: bursts, samples: renderer.render(frames: 0..<frames), rate: setup.rate.hertz)
        if let limit = config.emphasis.bandLimitHertz {
            let shapes = (config.emphasis.frequencyMin.shape, config.emphasis.frequencyMax.shape)
            let sums = BurstWaveform.powerSums(shapes)
            let shares = clip.amplitude.compactMap(\.emphasis).map { e in
                BurstWaveform.keptShare(shapes, weights: (1 - e.frequency, e.frequency),
                                        harmonics: BurstWaveform.harmonics(hertz: config.emphasis.burst(at: e.frequency).hertz, limit: limit,
                                                                           rate: Double(setup.rate.hertz)), sums: sums)
            }
            device.bandLimit = (limit, shares)
        }
        return ACFLint(input: input, clip: clip, config: config, device: device)
    }

    private static func json(_ findings: [LintFinding], device: LintDevice, input: String) -> String {
        let list = findings.map { f in
            JSONValue.obj(["fromMs": .num(f.fromMs), "toMs": .num(f.toMs), "rule": .str(f.rule), "message": .str(f.message),
                           "value": .num(f.value), "bound": .num(f.bound)])
        }
        var object: [(key: String, value: JSONValue)] = [("file", .str(input)), ("device", .str(device.name)), ("findings", .arr(list))]
        if let note = LintRules.bandLimitNote(device), let limit = device.bandLimit {
            object.append(("bandLimit", .obj(["hertz": .num(limit.hertz), "bursts": .num(Double(note.bursts)), "leastKeptDB": .num(note.leastDB),
                                              "mostKeptDB": .num(note.mostDB)])))
        }
        return JSONWriter().write(JSONValue(.object(object)))
    }
}
