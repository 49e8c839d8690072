import PulsarAudio
import PulsarCore

/// One voice of a `HapticEngine`: a pattern or a preset with its own transport, loops, segment,
/// offsets and gains, and its own view of the device clock (`contentTime(at:)`). Every command
/// takes effect at an effective device frame; a live change is the voice's alone.
///
/// A voice ends by itself: when it plays to its end, is stopped, or is stolen by a newer voice,
/// it leaves the engine (`isGone`), and its commands return false from then on.
///
/// Thread rules: commands and live changes from any thread but the real-time one; `completion`,
/// the clock queries and `isGone` on the engine's control thread (the one that polls).
public final class HapticVoice: TransportControls, @unchecked Sendable {
    /// The engine's id for the voice: unique over the engine's life, rising with each voice made.
    public let id: Int
    /// Steals take the lowest priority first.
    public let priority: Int
    /// The engine slot the voice plays in (voices are mixed in slot order).
    public let slot: Int
    /// What moves the voice's content: its own timeline, or the app.
    public let mode: Mode

    /// What moves a voice's content (PulsarLottie's `HapticMode`).
    public enum Mode: String, Sendable, Hashable {
        /// The voice plays its timeline: loops, segments, seeks, its audio.
        case pattern
        /// The app moves the content position (`setContentTime`), from a display tick, a
        /// slider or a scrubbed animation; the voice follows it (`RealtimeTrack`). Haptics only.
        /// Its transport still sounds it or not: `play` before the first position, `pause`,
        /// `resume` and `stop` as for any voice.
        case realtime
    }
    /// Called on the control thread (from the engine's `poll`) when the voice's playback ends:
    /// true at the frame where its last sample was played, false on stop or steal.
    public var completion: ((Bool) -> Void)?
    /// The voice's transport as its events have told it, with its timelines.
    package private(set) var track: VoiceTrack

    private unowned let engine: HapticEngine
    /// The voice's mixers (its generations); control side under the engine's lock.
    private let mixers: MixerTable
    /// Timelines of live changes the track has not taken in yet (under the engine's lock).
    private var pendingTimelines: [(generation: Int, timeline: PlaybackTimeline)] = []
    /// Stolen, and fading out (under the engine's lock).
    var isLeaving = false
    /// Out of the engine: ended and its slot emptied (under the engine's lock).
    var isGone = false
    private var completed = false

    init(engine: HapticEngine, slot: Int, id: Int, priority: Int, mode: Mode, mixers: MixerTable, track: VoiceTrack) {
        self.engine = engine
        self.slot = slot
        self.mode = mode
        self.id = id
        self.priority = priority
        self.mixers = mixers
        self.track = track
    }

    /// True once the voice has left the engine. Control thread.
    public var hasEnded: Bool { engine.sending { isGone } }

    /// True once a newer voice has stolen this one: it is fading out and takes no more commands.
    public var isStolen: Bool { engine.sending { isLeaving && !isGone } }

    /// The newest mixer (what the next live change starts from).
    public var mixer: PresetMixer { engine.sending { mixers.newestMixer } }

    // MARK: Commands (any thread but the real-time one)

    /// Queues `command`; false when the queue is full or the voice has left (or is leaving).
    /// (`pause()`, `resume()`, `stop()` — the voice then completes with false and leaves — and
    /// `cue(atMs:)` come from `TransportControls`.)
    @discardableResult
    public func send(_ command: TransportCommand) -> Bool { send(command, notBefore: nil) }

    /// `send(_:)`, taking effect no earlier than stream frame `notBefore`.
    @discardableResult
    public func send(_ command: TransportCommand, notBefore: StreamFrame?) -> Bool {
        if case .parameter(.masterGain, _) = command { return false }
        return engine.send(EngineCommand(command), to: slot, notBefore: notBefore) { !isGone && !isLeaving }
    }

    /// Plays from the start of the segment, now.
    @discardableResult
    public func play() -> Bool { send(.play(fromTimelineFrame: .zero)) }

    /// Plays from the start of the segment so that its first frame is heard at `time` (the
    /// engine's time, `HapticEngine.now()`), as the device clock predicts it; at once when the
    /// clock has no reading yet or `time` has passed by the time the command is taken.
    @discardableResult
    public func play(at time: MonotonicTime) -> Bool {
        let frame = engine.streamFrame(at: time).map { StreamFrame(FrameIndex(saturating: $0.rounded())) }
        return send(.play(fromTimelineFrame: .zero), notBefore: frame)
    }

    /// Seeks to `ms` of content (clamped into 0…duration), in the first iteration's direction.
    @discardableResult
    public func seek(toMs ms: Double) -> Bool { send(.seek(toTimelineFrame: timelineFrame(atMs: ms))) }

    /// The timeline frame `seek(toMs:)` and `cue(atMs:)` go to (`PresetMixer.timelineFrame(atMs:)`
    /// of the newest mixer).
    public func timelineFrame(atMs ms: Double) -> TimelineFrame { mixer.timelineFrame(atMs: ms) }

    /// A `.realtime` voice's content position, in ms: from its effective frame the voice moves
    /// there (`RealtimeTrack`: a ramp over the time since the last position, the transients it
    /// crosses fired, a jump over 250 ms firing none). False for a `.pattern` voice, when the
    /// queue is full, or when the voice has left.
    @discardableResult
    public func setContentTime(_ ms: Double) -> Bool {
        guard mode == .realtime, ms.isFinite else { return false }
        return send(.position(min(max(ms, -Limits.maximumMilliseconds), Limits.maximumMilliseconds)))
    }

    // MARK: Live parameters (any thread but the real-time one)

    /// Most points of one parameter curve (`Limits.maximumCurvePoints`).
    public static let maximumCurvePoints = Limits.maximumCurvePoints

