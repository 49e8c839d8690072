import PulsarCommandLine
import PulsarAudio
import PulsarCore
import PulsarDerive
import PulsarSession

/// An audio file as the INPUT of `pulsar info` and `pulsar render`: what `AudioFileDescription`
/// and `AudioFileRender` find, printed, their failures mapped to exit codes.
enum AudioFileInput {

    /// One warning when the file's `ANDROID_HAPTIC` comment is not read as written.
    private static func warnAboutHapticComment(_ path: String, _ why: String) {
        Console.error("pulsar: warning: \(MessageText.oneLine(path)): \(why) [android-haptic]")
    }

    /// Whether INPUT is read as audio (`ContentInput.audioExtensions`).
    static func isAudio(_ path: String) -> Bool { ContentInput.isAudio(input: path) }

    /// `pulsar info FILE.ogg`: the format, the length and Android's haptic channels.
    static func info(_ path: String, json: Bool) throws(CommandFailure) {
        let file: AudioFileDescription
        do throws(AudioInputError) { file = try AudioFileDescription(path: path) } catch { throw CommandFailure(error, input: path) }
        if let why = file.hapticCommentWarning { warnAboutHapticComment(path, why) }
        if json {
            Console.out(JSONWriter().write(file.json), terminator: "")
            return
        }
        let format = file.format
        Console.out("\(path): audio, \(format.container), \(format.encoding), \(format.sampleRate) Hz, \(format.channels) channels, \(String(printf: "%.3f", file.durationMs)) ms (\(format.frames) frames)")
        if let haptic = file.androidHapticChannels {
            let audio = format.channels - haptic
            Console.out("  haptic channels: \(haptic) (ANDROID_HAPTIC=\(haptic)): channel\(haptic == 1 ? "" : "s") \(haptic == 1 ? "\(format.channels)" : "\(audio + 1)–\(format.channels)") \(haptic == 1 ? "vibrates" : "vibrate"); \(audio == 1 ? "channel 1 is" : "channels 1–\(audio) are") audio")
        } else {
            Console.out("  haptic channels: none (no ANDROID_HAPTIC comment)")
        }
    }

    /// `pulsar render FILE.ogg --layout L -o OUT`: `AudioFileRender` at `rate`, within `budget`;
    /// with `generated` (`--haptics-from-audio android`) H is Android's HapticGenerator.
    static func render(_ path: String, layout: ChannelLayout, rate: SampleRate, output: String, format: SampleFormat,
                       quiet: Bool, generated: Bool = false, budget: OutputBudget) throws(CommandFailure) {
        let render: AudioFileRender
        do throws(AudioFileRender.Failure) {
            render = try AudioFileRender(path: path, layout: layout, rate: rate, generated: generated) { why in
                if !quiet { warnAboutHapticComment(path, why) }
            }
        } catch {
            switch error {
            case .input(let e): throw CommandFailure(e, input: path)
            case .generator(let e): throw CommandFailure(e)
            }
        }
        let channels = layout.channelCount
        try RenderCommand.checkBudget(budget, frames: render.frames, channels: channels, rate: rate, format: format, output: output)
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        let report: WAVExporter.Report
        do {
            report = try render.export(to: output, format: format)
        } catch {
            throw CommandFailure(error, input: path)
        }
        if !quiet {
            let from = switch render.hapticSource {
            case .androidChannels: ", H from its ANDROID_HAPTIC channels"
            case .generator: ", H from Android's HapticGenerator"
            case .none: ""
            }
            Console.error("wrote \(output): \(report.frames) frames × \(channels) channels (\(layout.name)) of \(path) at \(rate.hertz) Hz\(from)")
        }
    }
}

extension CommandFailure {
    /// An audio INPUT that would not open is missing (66); one that does not decode, or has no
    /// haptic channels for the layout's H, is data (65).
    init(_ error: AudioInputError, input: String) {
        switch error {
        case .unreadable(let path, let why): self.init(.noInput, "pulsar: error: \(MessageText.oneLine(path)): \(why)")
        case .audio(let e): self.init(e, input: input)
        case .noHapticChannels(let path, let layout):
            self.init(.dataError, "pulsar: error: \(MessageText.oneLine(path)): \(AudioInputError.noHapticChannelsText(layout: layout))")
        }
    }
}
