import PulsarAudio
import PulsarCore

/// The app's side of a `.realtime` player: the transport — play, pause, resume, stop, seek, cue,
/// the segment, loops and direction of the player's newest mixer — run on the engine's monotonic
/// clock instead of the device's frames, as lottie-ios runs an animation on its display link.
/// The content position it gives at an instant is what the player pushes to its realtime voice
/// at every `poll()` (`HapticVoice.setContentTime`), and what `contentTime(at:)` answers: the
/// animation is the master, the haptics follow.
///
/// Its states are `TransportState`s over frames of the monotonic clock at the mixer's rate,
/// counted from the player's creation, read through a `VoiceTrack` as the device clock's are.
///
/// Thread rules: a value; `HapticPlayer` keeps it under its producers' lock.
struct RealtimeTransport {
    private(set) var track: VoiceTrack
    private(set) var state = TransportState.initial
    private let origin: MonotonicTime
    private let rate: Double
    /// The newest timeline (of generation `state.mix` once switched to).
    private var timeline: PlaybackTimeline

    init(timeline: PlaybackTimeline, sampleRate: SampleRate, durationMilliseconds: Double, animationFrameRate: Double?,
         origin: MonotonicTime) {
        track = VoiceTrack(timeline: timeline, sampleRate: sampleRate, durationMilliseconds: durationMilliseconds,
                           animationFrameRate: animationFrameRate)
        self.origin = origin
        rate = Double(sampleRate.hertz)
        self.timeline = timeline
    }

    /// The clock frame of `time` (fractional).
    func position(at time: MonotonicTime) -> Double { max(time.seconds(since: origin), 0) * rate }

    private func frame(at time: MonotonicTime) -> StreamFrame { StreamFrame(FrameIndex(position(at: time).rounded(.down))) }

    /// Applies a transport command at `time`; returns what the realtime voice's own transport
    /// takes (so that it sounds or not): `play` for play, resume and cue (the app moving the
    /// content is felt), `pause`, `stop`; nil when the voice needs nothing (a seek).
    mutating func apply(_ command: TransportCommand, at time: MonotonicTime) -> EngineCommand? {
        let at = frame(at: time)
        let next = state.applying(EngineCommand(command), atStreamFrame: at)
        take(next, EngineCommand(command))
        switch command {
        case .play, .cue: return .play(fromTimelineFrame: .zero)
        case .resume: return next.mode == .playing ? .play(fromTimelineFrame: .zero) : nil
        case .pause: return .pause
        case .stop: return .stop
        default: return nil
        }
    }

    /// Continues on `new`, generation `generation` (a live change of loops, segment or
    /// direction), from what plays at `time`.
    mutating func switchTimeline(to new: PlaybackTimeline, generation: Int, at time: MonotonicTime) {
        track.register(new, generation: generation)
        let next = state.switching(to: generation, from: timeline, to: new, atStreamFrame: frame(at: time), fadeLength: 0)
        timeline = new
        take(next, .mix(MixChange(generation: generation, mix: LiveMix())))
    }

    /// True, once, when a playing transport has run off its timeline's end by `time`: it stops
    /// there.
    mutating func endIfOver(at time: MonotonicTime) -> Bool {
        guard state.mode == .playing, !timeline.isEndless else { return false }
        let end = state.pin.streamFrame(atTimelineFrame: max(timeline.end, state.timelineFrame))
        guard frame(at: time) >= end else { return false }
        track.observe(.completion(voice: 0, finished: true, streamFrame: end))
        state = TransportState(mode: .stopped, timelineFrame: timeline.end, anchor: end, mix: state.mix)
        return true
    }

    /// The content position in ms at `time`.
    func contentTime(at time: MonotonicTime) -> Double { track.contentTime(atStreamFrame: position(at: time)) }

    private mutating func take(_ next: TransportState, _ command: EngineCommand) {
        state = next
        track.observe(.command(command, voice: 0, requestTime: origin, effectiveFrame: next.anchor, state: next))
    }
}
