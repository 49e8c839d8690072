import PulsarAudio
import PulsarCore
import PulsarEngine

/// Numbered voices on one engine, driven by the transport script's commands (`pulsar play`'s
/// voices; the script fuzzer's): voice 1 plays the first content, voice 2 the second, and so on. A voice is made when it first starts, and made again when it starts after
/// it ended (a voice ends by itself at its end, on `stop`, or when a newer one steals it), from
/// the mixer its last instance had, live changes included.
///
/// Thread rules: the control thread.
public final class SessionVoices {
    public let engine: HapticEngine
    public let contents: [SessionContent]
    /// Each voice's newest instance (in the engine or gone). An older one is let go as soon as
    /// a newer one is made: a burst of starts that steal each other holds one voice's memory,
    /// not one per start.
    private var newestInstances: [HapticVoice?]
    /// How many instances were made, all voices together.
    public private(set) var madeCount = 0
    /// Voice 1's instances in order, kept only when `keepsFirstVoiceHistory` (the clock log reads
    /// which one was heard when).
    public private(set) var firstVoiceHistory: [HapticVoice] = []
    public let keepsFirstVoiceHistory: Bool
    /// Where the voices made are logged: each with a `voice` line, but for those the header
    /// describes (voice 1 as first made: the first content with its own settings).
    private let log: SessionLog?

    /// Each voice's mode (`--mode`).
    public let modes: [HapticVoice.Mode]

    /// `log`, when given, describes the first content in its header and logs every other voice
    /// made.
    public init(engine: HapticEngine, contents: [SessionContent], modes: [HapticVoice.Mode], keepsFirstVoiceHistory: Bool = false,
                log: SessionLog? = nil) {
        self.engine = engine
        self.contents = contents
        self.modes = modes
        self.keepsFirstVoiceHistory = keepsFirstVoiceHistory
        newestInstances = Array(repeating: nil, count: contents.count)
        self.log = log
        log?.headerContent = contents[0]
    }

    /// Voice `v`'s instance in the engine (0-based), if it has one that takes commands (not one
    /// fading out after a steal: a start makes a new instance at once instead of waiting for it).
    public func live(_ v: Int) -> HapticVoice? {
        guard let last = newestInstances[v], !last.hasEnded, !last.isStolen else { return nil }
        return last
    }

    /// Voice `v`'s newest instance, in the engine or gone (its clock still answers).
    public func newest(_ v: Int) -> HapticVoice? { newestInstances[v] }

    /// Every voice instance in the engine.
    public var liveVoices: [HapticVoice] { newestInstances.indices.compactMap(live) }

    /// True when no voice plays by itself: every one made has ended, or is paused or stopped,
    /// or is a realtime voice (only the script's positions move it).
    public var isIdle: Bool {
        newestInstances.indices.allSatisfy { v in live(v).map { $0.track.isIdle || $0.mode == .realtime } ?? true }
    }

    /// True once a voice has been made.
    public var anyMade: Bool { madeCount > 0 }

    /// Starts voice `v` from `ms` of content (nil: its segment's start): on its instance in the
    /// engine, or on a new one. False when the engine cannot take it yet (the caller retries).
    public func start(_ v: Int, fromMs ms: Double?) throws(SessionError) -> Bool {
        let voice: HapticVoice
        if let current = live(v) {
            voice = current
        } else {
            let mixer = newestInstances[v]?.mixer ?? contents[v].mixer
            do {
                voice = try engine.makeVoice(mixer, animationFrameRate: contents[v].animationFrameRate, mode: modes[v])
            } catch {
                switch error {
                case .busy: return false
                case .full, .unsupported:
                    throw SessionError(.unavailable, "voice \(v + 1): \(error)")
                }
            }
            newestInstances[v] = voice
            madeCount += 1
            if v == 0 && keepsFirstVoiceHistory { firstVoiceHistory.append(voice) }
            if v != 0 || mixer.live != contents[0].mixer.live || modes[v] != .pattern {
                log?.made(voice, content: contents[v], mix: mixer.live, mode: modes[v])
            }
        }
        guard let ms else { return voice.play() }
        let m = voice.mixer
        return voice.send(.play(fromTimelineFrame: m.timeline.timelineFrame(of: m.settings.sampleRate.contentFrame(atMilliseconds: ms),
                                                                             inIteration: 0)))
    }

    /// One script command for voice `v` (0-based); false when it cannot be taken yet (the caller
    /// retries). A command for a voice not in the engine does nothing, except `play`, which
    /// starts it.
    public func perform(_ command: TransportScript.Command, voice v: Int) throws(SessionError) -> Bool {
        if case .play(let ms) = command { return try start(v, fromMs: ms) }
        if case let .masterGain(g, over) = command { return engine.setMasterHapticGain(g, over: over.map { $0 / 1000 }) }
        guard let voice = live(v) else { return true }
        do throws(PresetMixer.SetupError) {
            switch command {
            case .play: return true
            case .pause: return voice.pause()
            case .resume: return voice.resume()
            case .stop: return voice.stop()
            case .seek(let ms): return voice.seek(toMs: ms)
            case let .loop(count, reverse):
                return try live(voice) { $0.loopCount = count.map { max($0, 1) } ?? PlaybackTimeline.endless; $0.reverse = reverse }
            case .loopOff: return try live(voice) { $0.loopCount = 1; $0.reverse = false }
            case .offset(let ms): return try live(voice) { $0.hapticOffset = ms }
            case .haptics(let on): return try live(voice) { $0.hapticsEnabled = on }
            case .audioGain(let g): return try live(voice) { $0.audioGain = g }
            case .hapticGain(let g): return try live(voice) { $0.hapticGain = g }
            case let .intensity(x, over): return voice.setIntensity(x, over: over.map { $0 / 1000 })
            case let .sharpness(x, over):
                guard voice.mode == .pattern else {
                    throw PresetMixer.SetupError.badSettings("'sharpness' moves a voice's frequency; a realtime voice's is its content's")
                }
                return voice.setSharpness(x, over: over.map { $0 / 1000 })
            case .masterGain: return true
            case .position(let ms):
                guard voice.mode == .realtime else {
                    throw PresetMixer.SetupError.badSettings("'position' moves a realtime voice (--mode realtime); this one plays its timeline")
                }
                return voice.setContentTime(ms)
            }
        } catch {
            throw SessionError(.data, "voice \(v + 1): \(error)")
        }
    }

    /// Makes a live change: true when made, false when the engine is busy (the caller retries),
    /// the mixer's refusal thrown.
    private func live(_ voice: HapticVoice, _ edit: (inout LiveMix) -> Void) throws(PresetMixer.SetupError) -> Bool {
        do {
            try voice.adjust(edit)
            return true
        } catch {
            switch error {
            case .busy: return false
            case .refused(let why): throw why
            }
        }
    }
}
