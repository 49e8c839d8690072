#if canImport(Glibc)
import Glibc
#endif
import CWakeup
import PulsarAudio
import PulsarCore
import Synchronization

/// A live player shaped like PulsarLottie's: `play()`, `pause()`, `resume()`, `stop()`,
/// `setTimestamp(_:)`, a completion handler, and a clock slaved to the device (`contentTime(at:)`,
/// `progress(at:)`, `animationFrame(at:)`). It is a `HapticEngine` with one voice that stays (in
/// slot 0): the engine's real-time thread runs `EngineCore.step()` once a period (or, with
/// `wake: .device`, when the device's poll descriptors say it wants a period, as mpv's ALSA
/// output waits) and at once when a command arrives; the control thread drains its events with
/// `poll()`, which feeds the clock, the event log and the completion handler.
///
/// Thread rules: commands (`play`, `pause`, …) from any thread but the real-time one — they
/// serialise on a lock the real-time thread never takes, then cross to it through a lock-free
/// queue. Create, `poll` and query from one control thread. The real-time thread is the
/// player's own; it never allocates, locks, prints or does I/O other than the device's. The
/// mixer must preload its audio.
public final class HapticPlayer: TransportControls, @unchecked Sendable {
    /// The engine and its one voice's mixers (slot 0). Private: commands go through this class.
    private let engine: HapticEngine
    private let mixers: MixerTable
    /// The voice's transport states and timelines; its times are read on the engine's device
    /// clock (`HapticEngine.streamFrame(at:)`), the one filter of the device's readings.
    private(set) var track: VoiceTrack
    /// True once the transport has nothing left to play (`VoiceTrack.isIdle`).
    public var isIdle: Bool { track.isIdle }
    /// Every event except positions, in order (the event log's body).
    public var loggedEvents: [EngineEvent] { engine.loggedEvents }
    /// Called on the control thread (from `poll`) when playback ends: true at the frame where the
    /// last sample was played, false on stop.
    public var completion: ((Bool) -> Void)?
    /// Called on the control thread (from `poll`) with every event of the real-time thread —
    /// position readings (in stream frames) and underruns among them — just before the clock
    /// takes it in: a listener can ask the clock what it predicted for a reading's instant
    /// (`streamFrame(at:)`), to measure the clock against the device.
    public var onEvent: ((EngineEvent) -> Void)? {
        get { engine.onEvent }
        set { engine.onEvent = newValue }
    }
    /// The device error that stopped the real-time thread, if any.
    public var failure: DeviceError? { engine.failure }
    /// Underruns seen so far.
    public var underruns: Int { engine.underruns }
    /// Events the real-time thread could not queue (nobody polled for too long); non-zero
    /// means the event log is incomplete.
    public var eventsLost: Int { engine.eventsLost }
    /// A completion was reported since the transport last started playing.
    private var completed = false
    /// Timelines of changes the clock has not taken in yet (under the engine's lock).
    private var pendingTimelines: [(generation: Int, timeline: PlaybackTimeline)] = []
    /// What moves the content: the player's timeline (`.pattern`), or the app's transport on
    /// the monotonic clock with the voice following it (`.realtime`, `RealtimeTransport`).
    public let mode: HapticVoice.Mode
    /// The app-side transport of a `.realtime` player (under the engine's lock).
    private var realtimeTransport: RealtimeTransport?
    /// The position last pushed to the realtime voice (control thread).
    private var pushedPosition: Double?

    /// What wakes the real-time thread between steps (`HapticEngine.WakeSource`).
    public typealias WakeSource = HapticEngine.WakeSource

