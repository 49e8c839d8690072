import PulsarCommandLine
import PulsarCore

/// `pulsar convert IN -o OUT`: between pattern formats, chosen by file extension.
enum ConvertCommand {
    static let help = """
    usage: pulsar convert INPUT -o OUTPUT [--raw] [--time-unit auto|ms|s] [--quiet]
           pulsar convert BUNDLE [--preset ID] -o OUT.ahap [--with-audio]
           pulsar convert X.ahap -o FOLDER/

    Converts a pattern between formats chosen by extension: reads .json (Pulsar, wire or raw),
    .ahap and .haptic; writes .json (Pulsar wire form, or raw line/bar with --raw) and .ahap.
    The output appears only when complete.

    A bundle preset converts to AHAP; with --with-audio its audio is written beside OUT.ahap as
    OUT.wav (16-bit) and the AHAP plays it with an AudioCustom event at the preset's audio offset
    (a negative offset trims the sound's start), so Core Haptics plays sound and touch on one
    timeline. An AHAP converted to a FOLDER/ (a name ending in /, new or empty) becomes a bundle
    folder of one preset, its AudioCustom sound kept as the preset's audio at that event's time
    and volume (`pulsar pack FOLDER` makes it a .pulsar).

    options:
      -o, --output PATH   the file to write (required)
      --raw               write Pulsar's raw line/bar form instead of the wire form
      --preset ID         which preset of a bundle (needed when it has several)
      --with-audio        with a bundle and an .ahap output: the preset's audio too
      --time-unit U       how to read Pulsar JSON times: auto (default), ms or s
      --quiet             no warnings
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files),
        .flag("--raw"),
        .value("--time-unit", completion: .timeUnits),
        .flag("--quiet"),
        .value("--preset", completion: .presets),
        .flag("--with-audio"),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: "pulsar convert")
        let input = try args.singleInput(command: "pulsar convert")
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "pulsar convert: missing -o OUTPUT (see 'pulsar convert --help')")
        }
        if output.hasSuffix("/") {
            guard PatternFormat.forPath(input) == .ahap else {
                throw CommandFailure(.usage, "pulsar convert: a FOLDER/ output is a bundle folder made from an .ahap input")
            }
            try Arguments.refuseOverwriting([output], inputs: [input], command: "pulsar convert")
            // `-o /` is the root folder, not a folder with an empty name.
            let folder = output == "/" ? "/" : String(output.dropLast())
            try AHAPWithAudio.bundleFolder(from: input, to: folder, setup: try RenderSetup(args, command: "pulsar convert"))
            return
        }
        if PresetInput.looksLikeBundle(input) {
            guard PatternFormat.forPath(output) == .ahap || !args.flag("--with-audio") else {
                throw CommandFailure(.usage, "pulsar convert: --with-audio writes an .ahap beside its .wav; give OUT.ahap")
            }
            let setup = try RenderSetup(args, command: "pulsar convert")
            let preset = try PresetInput(input, setup: setup, strict: false).select(args.value("--preset"), command: "pulsar convert")
            try Arguments.refuseOverwriting([output], inputs: [input], command: "pulsar convert")
            if args.flag("--with-audio") {
                try AHAPWithAudio.export(preset, to: output, input: input, quiet: setup.quiet)
                return
            }
            guard let format = PatternFormat.forPath(output), format.isWritable else {
                throw CommandFailure(.usage, "pulsar convert: cannot tell the output format of '\(output)': use .json or .ahap")
            }
            do {
                try PatternWriter.write(preset.pattern, as: format, to: output)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: \(error)")
            }
            if !setup.quiet { Console.error("wrote \(output): \(format.displayName), preset \(preset.id)") }
            return
        }
        if args.flag("--with-audio") || args.value("--preset") != nil {
            throw CommandFailure(.usage, "pulsar convert: --with-audio and --preset take a bundle INPUT")
        }
        guard var format = PatternFormat.forPath(output), format.isWritable else {
            throw CommandFailure(.usage, "pulsar convert: cannot tell the output format of '\(output)': use .json or .ahap")
        }
        if args.flag("--raw") {
            guard format == .pulsarJSON else { throw CommandFailure(.usage, "pulsar convert: --raw needs a .json output") }
            format = .pulsarRaw
        }
        try Arguments.refuseOverwriting([output], inputs: [input], command: "pulsar convert")
        let setup = try RenderSetup(args, command: "pulsar convert")
        let loaded = try setup.load(input)
        do {
            try PatternWriter.write(loaded.pattern, as: format, to: output)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(error)")
        }
        if !setup.quiet {
            Console.error("wrote \(output): \(format.displayName), \(loaded.pattern.pointCount) points")
        }
    }
}
