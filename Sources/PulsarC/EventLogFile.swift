import Foundation
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSession
import PulsarSimulation

/// `log_path`: the engine's event log (docs/ARCHITECTURE.md, `EngineLog`), the one `pulsar play
/// --log` writes, so `pulsar render --replay LOG` rebuilds what the device played from an app's
/// session too. The header describes the first voice made; every voice has a `voice` line. A
/// pattern given in memory is written beside the log (`LOG.pattern-N.json`) and named by it.
///
/// Thread rules: `made` and `write` run under the engine box's lock, off the real-time thread.
final class EventLogFile {
    let path: String
    let rate: SampleRate
    let hapticLayout: String?
    /// Simulated devices that record: what they played is the log's frame count.
    let mainRecorder: SimulatedDevice?
    let hapticRecorder: SimulatedDevice?
    private var voices: [(voice: EngineLog.Voice, mix: MixBox)] = []

    init(path: String, rate: SampleRate, hapticLayout: String?, mainRecorder: SimulatedDevice?, hapticRecorder: SimulatedDevice?) {
        self.path = path
        self.rate = rate
        self.hapticLayout = hapticLayout
        self.mainRecorder = mainRecorder
        self.hapticRecorder = hapticRecorder
    }

    func made(_ voice: HapticVoice, mix: MixBox, priority: Int, realtime: Bool) {
        let m = mix.mixer
        voices.append((EngineLog.Voice(id: voice.id, input: "", preset: nil, audioOffset: m.settings.audioOffset, duration: m.range.duration,
                                       mix: m.live, priority: priority, mode: realtime ? "realtime" : "pattern"), mix))
    }

    /// Writes the log (and the in-memory patterns beside it); nothing when no voice was made.
    func write(engine: HapticEngine) throws {
        guard let first = voices.first else { return }
        var written: [[UInt8]: String] = [:]
        func input(of mix: MixBox) throws -> (String, String?) {
            switch mix.origin {
            case let .file(path, preset): return (path, preset)
            case let .bytes(bytes):
                if let name = written[bytes] { return (name, nil) }
                let name = absolute("\(path).pattern-\(written.count + 1).json")
                try OutputFile.write(bytes, to: name)
                written[bytes] = name
                return (name, nil)
            }
        }
        var lines: [EngineLog.Voice] = []
        for (voice, mix) in voices {
            var line = voice
            (line.input, line.preset) = try input(of: mix)
            lines.append(line)
        }
        let s = first.mix.mixer.settings
        let hapticDevice = hapticLayout.map {
            EngineLog.Header.HapticDevice(layout: $0, sampleRate: rate.hertz, playedFrames: PlayedFrames.haptic(engine, recorder: hapticRecorder))
        }
        let header = EngineLog.Header(input: lines[0].input, preset: lines[0].preset, layout: s.layout.name, sampleRate: s.sampleRate.hertz,
                                      profile: s.profile.name, audioOffset: s.audioOffset, duration: first.mix.mixer.range.duration,
                                      mix: first.mix.mixer.live, hapticDevice: hapticDevice)
        let text = EngineLog.text(header: header, voices: lines, events: engine.loggedEvents, playedFrames: PlayedFrames.main(engine, recorder: mainRecorder),
                                  firstWrite: engine.firstWriteTime, wakeups: engine.wakeups)
        try OutputFile.write(Array(text.utf8), to: path)
    }
}
