import PulsarCommandLine
import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine

/// `pulsar render --replay LOG -o OUT.wav`: the device stream of a logged play, rebuilt from the
/// log's header (input and mix settings) and its transport events.
enum ReplayRender {
    static func run(log path: String, output: String, format: SampleFormat, quiet: Bool) throws(CommandFailure) {
        let command = "pulsar render"
        let data: [UInt8]
        do {
            data = try InputFile.read(path, limit: EngineLog.maximumSize)
        } catch {
            throw CommandFailure(error.reason.isTooLarge ? .dataError : .noInput, "pulsar: error: \(error)")
        }
        let parsed: EngineLog.Parsed
        do {
            parsed = try EngineLog.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw CommandFailure(.dataError, "pulsar: error: \(path):\(error.line): \(error.message)")
        }
        let h = parsed.header
        guard let rate = SampleRate(h.sampleRate), let layout = ChannelLayout(parsing: h.layout),
              let profile = ActuatorProfile(parsing: h.profile) else {
            throw CommandFailure(.dataError, "pulsar: error: \(path):1: the header's rate, layout or profile is not usable")
        }
        let replay = Replay(events: parsed.events)
        guard replay.eventsLost == 0 else {
            throw CommandFailure(.dataError, "pulsar: error: \(path): the player dropped \(replay.eventsLost) events while it played; the log cannot be replayed exactly [events-lost]")
        }
        // Every voice rebuilt from what it plays: its input opened once, its mixer from the
        // header's rate, layout and profile and the voice's own settings.
        let setup = try RenderSetup(try Arguments([], options: [], command: command), command: command)
        var inputs: [String: PresetInput] = [:]
        var renderers: [TransportRenderer] = []
        for voice in replay.voices.isEmpty ? [Replay.Voice(slot: 0, id: 0)] : replay.voices {
            let d = parsed.description(ofVoice: voice.id)
            let input: PresetInput
            if let opened = inputs[d.input] {
                input = opened
            } else {
                input = try PresetInput(d.input, setup: setup, strict: false)
                inputs[d.input] = input
            }
            let preset = try input.select(d.preset, command: command)
            var settings = MixSettings(sampleRate: rate, layout: layout, profile: profile, audioOffset: d.audioOffset)
            settings.preloadAudio = true
            var range = PlaybackRange(duration: d.duration)
            d.mix.apply(to: &settings, &range)
            do {
                renderers.append(try voice.renderer(base: try PresetMixer(preset: preset, settings: settings, range: range)))
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(path): the logged settings of a voice do not build a mixer: \(error)")
            }
        }
        guard parsed.playedFrames <= FrameIndex(rate.hertz) * 86_400 else {
            throw CommandFailure(.dataError, "pulsar: error: \(path): \"playedFrames\" \(parsed.playedFrames) is beyond 24 h at \(rate) [too-long]")
        }
        let channels = layout.channelCount
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        // Block by block: memory stays one block however long the play was.
        var cursor = Replay.Cursor()
        do {
            let container = WAVExporter.Container(forOutput: output, layout: layout)
            _ = try WAVExporter(format: format, container: container).export(to: output, sampleRate: rate, channels: channels,
                                                       frames: parsed.playedFrames) { block, _ throws(AudioFileError) in
                try replay.render(into: block, cursor: &cursor, renderers: renderers)
                return 0
            }
        } catch {
            throw CommandFailure(error, input: parsed.description(ofVoice: 0).input)
        }
        if !quiet {
            Console.error("wrote \(output): \(parsed.playedFrames) frames × \(channels) channels replayed from \(path)")
        }
    }
}
