import PulsarAudio
import PulsarCommandLine
import PulsarCore

/// `pulsar render PATTERN --actuator FILE.acf -o OUT.wav`: a `.haptic` clip as Meta's renderer
/// draws it through an actuator config (docs/actuators.md, "Rendering through a Meta actuator
/// config"), any other pattern as the clip it maps to ("Other formats through an ACF"); the
/// haptic channel alone.
enum ActuatorRender {
    /// Options that shape today's synthesis or a bundle's mix, which an ACF render does not use.
    static let refused = ["--preset", "--profile", "--gain", "--audio-gain", "--no-haptics", "--offset", "--audio-offset",
                          "--duration", "--from", "--to", "--loop", "--reverse", "--strict", "--derive",
                          "--haptics-from-audio"]

    static func run(_ args: Arguments, input: String, actuator: String, setup: RenderSetup, output: String, format: SampleFormat) throws(CommandFailure) {
        let command = RenderCommand.command
        let acf = try ActuatorCatalog.path(for: actuator, command: command)
        guard acf.lowercased().hasSuffix(".acf") else {
            throw CommandFailure(.usage, "\(command): --actuator takes a Meta actuator config file ending in .acf, not '\(MessageText.excerpt(acf))'")
        }
        if let layout = args.value("--layout"), layout != "haptic" {
            throw CommandFailure(.usage, "\(command): --actuator FILE.acf renders the haptic channel: use --layout haptic")
        }
        for option in refused where args.flag(option) || args.value(option) != nil {
            throw CommandFailure(.usage, "\(command): --actuator FILE.acf takes no \(option) (the config is the actuator; the clip plays once, whole)")
        }
        if PresetInput.looksLikeBundle(input) {
            throw CommandFailure(.usage, "\(command): --actuator FILE.acf renders a pattern file (.haptic, .json, .ahap), not a bundle")
        }
        let loaded = try setup.load(input)
        let config = try ActuatorCatalog.open(acf, setup: setup, command: command)
        let clip = ActuatorCatalog.clip(of: loaded, through: config)
        let renderer = MetaHapticRenderer(clip: clip, config: config, sampleRate: setup.rate)
        let container = WAVExporter.Container(forOutput: output, layout: .haptic)
        let report: WAVExporter.Report
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        do {
            report = try WAVExporter(format: format, container: container)
                .export(to: output, sampleRate: setup.rate, frames: renderer.frameCount) { buffer, frame in
                    renderer.render(into: buffer, from: frame)
                }
        } catch {
            throw CommandFailure(error, input: input)
        }
        if !setup.quiet {
            let ms = setup.rate.milliseconds(atFrame: report.frames)
            var line = "wrote \(output): \(report.frames) frames (\(String(printf: "%.3f", ms)) ms) × 1 channel (haptic, through \(PathText.lastComponent(acf))) at \(setup.rate.hertz) Hz, \(container == .wav ? format.rawValue : "Ogg Vorbis"), peak \(String(printf: "%.3f", report.peak))"
            if report.limitedSamples > 0 { line += ", \(report.limitedSamples) samples clipped to ±1" }
            Console.error(line)
        }
    }
}