    /// `realtime`: ask for SCHED_FIFO for the real-time thread (for hardware and sound servers;
    /// a simulated device does not need it, and a FIFO thread that is slow — a debug build —
    /// would starve the machine's other threads). `wake`: what the real-time thread sleeps on
    /// between steps — a timer by default: on PipeWire's ALSA plugin the poll descriptors wake it
    /// twice a period for the same command latency (BENCHMARKS.md, wake sources).
    /// `hapticDevice`: the touch on that device and the sound on `device`, under `device`'s clock
    /// (`HapticEngine`'s two-device mode: the mixer's last channel is the haptic device's).
    public init(mixer: PresetMixer, device: OutputDevice, monotonic: MonotonicClock = SystemMonotonicClock(),
                periodFrames: Int = 256, bufferFrames: Int = 1024, animationFrameRate: Double? = nil,
                realtime: Bool = false, wake: WakeSource = .timer, mode: HapticVoice.Mode = .pattern,
                hapticDevice: HapticDeviceOutput? = nil) throws(DeviceError) {
        let configuration = DeviceConfiguration(sampleRate: mixer.settings.sampleRate, channels: mixer.channelCount,
                                                periodFrames: periodFrames, bufferFrames: bufferFrames)
        let renderer = TransportRenderer(mixer: mixer)
        let realtimeTrack = mode == .realtime
            ? RealtimeTrack(synthesis: RealtimeSynthesis(pattern: mixer.preset.pattern, sampleRate: mixer.settings.sampleRate,
                                                        profile: mixer.settings.profile))
            : nil
        let core = try EngineCore(renderer: renderer, device: device, clock: monotonic, configuration: configuration, realtime: realtimeTrack,
                                  hapticDevice: hapticDevice)
        self.mode = mode
        if mode == .realtime {
            realtimeTransport = RealtimeTransport(timeline: mixer.timeline, sampleRate: mixer.settings.sampleRate,
                                                  durationMilliseconds: mixer.durationMilliseconds,
                                                  animationFrameRate: animationFrameRate, origin: monotonic.now())
        }
        engine = HapticEngine(core: core, voiceLimit: 1, monotonic: monotonic, realtime: realtime, wake: wake)
        mixers = renderer.mixers
        self.track = VoiceTrack(timeline: mixer.timeline, sampleRate: mixer.settings.sampleRate,
                           durationMilliseconds: mixer.durationMilliseconds, animationFrameRate: animationFrameRate)
    }

    /// Starts a real-time thread for this run; does nothing while one runs. After `shutdown`
    /// a new thread starts from where the transport stands. Control thread.
    public func start() { engine.start() }

    /// Stops the real-time thread and joins it: when this returns the thread has ended and the
    /// device is no longer written. Idempotent; the device stays open until the player goes.
    /// Control thread.
    public func shutdown() { engine.shutdown() }

    /// True from `start()` until `shutdown()` or a device failure ends the thread.
    public var isRunning: Bool { engine.isRunning }

    /// The configuration the device really runs at.
    public var configuration: DeviceConfiguration { engine.configuration }
    /// How late the real-time thread's steps came (any thread).
    public var wakeups: WakeupStatistics { engine.wakeups }
    /// Stream frames written to the device so far (read after `shutdown`, or in driven use).
    public var streamWritten: StreamFrame { engine.streamWritten }
    /// Monotonic time of the first frame written (nil before); read after `shutdown`.
    public var firstWriteTime: MonotonicTime? { engine.firstWriteTime }

    /// Driven use, without `start()`: runs one step of the real-time thread on the calling
    /// thread (deterministic tests on a driven clock, offline runs). Never while started.
    public func step() throws(DeviceError) { try engine.step() }

    /// Whether the real-time thread got SCHED_FIFO (nil until it has asked, or when it was not
    /// to ask). Without the privilege it runs at normal priority: it still never blocks, but can
    /// be preempted.
    public var hasRealtimeScheduling: Bool? { engine.hasRealtimeScheduling }

    /// Whether the real-time thread is to ask for SCHED_FIFO (the `realtime` it was made with).
    package var asksRealtime: Bool { engine.realtime }

    /// Priority of the real-time thread under SCHED_FIFO (`HapticEngine.realtimePriority`).
    public static var realtimePriority: Int32 { HapticEngine.realtimePriority }

    // MARK: Commands (control thread)

    /// Queues a transport command; false when the queue is full, or for a `.position` (a
    /// realtime player's position comes from its own transport). Live changes of loops, segment
    /// and gains come from `adjust(_:)`, which prepares their mixer.
    @discardableResult
    public func send(_ command: TransportCommand) -> Bool {
        if case .position = command { return false }
        guard mode == .realtime else { return engine.send(EngineCommand(command), to: 0) }
        // The app's transport moves; the voice's own transport only sounds it or not.
        let now = engine.now()
        let voiceCommand = engine.sending { realtimeTransport!.apply(command, at: now) }
        let sent = voiceCommand.map { engine.send($0, to: 0) } ?? true
        pushPosition(at: now)
        return sent
    }

