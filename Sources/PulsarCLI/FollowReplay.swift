import Glibc
import PulsarAudio
import PulsarCommandLine
import PulsarCore
import PulsarSession

/// `pulsar render --replay LOG -o OUT.wav` for a `pulsar follow` log: its input WAV (beside it)
/// through a fresh follower, laid out as the run's device stream (`FollowLog.replay`).
enum FollowReplay {
    static func run(log path: String, text: String, output: String, format: SampleFormat, quiet: Bool,
                    budget: OutputBudget) throws(CommandFailure) {
        let command = "pulsar render"
        let log: FollowLog
        do { log = try FollowLog(text: text) } catch {
            guard error.kind == .data else { throw error.failure(command, option: "--replay") }
            throw CommandFailure(.dataError, "pulsar: error: \(MessageText.excerpt(path)): \(error.description)")
        }
        try RenderCommand.checkBudget(budget, frames: FrameIndex(log.frames), channels: log.layout.channelCount, rate: SampleRate(log.sampleRate)!,
                                      format: format, output: output)
        let inputPath = PathText.sibling(of: path, named: log.input)
        let input: AudioFileContents
        do {
            input = try AudioFileContents(contentsOf: inputPath)
        } catch {
            throw CommandFailure(.noInput, "pulsar: error: \(MessageText.excerpt(inputPath)): the follow log's input: \(error)")
        }
        guard input.channels == log.channels, input.sampleRate == log.sampleRate else {
            throw CommandFailure(.dataError, "pulsar: error: \(MessageText.excerpt(inputPath)): \(input.channels) channels at \(input.sampleRate) Hz, the log says \(log.channels) at \(log.sampleRate)")
        }
        let stream: [Float]
        do { stream = try log.replay(input: input.samples) } catch { throw error.failure(command, option: "--replay") }
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        do {
            _ = try WAVExporter(format: format, container: WAVExporter.Container(forOutput: output, layout: log.layout))
                .export(stream, to: output, sampleRate: SampleRate(log.sampleRate)!, channels: log.layout.channelCount)
        } catch {
            throw CommandFailure(.ioError, "pulsar: error: \(output): \(error)")
        }
        if !quiet {
            Console.error("wrote \(output): \(log.frames) frames × \(log.layout.channelCount) channels followed from \(log.input), replayed from \(path)")
        }
    }
}
