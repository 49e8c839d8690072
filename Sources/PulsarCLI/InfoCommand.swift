import PulsarCommandLine
import Glibc
import PulsarCore
import PulsarSession

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
        let description = PatternDescription(path: input, loaded: loaded, frames: renderer.frameCount, rate: setup.rate, profile: setup.profile)
        if args.flag("--json") {
            Console.out(JSONWriter().write(description.json), terminator: "")
            return
        }
        for line in description.lines { Console.out(line) }
        WarningPrinter.print(loaded.warnings, prefix: "  - ", to: { Console.out($0) })
    }
}
