import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine

/// A session rebuilt from its event log (`SessionLog`, `pulsar play --log`, the C API's
/// `log_path`): every logged voice's mixer built again from the header's rate, layout and
/// profile and the voice's own settings, and the stream either device played, rendered block by
/// block through the same `TransportRenderer` and `VoiceMix` the live engine used — bit for bit
/// (`pulsar render --replay`).
///
/// Thread rules: a value for one thread at a time; nothing here is real-time.
public struct SessionReplay {
    /// Which device of a two-device session.
    public enum Device: String, Sendable { case main, haptic }

    /// Opens what a logged voice plays: `input` (a path, as the log names it), its preset
    /// (nil: a pattern file, or the bundle's first), `derive`: whether the session derived its
    /// haptics from the audio, `device`: the header's actuator, or its profile as one (a pattern
    /// is read through the device's laws). Its errors pass through unchanged.
    public typealias Opener = (_ input: String, _ preset: String?, _ derive: Bool, _ device: Actuator) throws -> PresetHandle

    public let parsed: EngineLog.Parsed
    public let replay: Replay
    public let rate: SampleRate
    /// The layout of the engine's mix (with two devices: the haptic device's channel last).
    public let layout: ChannelLayout
    public let profile: ActuatorProfile
    /// The header's actuator config, read again from its file; nil for a profile alone.
    public let actuator: Actuator?
    /// One renderer per logged voice, in the order of `replay.voices`.
    let renderers: [TransportRenderer]
    private let path: String

    /// The log `text` (read from `path`, which messages name) parsed and checked, and each voice's
    /// content opened once by `open`. Throws `SessionError(.data, …)` for a log that cannot be
    /// replayed exactly, and `open`'s own errors as they are.
    public init(logText text: String, path: String, open: Opener) throws {
        let parsed: EngineLog.Parsed
        do {
            parsed = try EngineLog.parse(text)
        } catch {
            throw SessionError(.data, "\(path):\(error.line): \(error.message)")
        }
        let h = parsed.header
        guard let rate = SampleRate(h.sampleRate), let layout = ChannelLayout(parsing: h.layout), let profile = ActuatorProfile(parsing: h.profile) else {
            throw SessionError(.data, "\(path):1: the header's rate, layout or profile is not usable")
        }
        var actuator: Actuator?
        if let source = h.actuator {
            do {
                actuator = try Actuator.load(path: source).actuator
            } catch {
                throw SessionError(.data, "\(path):1: the header's actuator cannot be read: \(error)")
            }
        }
        let replay = Replay(events: parsed.events)
        guard replay.eventsLost == 0 else {
            throw SessionError(.data, "\(path): the player dropped \(replay.eventsLost) events while it played; the log cannot be replayed exactly [events-lost]")
        }
        (self.parsed, self.replay, self.rate, self.layout, self.profile, self.actuator, self.path) = (parsed, replay, rate, layout, profile, actuator, path)
        renderers = try Self.renderers(replay, parsed, rate: rate, layout: layout, profile: profile, actuator: actuator, path: path, open: open)
        guard parsed.playedFrames <= FrameIndex(rate.hertz) * 86_400 else {
            throw SessionError(.data, "\(path): \"playedFrames\" \(parsed.playedFrames) is beyond 24 h at \(rate) [too-long]")
        }
    }

    /// Every voice rebuilt from what it plays: its input opened once, its mixer from the header's
    /// rate, layout and profile and the voice's own settings.
    private static func renderers(_ replay: Replay, _ parsed: EngineLog.Parsed, rate: SampleRate, layout: ChannelLayout, profile: ActuatorProfile,
                                  actuator: Actuator?, path: String, open: Opener) throws -> [TransportRenderer] {
        var presets: [String: PresetHandle] = [:]
        var renderers: [TransportRenderer] = []
        for voice in replay.voices.isEmpty ? [Replay.Voice(slot: 0, id: 0)] : replay.voices {
            let d = parsed.description(ofVoice: voice.id)
            let key = "\(d.preset ?? "")\u{0}\(d.input)"
            let preset = try presets[key] ?? open(d.input, d.preset, parsed.header.derivesHaptics, actuator ?? Actuator(profile: profile))
            presets[key] = preset
            var settings = MixSettings(sampleRate: rate, layout: layout, profile: profile, audioOffset: d.audioOffset)
            settings.preloadAudio = true
            settings.actuator = actuator
            var range = PlaybackRange(duration: d.duration)
            d.mix.apply(to: &settings, &range)
            do {
                renderers.append(try voice.renderer(base: try PresetMixer(preset: preset, settings: settings, range: range)))
            } catch {
                throw SessionError(.data, "\(path): the logged settings of a voice do not build a mixer: \(error)")
            }
        }
        return renderers
    }

