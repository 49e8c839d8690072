import PulsarCommandLine
import PulsarCore

/// `pulsar convert IN -o OUT`: between pattern formats, chosen by file extension.
enum ConvertCommand {
    static let help = """
    usage: pulsar convert INPUT -o OUTPUT [--raw] [--time-unit auto|ms|s] [--quiet]

    Converts a pattern between formats chosen by extension: reads .json (Pulsar, wire or raw),
    .ahap and .haptic; writes .json (Pulsar wire form, or raw line/bar with --raw) and .ahap.
    The output appears only when complete.

    options:
      -o, --output PATH   the file to write (required)
      --raw               write Pulsar's raw line/bar form instead of the wire form
      --time-unit U       how to read Pulsar JSON times: auto (default), ms or s
      --quiet             no warnings
      -h, --help          this help
    """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: [
            .init(names: ["--output", "-o"], takesValue: true),
            .init(names: ["--raw"], takesValue: false),
            .init(names: ["--time-unit"], takesValue: true),
            .init(names: ["--quiet"], takesValue: false),
        ], command: "pulsar convert")
        let input = try args.singleInput(command: "pulsar convert")
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "pulsar convert: missing -o OUTPUT (see 'pulsar convert --help')")
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
