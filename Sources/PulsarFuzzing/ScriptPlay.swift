import PulsarAudio
import PulsarBundle
import PulsarCommandLine
import PulsarCore
import PulsarEngine
import PulsarSession
import PulsarSimulation

/// `pulsar play A B C --device sim --mode 3=realtime --voices 2 --script S` run offline: the
/// script's lines go through the command's own `SessionVoices` (its interpreter of script commands)
/// to an engine on a simulated device whose clock only moves when told. The real-time thread is
/// not started: the engine is stepped one period at a time on the calling thread, and the clock
/// advanced by a period after each step, so an input is deterministic and never sleeps. The
/// timing of lines follows `PlayLoop`: a line is sent once its time has come; a line the engine
/// cannot take yet is retried after a poll, then waits for the next period; without a line that
/// plays, every voice plays from 0 first; a line the voices refuse ends the run, as it ends the
/// command.
///
/// Bounded: the first `maximumLines` lines, none after `maximumMilliseconds`, and at most
/// `maximumSteps` periods of 256 frames at 8 kHz rendered.
enum ScriptPlay {
    static let maximumLines = 64
    static let maximumMilliseconds = 2_000.0
    static let maximumSteps = 80
    static let rate = SampleRate(8_000)!
    static let period = 256

    /// Three voices: a swell, a pattern of taps, and a realtime voice (the script's positions
    /// move it); only two play at once, so a third start steals one.
    static let modes: [HapticVoice.Mode] = [.pattern, .pattern, .realtime]

    static func run(_ text: String) {
        guard let script = try? TransportScript(text: text, name: "script") else { return }
        var lines = Array(script.lines.prefix(maximumLines).prefix { $0.at <= maximumMilliseconds })
        // `play` refuses a script naming a voice with no INPUT.
        guard !lines.contains(where: { ($0.voice ?? 1) > modes.count }), let contents = contents() else { return }
        let clock = ManualClock()
        guard let engine = try? HapticEngine(device: SimulatedDevice(clock: clock), sampleRate: rate, channels: 1, monotonic: clock,
                                             periodFrames: period, bufferFrames: 4 * period, voiceLimit: 2) else { return }
        let voices = SessionVoices(engine: engine, contents: contents, modes: modes)
        if !lines.contains(where: { if case .play = $0.command { return true } else { return false } }) {
            lines = contents.indices.map { TransportScript.Line(at: 0, command: .play(nil), line: 0, voice: $0 + 1) } + lines
        }
        drive(engine, voices, lines, clock)
        engine.poll()
    }

    /// Sends the lines at their times and steps the engine until the script is done and every
    /// voice is idle, a line is refused, the device fails, or the step budget is spent.
    private static func drive(_ engine: HapticEngine, _ voices: SessionVoices, _ lines: [TransportScript.Line], _ clock: ManualClock) {
        let start = clock.now()
        var next = 0
        for _ in 0..<maximumSteps {
            let elapsedMs = clock.now().seconds(since: start) * 1000
            while next < lines.count, lines[next].at <= elapsedMs {
                guard let accepted = send(lines[next], to: voices, engine) else { return }
                guard accepted else { break }
                next += 1
                if next % 256 == 0 { engine.poll() }
            }
            do {
                try engine.step()
            } catch {
                return
            }
            engine.poll()
            if engine.failure != nil { return }
            if next == lines.count, !engine.hasPendingCommands, voices.anyMade, voices.isIdle { return }
            clock.advance(seconds: Double(period) / Double(rate.hertz))
        }
    }

    /// One line to the voices, retried once after a poll: whether it was taken; nil when the
    /// voices refused it.
    private static func send(_ line: TransportScript.Line, to voices: SessionVoices, _ engine: HapticEngine) -> Bool? {
        let v = (line.voice ?? 1) - 1
        do {
            if try voices.perform(line.command, voice: v) { return true }
            engine.poll()
            return try voices.perform(line.command, voice: v)
        } catch {
            return nil
        }
    }

    /// The three INPUTs, built once per call (a mixer keeps its last block: voices share none).
    private static func contents() -> [SessionContent]? {
        var swell = PatternData()
        swell.continuousPattern.amplitude = [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 150, value: 1), ValuePoint(time: 300, value: 0)]
        swell.continuousPattern.frequency = [ValuePoint(time: 0, value: 0.3), ValuePoint(time: 300, value: 0.8)]
        var taps = PatternData()
        taps.discretePattern = [DiscretePoint(time: 0, amplitude: 1, frequency: 0.5), DiscretePoint(time: 60, amplitude: 0.6, frequency: 0.9),
                                DiscretePoint(time: 200, amplitude: 0.8, frequency: 0.1)]
        var both = swell
        both.discretePattern = taps.discretePattern
        var result: [SessionContent] = []
        for (k, pattern) in [swell, taps, both].enumerated() {
            let preset = PresetHandle(id: "v\(k + 1)", name: "v\(k + 1)", duration: 0, pattern: pattern)
            let settings = MixSettings(sampleRate: rate, layout: .haptic)
            let range = PlaybackRange()
            guard let mixer = try? PresetMixer(preset: preset, settings: settings, range: range) else { return nil }
            result.append(SessionContent(mixer: mixer, origin: .file(path: "v\(k + 1).json", preset: nil)))
        }
        return result
    }
}
