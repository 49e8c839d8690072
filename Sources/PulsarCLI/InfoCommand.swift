import PulsarCore

/// `pulsar info INPUT [--json]`: what a pattern file holds.
enum InfoCommand {
    static let help = """
    usage: pulsar info INPUT [--json] [--rate HZ] [--profile P] [--time-unit auto|ms|s]

    Prints a pattern's format, duration, point counts, value ranges and the warnings raised while
    reading it. INPUT is Pulsar JSON (.json, wire or raw form), AHAP (.ahap) or Lofelt (.haptic).

    options:
      --json              machine-readable output
      --rate HZ           sample rate for the rendered length (default 48000)
      --profile P         actuator profile for the rendered length (default wideband)
      --time-unit U       how to read Pulsar JSON times: auto (default), ms or s
      -h, --help          this help
    """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: [
            .init(names: ["--json"], takesValue: false),
            .init(names: ["--rate"], takesValue: true),
            .init(names: ["--profile"], takesValue: true),
            .init(names: ["--time-unit"], takesValue: true),
        ], command: "pulsar info")
        let input = try args.singleInput(command: "pulsar info")
        let setup = try RenderSetup(args, command: "pulsar info")
        let loaded = try setup.load(input)
        let renderer = try setup.renderer(for: loaded.pattern)
        let summary = PatternSummary(loaded.pattern)
        let renderedMs = setup.rate.milliseconds(atFrame: renderer.frameCount)

        if args.flag("--json") {
            func range(_ r: ClosedRange<Double>?) -> JSONValue {
                guard let r else { return JSONValue(.null) }
                return .arr([.num(r.lowerBound), .num(r.upperBound)])
            }
            let doc: JSONValue = .obj([
                "file": .str(input),
                "format": .str(loaded.format.rawValue),
                "durationMs": .num(summary.lastPointTime),
                "continuousEndMs": .num(summary.continuousEnd),
                "renderedMs": .num(renderedMs),
                "renderedFrames": .num(Double(renderer.frameCount)),
                "sampleRate": .num(Double(setup.rate.hertz)),
                "profile": .str(setup.profile.name),
                "amplitudePoints": .num(Double(summary.amplitudePoints)),
                "frequencyPoints": .num(Double(summary.frequencyPoints)),
                "transients": .num(Double(summary.transients)),
                "amplitudeRange": range(summary.amplitudeRange),
                "frequencyRange": range(summary.frequencyRange),
                "transientAmplitudeRange": range(summary.transientAmplitudeRange),
                "transientFrequencyRange": range(summary.transientFrequencyRange),
                "scaledFromSeconds": JSONValue(.bool(loaded.scaledFromSeconds)),
                "warnings": .arr(loaded.warnings.map { .str($0.description) }),
            ])
            Console.out(JSONWriter().write(doc), terminator: "")
            return
        }
        func show(_ r: ClosedRange<Double>?) -> String {
            guard let r else { return "–" }
            return "\(JSONWriter.format(r.lowerBound)) … \(JSONWriter.format(r.upperBound))"
        }
        Console.out("file:        \(input)")
        Console.out("format:      \(loaded.format.displayName)\(loaded.scaledFromSeconds ? " (times read as seconds)" : "")")
        Console.out("duration:    \(JSONWriter.format(summary.lastPointTime)) ms (continuous part \(JSONWriter.format(summary.continuousEnd)) ms)")
        Console.out("rendered:    \(renderer.frameCount) frames = \(String(format3: renderedMs)) ms at \(setup.rate.hertz) Hz, profile \(setup.profile)")
        Console.out("amplitude:   \(summary.amplitudePoints) points, values \(show(summary.amplitudeRange))")
        Console.out("frequency:   \(summary.frequencyPoints) points, values \(show(summary.frequencyRange))")
        Console.out("transients:  \(summary.transients), amplitude \(show(summary.transientAmplitudeRange)), frequency \(show(summary.transientFrequencyRange))")
        Console.out("warnings:    \(loaded.warnings.count)")
        for w in loaded.warnings { Console.out("  - \(w)") }
    }
}

extension String {
    /// A number with three decimals, without Foundation's locale handling.
    init(format3 value: Double) {
        let scaled = (value * 1000).rounded()
        let whole = Int64(scaled / 1000)
        var frac = String(Int64(abs(scaled.truncatingRemainder(dividingBy: 1000))))
        while frac.count < 3 { frac = "0" + frac }
        self = "\(value < 0 && whole == 0 ? "-" : "")\(whole).\(frac)"
    }
}
