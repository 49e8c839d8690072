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
    /// The longest design the spectral rules render.
    static let longestSeconds = 600.0

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: command)
        let input = try args.singleInput(command: command)
        let setup = try RenderSetup(args, command: command)
        let loaded = try setup.load(input)
        let device = try lint(loaded, input: input, setup: setup).device
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

    /// A design on a device, as lint and `plot --actuator` see it: what the device's renderer
    /// reads (as a clip: its curves' points and its transients), the band, and the device the
    /// rules judge.
    struct ActuatorLint {
        var input: String
        var actuator: Actuator
        /// The curves' points (ms, value 0…1) and the transients as the renderer reads them.
        var amplitude: [(ms: Double, value: Double)]
        var frequency: [(ms: Double, value: Double)]
        var transients: [(ms: Double, amplitude: Double, frequency: Double)]
        var device: LintDevice

        /// The carrier's frequency in Hz at a frequency value, and a transient's.
        func carrierHertz(_ f: Double) -> Double {
            actuator.burstConfig.map { $0.continuous.hertz(at: f) } ?? actuator.profile.hertz(for: f)
        }

        func transientHertz(_ f: Double) -> Double {
            actuator.burstConfig.map { $0.emphasis.burst(at: f).hertz } ?? actuator.profile.hertz(for: f)
        }

        /// The highest frequency the device is driven at, Hz.
        var highestHertz: Double { actuator.burstConfig?.highestHertz ?? actuator.profile.maximumHertz }
    }

    /// `loaded` on `setup`'s device (`--actuator`, else `--profile`), rendered at `setup.rate`
    /// (at most the first `longestSeconds`).
    static func lint(_ loaded: LoadedPattern, input: String, setup: RenderSetup) throws(CommandFailure) -> ActuatorLint {
        let actuator = setup.device
        let limit = FrameIndex(longestSeconds * Double(setup.rate.hertz))
        if let config = actuator.burstConfig {
            let clip = actuator.clip(of: loaded, through: config)
            let renderer = MetaHapticRenderer(clip: clip, config: config, sampleRate: setup.rate)
            let bursts = clip.amplitude.compactMap { point in
                point.emphasis.map { e in
                    let burst = config.emphasis.burst(at: e.frequency)
                    return (point.time * 1000, burst.durationMs, burst.hertz)
                }
            }
            var device = LintDevice(name: actuator.name, minimumHertz: config.continuous.frequencyMin, maximumHertz: config.continuous.frequencyMax,
                                    transients: bursts, samples: renderer.render(frames: 0..<min(renderer.frameCount, limit)), rate: setup.rate.hertz)
            device.bandLimit = bandLimit(config, clip: clip, rate: setup.rate)
            device.limits = actuator.limits
            // Meta's renderer: the first point at once, ramps between points, then 0 at once.
            let points = clip.amplitude.map { (ms: $0.time * 1000, value: $0.amplitude) }
            device.amplitude = points.isEmpty ? [] : [(points[0].ms, 0)] + points + [(points[points.count - 1].ms, 0)]
            device.shortestMoveMs = 1000 / Double(setup.rate.hertz)
            return ActuatorLint(input: input, actuator: actuator, amplitude: points,
                                frequency: clip.frequency.map { ($0.time * 1000, $0.frequency) },
                                transients: clip.amplitude.compactMap { p in p.emphasis.map { (p.time * 1000, $0.amplitude, $0.frequency) } },
                                device: device)
        }
        let pattern = actuator.pattern(of: loaded)
        let renderer = try setup.renderer(for: pattern)
        let p = setup.profile
        var device = LintDevice(name: actuator.name, minimumHertz: p.minimumHertz, maximumHertz: p.maximumHertz,
                                transients: pattern.discretePattern.map { ($0.time, p.transientSeconds(for: $0.frequency) * 1000, p.hertz(for: $0.frequency)) },
                                samples: renderer.render(frames: 0..<min(renderer.frameCount, limit)), rate: setup.rate.hertz)
        device.limits = actuator.limits
        device.amplitude = envelopeCurve(pattern)
        device.shortestMoveMs = PatternRenderer.smoothingMilliseconds
        let curve = pattern.continuousPattern
        return ActuatorLint(input: input, actuator: actuator, amplitude: curve.amplitude.map { ($0.time, $0.value) },
                            frequency: curve.frequency.map { ($0.time, $0.value) },
                            transients: pattern.discretePattern.map { ($0.time, $0.amplitude, $0.frequency) }, device: device)
    }

    /// The signal model's amplitude curve with its silent ends (§4: the first value held from 0,
    /// the last to `T_end`, 0 outside).
    static func envelopeCurve(_ pattern: PatternData) -> [(ms: Double, value: Double)] {
        let amplitude = pattern.continuousPattern.amplitude
        guard let first = amplitude.first, let last = amplitude.last else { return [] }
        let end = max(last.time, pattern.continuousPattern.frequency.last?.time ?? 0)
        guard end > 0 else { return [] }
        var curve: [(ms: Double, value: Double)] = [(0, 0), (0, first.value)]
        curve += amplitude.filter { $0.time > 0 && $0.time < end }.map { ($0.time, $0.value) }
        return curve + [(end, last.value), (end, 0)]
    }

    /// A config's band limit and the share of each burst's power it keeps.
    private static func bandLimit(_ config: MetaActuatorConfig, clip: LofeltClip, rate: SampleRate) -> (hertz: Double, keptShares: [Double])? {
        guard let limit = config.emphasis.bandLimitHertz else { return nil }
        let shapes = (config.emphasis.frequencyMin.shape, config.emphasis.frequencyMax.shape)
        let sums = BurstWaveform.powerSums(shapes)
        let shares = clip.amplitude.compactMap(\.emphasis).map { e in
            BurstWaveform.keptShare(shapes, weights: (1 - e.frequency, e.frequency),
                                    harmonics: BurstWaveform.harmonics(hertz: config.emphasis.burst(at: e.frequency).hertz, limit: limit,
                                                                       rate: Double(rate.hertz)), sums: sums)
        }
        return (limit, shares)
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