    /// `.realtime`: sends the app transport's content position at `time` to the voice, when it
    /// moved since the last one sent.
    private func pushPosition(at time: MonotonicTime) {
        guard let ms = engine.sending({ realtimeTransport?.contentTime(at: time) }), ms != pushedPosition else { return }
        if engine.send(.position(ms), to: 0) { pushedPosition = ms }
    }

    /// True while a command or mix change sent has not yet taken effect as far as `poll()` has
    /// seen: the clock's state (`clock.isIdle`, the mode) may still be the one before it.
    /// Control thread.
    public var hasPendingCommands: Bool { engine.hasPendingCommands }

    /// The mixer of the newest change (what the next one starts from).
    public var mixer: PresetMixer { engine.sending { mixers.newestMixer } }

    /// Content duration in ms after the duration precedence (explicit > preset > animation > content).
    public var durationMs: Double { mixers.base.durationMilliseconds }

    /// Plays from the start of the segment.
    @discardableResult
    public func play() -> Bool { send(.play(fromTimelineFrame: .zero)) }
    /// Plays from `progress` (0…1) of the whole timeline, loops included.
    public func play(fromProgress progress: Double) {
        let total = mixer.frameCount
        let span = total == FrameIndex.max ? mixer.timeline.segmentLength : total
        send(.play(fromTimelineFrame: TimelineFrame(FrameIndex((min(max(progress, 0), 1) * Double(span)).rounded(.down)))))
    }
    /// Plays from timeline frame `frame`.
    @discardableResult
    public func play(fromFrame frame: TimelineFrame) -> Bool { send(.play(fromTimelineFrame: max(frame, .zero))) }
    /// Plays the segment `fromMs ..< toMs` of content (nil: the start / the end), with the
    /// current loop settings. False when the play command found the queue full (the segment
    /// change stands).
    @discardableResult
    public func play(fromMs: Double?, toMs: Double?) throws(LiveChangeError) -> Bool {
        try adjust { $0.from = fromMs; $0.to = toMs }
        return send(.play(fromTimelineFrame: .zero))
    }
    // pause(), resume(), stop() and cue(atMs:) come from `TransportControls`.

    /// `stop()` under lottie-ios's other name.
    public func reset() { stop() }
    /// Seeks to `ms` of content (clamped into 0…duration), in the current iteration's timeline.
    @discardableResult
    public func setTimestamp(_ ms: Double) -> Bool { send(.seek(toTimelineFrame: timelineFrame(atMs: ms))) }


    /// The timeline frame `setTimestamp(ms)` and `cue(atMs: ms)` go to: the newest mixer's
    /// `PresetMixer.timelineFrame(atMs:)`.
    public func timelineFrame(atMs ms: Double) -> TimelineFrame { mixer.timelineFrame(atMs: ms) }

    /// Loops: `loop` false plays the current iteration to its end and stops; true repeats
    /// `count` times in all (nil: without end), boomerang when `reverse`. Takes effect at a
    /// device frame like any command, continuing the content being heard.
    public func setLoop(_ loop: Bool, count: Int? = nil, reverse: Bool = false) throws(LiveChangeError) {
        try adjust { $0.setLoop(loop, count: count, reverse: reverse) }
    }

    /// Milliseconds by which haptics lag (positive) or lead audio and animation.
    public var hapticOffset: Double { mixer.settings.hapticOffset }
    /// Sets `hapticOffset` live.
    public func setHapticOffset(_ ms: Double) throws(LiveChangeError) { try adjust { $0.hapticOffset = ms } }

    /// False silences the haptic channel(s); the layout keeps them.
    public var hapticsEnabled: Bool { mixer.settings.hapticsEnabled }
    /// Sets `hapticsEnabled` live.
    public func setHapticsEnabled(_ on: Bool) throws(LiveChangeError) { try adjust { $0.hapticsEnabled = on } }

    /// Applies `edit` to the live values of the newest mixer and switches to a mixer built from
    /// them at the next effective frame.
    ///
    /// A transaction: the new mixer is built (off the real-time thread, allocating) from the
    /// generation it replaces, and installed only if that generation is still the newest — when
    /// another thread's change got in first, `edit` runs again on top of it, so concurrent
    /// changes of different fields all stand. A change the queue refuses is taken back before
    /// this throws, so the next one builds on what the real-time thread really has.
    /// Any thread but the real-time one.
    public func adjust(_ edit: (inout LiveMix) -> Void) throws(LiveChangeError) {
        try engine.adjust(mixers, slot: 0, edit) { generation, timeline in
            pendingTimelines.append((generation, timeline))
        }
    }