    /// Ramps the voice's intensity — the multiplier on its haptics, 0…4, clamped — to `value`:
    /// at once (nil, or `seconds` 0: over `ParameterTrack.smoothingFrames`, so no step reaches
    /// the actuator) or linearly over `seconds`, from its effective frame. Changes sent together
    /// follow one another in order: one that lands at the frame of the one before, or during that
    /// one's 4 ms at once, starts where it ends (docs/signal-model.md §13). False when the queue
    /// is full or the voice has left.
    @discardableResult
    public func setIntensity(_ value: Double, over seconds: Double? = nil) -> Bool {
        send(.parameter(.intensity, HapticEngine.target(.intensity, value, over: seconds, rate: mixer.settings.sampleRate)))
    }

    /// Ramps the voice's sharpness — an offset of its frequency parameter, −1…1, clamped; the
    /// sum with the pattern's own is clamped into 0…1 — to `value`, at once (nil or 0: smoothed)
    /// or over `seconds` (Core Haptics' `HapticSharpnessControl`). From the first change on, the voice's
    /// haptics run on an oscillator of its own, taking over the pattern's phase at that frame,
    /// so the frequency glides without a jump in the wave (docs/signal-model.md §12). False for
    /// a `.realtime` voice (its frequency is the content's), when the queue is full, or when the
    /// voice has left.
    @discardableResult
    public func setSharpness(_ value: Double, over seconds: Double? = nil) -> Bool {
        guard mode == .pattern else { return false }
        return send(.parameter(.sharpness, HapticEngine.target(.sharpness, value, over: seconds, rate: mixer.settings.sampleRate)))
    }

    /// An intensity curve on the engine's clock (Core Haptics' parameter curve): from where the
    /// intensity is when it takes effect, linearly to each point's value at its time, holding
    /// the last. Points at or before the device clock's reading of now are reached at once;
    /// before the clock's first reading, nothing is sent. At most `maximumCurvePoints` (1024), in
    /// time order: one command a point, which the engine's queue (4096 commands) and the voice's
    /// tracks take without allocating on the real-time thread. False when the queue was full part
    /// way (the points before stand; a curve sent again replaces what they planned) or the voice
    /// has left.
    @discardableResult
    public func setIntensityCurve(_ points: [(time: MonotonicTime, value: Double)]) -> Bool {
        setCurve(.intensity, points)
    }

    /// A sharpness curve on the engine's clock, as `setIntensityCurve` (false for a `.realtime`
    /// voice).
    @discardableResult
    public func setSharpnessCurve(_ points: [(time: MonotonicTime, value: Double)]) -> Bool {
        guard mode == .pattern else { return false }
        return setCurve(.sharpness, points)
    }

    private func setCurve(_ parameter: LiveParameter, _ points: [(time: MonotonicTime, value: Double)]) -> Bool {
        guard points.count <= Self.maximumCurvePoints else { return false }
        var previous: StreamFrame?
        for point in points {
            guard let at = engine.streamFrame(at: point.time) else { return false }
            let frame = StreamFrame(FrameIndex(saturating: at.rounded()))
            let v = HapticEngine.target(parameter, point.value, over: nil, rate: mixer.settings.sampleRate).value
            guard send(.parameter(parameter, .init(value: v, reach: .at(frame))), notBefore: previous) else { return false }
            previous = max(previous ?? frame, frame)
        }
        return true
    }

    /// Applies `edit` to the voice's live values (loop, segment, direction, offset, haptics on/off,
    /// gains): a transaction, as `HapticPlayer.adjust` is.
    public func adjust(_ edit: (inout LiveMix) -> Void) throws(LiveChangeError) {
        guard mode == .pattern else {
            throw .refused(.badSettings("a realtime voice follows the positions it is given: its loop, segment and offsets do not apply"))
        }
        guard !engine.sending({ isGone || isLeaving }) else { throw .busy }
        try engine.adjust(mixers, slot: slot, edit, open: { !isGone && !isLeaving }) { generation, timeline in
            pendingTimelines.append((generation, timeline))
        }
    }

    /// Loops: `count` iterations in all (nil: without end), boomerang when `reverse`.
    public func setLoop(_ loop: Bool, count: Int? = nil, reverse: Bool = false) throws(LiveChangeError) {
        try adjust { $0.setLoop(loop, count: count, reverse: reverse) }
    }

    // MARK: Events and clock (control thread)

    /// Takes in one of the voice's events (from the engine's `poll`).
    func observe(_ event: EngineEvent) {
        let fresh = engine.sending {
            defer { pendingTimelines.removeAll() }
            return pendingTimelines
        }
        for (generation, timeline) in fresh { track.register(timeline, generation: generation) }
        track.observe(event)
        if case .completion(_, let finished, _) = event, !completed {
            completed = true
            completion?(finished)
        }
        if case .command(let command, _, _, _, let state) = event, state.mode == .playing, command != .steal {
            completed = false
        }
    }

    /// The device stopped: playback has ended, unfinished.
    func deviceFailed() {
        guard !completed else { return }
        completed = true
        completion?(false)
    }

    /// The content time in ms heard at `time` (nil before the device clock's first reading).
    public func contentTime(at time: MonotonicTime) -> Double? {
        engine.streamFrame(at: time).map(track.contentTime(atStreamFrame:))
    }

    /// The animation frame to show at `time` (needs an animation frame rate).
    public func animationFrame(at time: MonotonicTime) -> Double? {
        engine.streamFrame(at: time).flatMap(track.animationFrame(atStreamFrame:))
    }

    /// The iteration heard at `time` and the loop count.
    public func iteration(at time: MonotonicTime) -> (iteration: Int, count: Int)? {
        engine.streamFrame(at: time).map(track.iteration(atStreamFrame:))
    }
}
