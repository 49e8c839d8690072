import Foundation
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
    private var voices: [(line: EngineLog.Voice, origin: ContentOrigin, mixer: PresetMixer?)] = []

    public init(path: String) {
        self.path = path
    }

    /// Records a voice made of `content`.
    public func made(_ voice: HapticVoice, content: SessionContent, priority: Int, realtime: Bool) {
        let m = content.mixer
        voices.append((EngineLog.Voice(id: voice.id, input: "", preset: nil, audioOffset: m.settings.audioOffset, duration: m.range.duration,
                                       mix: m.live, priority: priority, mode: realtime ? "realtime" : "pattern"), content.origin, m))
    }

    /// Records a voice line as a front end wrote it (its input already a path; the header is the
    /// front end's too).
    public func made(_ line: EngineLog.Voice) {
        voices.append((line, .file(path: line.input, preset: line.preset), nil))
    }

    /// Writes the log (and the in-memory patterns beside it); nothing when no voice was made.
    /// `header` is the first voice's unless given (a front end that logs only some voices).
    public func write(engine: HapticEngine, played: (main: FrameIndex, haptic: FrameIndex?), hapticLayout: String?,
                      header given: EngineLog.Header? = nil) throws {
        guard !voices.isEmpty || given != nil else { return }
        var written: [[UInt8]: String] = [:]
        var lines: [EngineLog.Voice] = []
        for (voice, origin, _) in voices {
            var line = voice
            switch origin {
            case let .file(path, preset): (line.input, line.preset) = (path, preset)
            case let .bytes(bytes):
                if let name = written[bytes] {
                    (line.input, line.preset) = (name, nil)
                } else {
                    let name = absolutePath("\(path).pattern-\(written.count + 1).json")
                    try OutputFile.write(bytes, to: name)
                    written[bytes] = name
                    (line.input, line.preset) = (name, nil)
                }
            }
            lines.append(line)
        }
        var header: EngineLog.Header
        if let given {
            header = given
        } else {
            guard let m = voices[0].mixer else { return }
            let s = m.settings
            header = EngineLog.Header(input: lines[0].input, preset: lines[0].preset, layout: s.layout.name, sampleRate: s.sampleRate.hertz,
                                      profile: s.profile.name, audioOffset: s.audioOffset, duration: m.range.duration, mix: m.live, hapticDevice: nil)
        }
        header.hapticDevice = hapticLayout.map {
            EngineLog.Header.HapticDevice(layout: $0, sampleRate: engine.configuration.sampleRate.hertz, playedFrames: played.haptic ?? 0)
        }
        header.derivesHaptics = derivesHaptics
        let text = EngineLog.text(header: header, voices: lines, events: engine.loggedEvents, playedFrames: played.main,
                                  firstWrite: engine.firstWriteTime, wakeups: engine.wakeups)
        try OutputFile.write(Array(text.utf8), to: path)
    }
}