    // MARK: Events and clock (control thread)

    /// Drains the real-time thread's events: feeds the clock, keeps the log, calls `completion`.
    public func poll() {
        registerTimelines()
        if mode == .realtime { pollRealtime() }
        engine.poll { event in
            if case .command(let command, _, _, _, let state) = event {
                if case .mix = command { registerTimelines() }
                if state.mode == .playing { completed = false }
            }
            track.observe(event)
            if case .completion(_, let finished, _) = event {
                completed = true
                completion?(finished)
            }
        }
        if engine.failure != nil, !completed {
            // The device is gone: playback has ended, unfinished.
            completed = true
            completion?(false)
        }
    }

    private func registerTimelines() {
        let fresh = engine.sending {
            defer { pendingTimelines.removeAll() }
            return pendingTimelines
        }
        let now = engine.now()
        for (generation, timeline) in fresh {
            track.register(timeline, generation: generation)
            if mode == .realtime { engine.sending { realtimeTransport!.switchTimeline(to: timeline, generation: generation, at: now) } }
        }
    }

    /// `.realtime`, at every `poll()`: the app transport's end (completion(true), the voice
    /// stopped), and its position pushed to the voice.
    private func pollRealtime() {
        let now = engine.now()
        if engine.sending({ realtimeTransport!.endIfOver(at: now) }) {
            // Silenced, not stopped: a stop would complete the voice a second time, unfinished.
            engine.send(.pause, to: 0)
            completed = true
            completion?(true)
        }
        pushPosition(at: now)
    }

    /// The app transport's clock for `.realtime` content queries; nil for `.pattern`.
    private func realtimeFrame(at time: MonotonicTime) -> (track: VoiceTrack, frame: Double)? {
        guard mode == .realtime else { return nil }
        return engine.sending { realtimeTransport.map { ($0.track, $0.position(at: time)) } }
    }

    /// The iteration heard at `time` and the loop count.
    /// (`.realtime`: of the app's transport, whose clock is the engine's monotonic one.)
    public func iteration(at time: MonotonicTime) -> (iteration: Int, count: Int)? {
        if let r = realtimeFrame(at: time) { return r.track.iteration(atStreamFrame: r.frame) }
        return streamFrame(at: time).map(track.iteration(atStreamFrame:))
    }

    /// The stream frame being heard at `time`, from the device clock (nil before a reading).
    public func streamFrame(at time: MonotonicTime) -> Double? { engine.streamFrame(at: time) }
    /// The content time in ms heard at `time`: from the device clock (`.pattern`), or where the
    /// app's transport stands (`.realtime`: the animation is the master).
    public func contentTime(at time: MonotonicTime) -> Double? {
        if let r = realtimeFrame(at: time) { return r.track.contentTime(atStreamFrame: r.frame) }
        return streamFrame(at: time).map(track.contentTime(atStreamFrame:))
    }
    public func progress(at time: MonotonicTime) -> Double? {
        if let r = realtimeFrame(at: time) { return r.track.progress(atStreamFrame: r.frame) }
        return streamFrame(at: time).flatMap(track.progress(atStreamFrame:))
    }
    public func animationFrame(at time: MonotonicTime) -> Double? {
        if let r = realtimeFrame(at: time) { return r.track.animationFrame(atStreamFrame: r.frame) }
        return streamFrame(at: time).flatMap(track.animationFrame(atStreamFrame:))
    }
    public func now() -> MonotonicTime { engine.now() }
}

/// Why a live change did not happen. Nothing of a refused change stays behind.
public enum LiveChangeError: Error, Sendable, CustomStringConvertible {
    /// The mixer refused the values (out of range, nothing left to play, …).
    case refused(PresetMixer.SetupError)
    /// Too many changes are in flight for the real-time thread, or its command queue is full:
    /// try again after the next `poll()`.
    case busy

    public var description: String {
        switch self {
        case .refused(let error): return error.description
        case .busy: return "too many live changes in flight; try again [busy]"
        }
    }
}
