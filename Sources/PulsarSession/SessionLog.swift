import Glibc
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// An engine's event log (`EngineLog`, the file `pulsar play --log` and the C API's `log_path`
/// write), so `pulsar render --replay LOG` rebuilds what the devices played. The header
/// describes the first voice made; every voice has a `voice` line. A pattern given in memory is
/// written beside the log (`LOG.pattern-N.json`) and named by it.
///
/// Thread rules: the control thread (the one that makes the engine's voices), never the
/// real-time one.
public final class SessionLog {
    public let path: String
    /// Set when the session's haptics were derived from its audio (`play --derive`).
    public var derivesHaptics = false
    /// What the header describes: this content with its own settings (`pulsar play`'s first
    /// INPUT, as the command line mixed it), or, when nil, the first voice made's.
    public var headerContent: SessionContent?
    private var voices: [(line: EngineLog.Voice, content: SessionContent)] = []

    public init(path: String) {
        self.path = path
    }

    /// Records a voice made of `content`, playing `mix` (nil: the content's own; a voice made
    /// again after it ended plays its last instance's, live changes included).
    public func made(_ voice: HapticVoice, content: SessionContent, mix: LiveMix? = nil, priority: Int = 0, mode: HapticVoice.Mode = .pattern) {
        let m = content.mixer
        voices.append((EngineLog.Voice(id: voice.id, input: "", preset: nil, audioOffset: m.settings.audioOffset, duration: m.range.duration,
                                       mix: mix ?? m.live, priority: priority, mode: mode.rawValue), content))
    }

    /// Writes the log (and the in-memory patterns beside it); nothing when no voice was made.
    public func write(engine: HapticEngine, played: (main: FrameIndex, haptic: FrameIndex?), hapticLayout: String?) throws {
        guard let described = headerContent ?? voices.first?.content else { return }
        var written: [[UInt8]: String] = [:]
        /// A content's input and preset as the log names them: its file, or its bytes written
        /// beside the log once.
        func named(_ origin: ContentOrigin) throws -> (input: String, preset: String?) {
            switch origin {
            case let .file(path, preset): return (path, preset)
            case let .bytes(bytes):
                if let name = written[bytes] { return (name, nil) }
                let name = absolutePath("\(path).pattern-\(written.count + 1).json")
                try OutputFile.write(bytes, to: name)
                written[bytes] = name
                return (name, nil)
            }
        }
        var lines: [EngineLog.Voice] = []
        for (voice, content) in voices {
            var line = voice
            (line.input, line.preset) = try named(content.origin)
            lines.append(line)
        }
        let (input, preset) = try named(described.origin)
        let m = described.mixer, s = m.settings
        var header = EngineLog.Header(input: input, preset: preset, layout: s.layout.name, sampleRate: s.sampleRate.hertz,
                                      profile: s.profile.name, audioOffset: s.audioOffset, duration: m.range.duration, mix: m.live, hapticDevice: nil)
        header.hapticDevice = hapticLayout.map {
            EngineLog.Header.HapticDevice(layout: $0, sampleRate: engine.configuration.sampleRate.hertz, playedFrames: played.haptic ?? 0)
        }
        header.derivesHaptics = derivesHaptics
        header.actuator = s.actuator?.source.map(absolutePath)
        let text = EngineLog.text(header: header, voices: lines, events: engine.loggedEvents, playedFrames: played.main,
                                  firstWrite: engine.firstWriteTime, wakeups: engine.wakeups)
        try OutputFile.write(Array(text.utf8), to: path)
    }
}
