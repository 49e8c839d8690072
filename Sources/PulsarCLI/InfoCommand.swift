import PulsarCommandLine
import Glibc
import PulsarCore

/// `pulsar info INPUT [--json]`: what a pattern file or a bundle holds.
enum InfoCommand {
    static let help = """
    usage: pulsar info INPUT [--json] [--strict] [--rate HZ] [--profile P] [--time-unit auto|ms|s]

    For a pattern file (Pulsar JSON, wire or raw form; AHAP; Lofelt .haptic): its format, duration,
    point counts, value ranges and the warnings raised while reading it. For a bundle (.pulsar or
    an unpacked folder): its manifest and, per preset, the duration (and which rule set it), the
    pattern, the audio format and the animation timing. For an audio file (.ogg, .wav, .flac,
    .mp3, …): its format, length and, for Android haptic-coupled audio (ANDROID_HAPTIC=N), which
    channels vibrate.

    options:
      --json              machine-readable output
      --strict            check a bundle's manifest hash
      --rate HZ           sample rate for the rendered length (default 48000)
      --profile P         actuator profile for the rendered length (default wideband)
      --time-unit U       how to read Pulsar JSON times: auto (default), ms or s
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [
        .flag("--json"),
        .value("--rate"),
        .value("--profile", completion: .profiles),
        .value("--time-unit", completion: .timeUnits),
        .flag("--strict"),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: "pulsar info")
        let input = try args.singleInput(command: "pulsar info")
        let setup = try RenderSetup(args, command: "pulsar info")
        if PresetInput.looksLikeBundle(input) {
            try BundleInfo.run(input, args: args, setup: setup)
            return
        }
        if AudioFileInput.isAudio(input) {
            try AudioFileInput.info(input, json: args.flag("--json"))
            return
        }
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
        func short(_ v: Double) -> String { String(printf: "%.6g", v) }
        func show(_ r: ClosedRange<Double>?) -> String {
            guard let r else { return "–" }
            return "\(short(r.lowerBound)) … \(short(r.upperBound))"
        }
        Console.out("file:        \(input)")
        Console.out("format:      \(loaded.format.displayName)\(loaded.scaledFromSeconds ? " (times read as seconds)" : "")")
        Console.out("duration:    \(short(summary.lastPointTime)) ms (continuous part \(short(summary.continuousEnd)) ms)")
        Console.out("rendered:    \(renderer.frameCount) frames = \(String(printf: "%.3f", renderedMs)) ms at \(setup.rate.hertz) Hz, profile \(setup.profile)")
        Console.out("amplitude:   \(summary.amplitudePoints) points, values \(show(summary.amplitudeRange))")
        Console.out("frequency:   \(summary.frequencyPoints) points, values \(show(summary.frequencyRange))")
        Console.out("transients:  \(summary.transients), amplitude \(show(summary.transientAmplitudeRange)), frequency \(show(summary.transientFrequencyRange))")
        Console.out("warnings:    \(loaded.warnings.count)")
        WarningPrinter.print(loaded.warnings, prefix: "  - ", to: { Console.out($0) })
    }
}