    /// The layout, rate and length of the stream `device` played: the mix's for one device; the
    /// mix less its last channel for the main device of two; the haptic device's own.
    public func stream(of device: Device) throws(SessionError) -> (layout: ChannelLayout, rate: SampleRate, frames: FrameIndex) {
        guard let h = parsed.header.hapticDevice else {
            guard device == .main else {
                throw SessionError(.data, "\(path):1: the log is of one device; --replay-device haptic needs a play with --haptic-device [no-haptic-device]")
            }
            return (layout, rate, parsed.playedFrames)
        }
        guard layout.channelCount >= 2, let hLayout = ChannelLayout(parsing: h.layout), let hRate = SampleRate(h.sampleRate),
              h.playedFrames <= FrameIndex(hRate.hertz) * 86_400 else {
            throw SessionError(.data, "\(path):1: the header's haptic device (layout, rate or length) is not usable")
        }
        switch device {
        case .haptic: return (hLayout, hRate, h.playedFrames)
        case .main: return (ChannelLayout(name: layout.name, channels: Array(layout.channels.dropLast())), rate, parsed.playedFrames)
        }
    }

    /// A reader of `device`'s stream from its first frame, block after block (memory stays one
    /// block however long the session was).
    public func reader(of device: Device) throws(SessionError) -> Reader {
        Reader(replay: self, device: device, stream: try stream(of: device))
    }

    /// Renders one device's stream in order (`SessionReplay.reader(of:)`).
    public struct Reader {
        /// The stream it renders: layout, rate and length (`SessionReplay.stream(of:)`).
        public let stream: (layout: ChannelLayout, rate: SampleRate, frames: FrameIndex)
        private var layout: ChannelLayout { stream.layout }
        private let replay: SessionReplay
        private let device: Device
        private var cursor = Replay.Cursor()
        private var hapticCursor: Replay.HapticDeviceCursor
        private var mixBlock: [Float] = []

        init(replay: SessionReplay, device: Device, stream: (layout: ChannelLayout, rate: SampleRate, frames: FrameIndex)) {
            (self.replay, self.device, self.stream) = (replay, device, stream)
            let lostFrames = replay.replay.lost.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
            hapticCursor = Replay.HapticDeviceCursor(streamFrames: replay.parsed.playedFrames + lostFrames + StreamRing.defaultCapacity)
        }

        /// The next `block.count / channels` frames of the stream, interleaved in its layout.
        public mutating func render(into block: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) {
            let r = replay.replay, renderers = replay.renderers
            switch (device, replay.parsed.header.hapticDevice) {
            case (.haptic, _):
                try r.renderHapticDevice(into: block, layout: layout, cursor: &hapticCursor, renderers: renderers)
            case (.main, nil):
                try r.render(into: block, cursor: &cursor, renderers: renderers)
            case (.main, _?):
                // The main device of two took the mix less its last channel.
                let mixChannels = replay.layout.channelCount, keep = layout.channelCount
                let frames = block.count / keep
                if mixBlock.count != frames * mixChannels { mixBlock = [Float](repeating: 0, count: frames * mixChannels) }
                try mixBlock.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in
                    try r.render(into: b, cursor: &cursor, renderers: renderers)
                }
                for f in 0..<frames { for c in 0..<keep { block[f * keep + c] = mixBlock[f * mixChannels + c] } }
            }
        }
    }
}
