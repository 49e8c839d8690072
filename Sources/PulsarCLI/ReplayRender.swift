import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSession

/// `pulsar render --replay LOG -o OUT.wav`: the device stream of a logged play, rebuilt by the
/// session layer (`SessionReplay`) from the log's header and its transport events, written as a
/// file.
enum ReplayRender {
    static func run(log path: String, output: String, format: SampleFormat, quiet: Bool, device: SessionReplay.Device = .main,
                    budget: OutputBudget = OutputBudget(bytes: OutputBudget.defaultBytes)) throws(CommandFailure) {
        if let head = try? InputFile.head(path, count: 4096), FollowLog.isFollowLog(String(decoding: head, as: UTF8.self)) {
            let text: [UInt8]
            do { text = try InputFile.read(path, limit: FollowLog.sizeLimit) } catch { throw CommandFailure(.noInput, "pulsar: error: \(error)") }
            return try FollowReplay.run(log: path, text: String(decoding: text, as: UTF8.self), output: output, format: format, quiet: quiet,
                                        budget: budget)
        }
        let session = try read(path)
        var reader: SessionReplay.Reader
        do throws(SessionError) {
            reader = try session.reader(of: device)
        } catch {
            throw error.failure("pulsar render", option: "--replay")
        }
        let stream = reader.stream
        try RenderCommand.checkBudget(budget, frames: stream.frames, channels: stream.layout.channelCount, rate: stream.rate, format: format, output: output)
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        // A bar on a terminal when the stream is over ten minutes (a day-long log takes minutes
        // and many gigabytes: README, "render --replay").
        var bar = ProgressBar(label: "replaying", enabled: !quiet && Console.stderrIsTerminal && stream.frames > FrameIndex(stream.rate.hertz) * 600)
        do {
            let container = WAVExporter.Container(forOutput: output, layout: stream.layout)
            _ = try WAVExporter(format: format, container: container).export(to: output, sampleRate: stream.rate, channels: stream.layout.channelCount,
                                                                             frames: stream.frames, progress: { bar.update($0) }) { block, _ throws(AudioFileError) in
                try reader.render(into: block)
                return 0
            }
        } catch {
            bar.finish()
            throw CommandFailure(error, input: session.parsed.description(ofVoice: 0).input)
        }
        bar.finish()
        if !quiet {
            Console.error("wrote \(output): \(stream.frames) frames × \(stream.layout.channelCount) channels of the \(device == .haptic ? "haptic" : "main") device replayed from \(path)")
        }
    }

    /// The log at `path` read and rebuilt by the session layer, each logged input opened once as
    /// `render` opens an INPUT (its warnings printed).
    private static func read(_ path: String) throws(CommandFailure) -> SessionReplay {
        var warnings: [ContentWarning] = []
        defer { WarningPrinter.print(warnings) }
        do {
            return try SessionReplay.read(logAt: path, warnings: &warnings)
        } catch {
            throw error.kind == .missing || error.kind == .data ? error.failure : error.failure("pulsar render", option: "--replay")
        }
    }
}
