import PulsarCommandLine
import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine

/// `pulsar render --replay LOG -o OUT.wav`: the device stream of a logged play, rebuilt from the
/// log's header (input and mix settings) and its transport events.
enum ReplayRender {
    /// Which device of a two-device play to rebuild.
    enum Device: String { case main, haptic }

    static func run(log path: String, output: String, format: SampleFormat, quiet: Bool, device: Device = .main) throws(CommandFailure) {
        let (parsed, replay, mix) = try read(path)
        let renderers = try Self.renderers(of: replay, parsed: parsed, mix: mix, path: path)
        guard parsed.playedFrames <= FrameIndex(mix.rate.hertz) * 86_400 else {
            throw CommandFailure(.dataError, "pulsar: error: \(path): \"playedFrames\" \(parsed.playedFrames) is beyond 24 h at \(mix.rate) [too-long]")
        }
        let stream = try Self.stream(of: device, parsed: parsed, layout: mix.layout, path: path)
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        try write(stream, of: device, replay: replay, renderers: renderers, parsed: parsed, mixChannels: mix.layout.channelCount,
                  to: output, format: format, quiet: quiet)
        if !quiet {
            Console.error("wrote \(output): \(stream.frames) frames × \(stream.layout.channelCount) channels of the \(device == .haptic ? "haptic" : "main") device replayed from \(path)")
        }
    }

    /// The log at `path` read and parsed, its events gathered for replay, and the header's rate,
    /// layout and profile.
    private static func read(_ path: String) throws(CommandFailure)
        -> (EngineLog.Parsed, Replay, (rate: SampleRate, layout: ChannelLayout, profile: ActuatorProfile)) {
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
        return (parsed, replay, (rate, layout, profile))
    }

    /// Every voice rebuilt from what it plays: its input opened once, its mixer from the header's
    /// rate, layout and profile and the voice's own settings.
    private static func renderers(of replay: Replay, parsed: EngineLog.Parsed, mix: (rate: SampleRate, layout: ChannelLayout, profile: ActuatorProfile),
                                  path: String) throws(CommandFailure) -> [TransportRenderer] {
        let command = "pulsar render"
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
            let preset: PresetHandle
            do {
                preset = try input.select(d.preset, command: command, derive: parsed.header.derivesHaptics, profile: mix.profile, quiet: true)
            } catch where error.code == .usage {
                // The log's data, not the command line, names the preset: a data error.
                throw CommandFailure(.dataError, "pulsar: error: \(path): a logged voice plays preset '\(MessageText.excerpt(d.preset ?? "", limit: 200))', which \(MessageText.excerpt(d.input, limit: 200)) does not have")
            }
            var settings = MixSettings(sampleRate: mix.rate, layout: mix.layout, profile: mix.profile, audioOffset: d.audioOffset)
            settings.preloadAudio = true
            var range = PlaybackRange(duration: d.duration)
            d.mix.apply(to: &settings, &range)
            do {
                renderers.append(try voice.renderer(base: try PresetMixer(preset: preset, settings: settings, range: range)))
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(path): the logged settings of a voice do not build a mixer: \(error)")
            }
        }
        return renderers
    }

    /// Writes `stream` block by block (memory stays one block however long the play was), with a
    /// bar on a terminal when the stream is over ten minutes (a day-long log takes minutes and
    /// many gigabytes: README, "render --replay").
    private static func write(_ stream: (layout: ChannelLayout, rate: SampleRate, frames: FrameIndex), of device: Device, replay: Replay,
                              renderers: [TransportRenderer], parsed: EngineLog.Parsed, mixChannels: Int,
                              to output: String, format: SampleFormat, quiet: Bool) throws(CommandFailure) {
        var cursor = Replay.Cursor()
        let lostFrames = replay.lost.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
        var hapticCursor = Replay.HapticDeviceCursor(streamFrames: parsed.playedFrames + lostFrames + StreamRing.defaultCapacity)
        var mixBlock: [Float] = []
        var bar = ProgressBar(label: "replaying", enabled: !quiet && Console.stderrIsTerminal && stream.frames > FrameIndex(stream.rate.hertz) * 600)
        do {
            let container = WAVExporter.Container(forOutput: output, layout: stream.layout)
            _ = try WAVExporter(format: format, container: container).export(to: output, sampleRate: stream.rate, channels: stream.layout.channelCount,
                                                       frames: stream.frames, progress: { bar.update($0) }) { block, _ throws(AudioFileError) in
                switch (device, parsed.header.hapticDevice) {
                case (.haptic, _):
                    try replay.renderHapticDevice(into: block, layout: stream.layout, cursor: &hapticCursor, renderers: renderers)
                case (.main, nil):
                    try replay.render(into: block, cursor: &cursor, renderers: renderers)
                case (.main, _?):
                    // The main device of two took the mix less its last channel.
                    let frames = block.count / stream.layout.channelCount
                    if mixBlock.count != frames * mixChannels { mixBlock = [Float](repeating: 0, count: frames * mixChannels) }
                    try mixBlock.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
                        try replay.render(into: b, cursor: &cursor, renderers: renderers)
                    }
                    let keep = stream.layout.channelCount
                    for f in 0..<frames { for c in 0..<keep { block[f * keep + c] = mixBlock[f * mixChannels + c] } }
                }
                return 0
            }
        } catch {
            bar.finish()
            throw CommandFailure(error, input: parsed.description(ofVoice: 0).input)
        }
        bar.finish()
    }

    /// The layout, rate and length of the stream `device` played: the mix's for one device; the
    /// mix less its last channel for the main device of two; the haptic device's own.
    private static func stream(of device: Device, parsed: EngineLog.Parsed, layout: ChannelLayout,
                               path: String) throws(CommandFailure) -> (layout: ChannelLayout, rate: SampleRate, frames: FrameIndex) {
        let rate = SampleRate(parsed.header.sampleRate)!
        guard let h = parsed.header.hapticDevice else {
            guard device == .main else {
                throw CommandFailure(.dataError, "pulsar: error: \(path):1: the log is of one device; --replay-device haptic needs a play with --haptic-device [no-haptic-device]")
            }
            return (layout, rate, parsed.playedFrames)
        }
        guard layout.channelCount >= 2, let hLayout = ChannelLayout(parsing: h.layout), let hRate = SampleRate(h.sampleRate),
              h.playedFrames <= FrameIndex(hRate.hertz) * 86_400 else {
            throw CommandFailure(.dataError, "pulsar: error: \(path):1: the header's haptic device (layout, rate or length) is not usable")
        }
        switch device {
        case .haptic: return (hLayout, hRate, h.playedFrames)
        case .main: return (ChannelLayout(name: layout.name, channels: Array(layout.channels.dropLast())), rate, parsed.playedFrames)
        }
    }
}
