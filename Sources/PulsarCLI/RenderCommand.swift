import Foundation
import PulsarAudio
import PulsarCore

/// `pulsar render INPUT -o OUT.wav`: the haptic waveform of a pattern as a WAV file.
enum RenderCommand {
    static let help = """
    usage: pulsar render INPUT -o OUT.wav [--rate 48000] [--format float|s16|s24]
                         [--profile wideband|lra[:HZ]|FMIN:FMAX] [--gain G]
                         [--time-unit auto|ms|s] [--quiet]

    Synthesizes the haptic waveform of a pattern (docs/signal-model.md) into a mono WAV file.
    INPUT is Pulsar JSON (.json, wire or raw form), AHAP (.ahap) or Lofelt (.haptic). The file
    appears only when complete; on any error nothing is left behind.

    options:
      -o, --output PATH   the WAV file to write (required)
      --rate HZ           sample rate, 8000...192000 (default 48000)
      --format F          float (32-bit, default), s16 or s24
      --profile P         actuator band: wideband (60-300 Hz, default), lra (170 Hz +-10%),
                          lra:HZ, or FMIN:FMAX in Hz
      --gain G            linear gain before the limiter, (0, 16] (default 1)
      --time-unit U       how to read Pulsar JSON times: auto (default), ms or s
      --quiet             no warnings, no progress bar
      -h, --help          this help
    """

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: [
            .init(names: ["--output", "-o"], takesValue: true),
            .init(names: ["--rate"], takesValue: true),
            .init(names: ["--format"], takesValue: true),
            .init(names: ["--profile"], takesValue: true),
            .init(names: ["--gain"], takesValue: true),
            .init(names: ["--time-unit"], takesValue: true),
            .init(names: ["--quiet"], takesValue: false),
        ], command: "pulsar render")
        let input = try args.singleInput(command: "pulsar render")
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "pulsar render: missing -o OUT.wav (see 'pulsar render --help')")
        }
        let format = try args.choice("--format", default: SampleFormat.float, command: "pulsar render")
        let setup = try RenderSetup(args, command: "pulsar render")
        let loaded = try setup.load(input)
        let renderer = try setup.renderer(for: loaded.pattern)

        // A bar only when it is worth watching: more than ten minutes of audio.
        var bar = ProgressBar(label: "rendering", enabled: !setup.quiet && Console.stderrIsTerminal
                              && renderer.frameCount > FrameIndex(setup.rate.hertz) * 600)
        let report: WAVExporter.Report
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        do {
            report = try WAVExporter(format: format).export(renderer, to: output) { bar.update($0) }
        } catch {
            bar.finish()
            throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
        }
        bar.finish()
        if !setup.quiet {
            let ms = setup.rate.milliseconds(atFrame: report.frames)
            var line = "wrote \(output): \(report.frames) frames (\(String(format: "%.3f", ms)) ms) at \(setup.rate.hertz) Hz, \(format.rawValue), peak \(String(format: "%.3f", report.peak))"
            if report.limitedSamples > 0 { line += ", \(report.limitedSamples) samples limited" }
            Console.error(line)
        }
    }
}
