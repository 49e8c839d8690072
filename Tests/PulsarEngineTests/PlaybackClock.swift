import PulsarCore
@_spi(Internals) @testable import PulsarEngine

/// The tests' clock of one voice, fed the engine's events by hand (the engine's voices and the
/// player read theirs from the engine's one filter): what a player sounds like at any monotonic
/// instant — the content time, the animation frame and the progress, derived from the device's own position readings (through
/// `DevicePositionFilter`) and the transport states at their effective frames — never from
/// accumulated wall time. It freezes exactly where a pause took effect, jumps exactly at a
/// seek's effective frame, wraps at loop boundaries and runs backwards in reverse iterations.
///
/// Feed it the engine's events (`observe`) on the thread that queries it: it follows the
/// device's positions and the commands and completion of one voice (`voice`).
///
/// Thread rules: one non-real-time thread (the UI or control thread) feeds and queries it.
struct PlaybackClock {
    /// The voice's states and timelines.
    private(set) var track: VoiceTrack
    private var filter: DevicePositionFilter

    /// The timeline of the first mixer (generation 0).
    var timeline: PlaybackTimeline { track.timeline }
    var sampleRate: SampleRate { track.sampleRate }
    /// Content duration in ms (for `progress`).
    var durationMilliseconds: Double { track.durationMilliseconds }
    /// Animation frame rate and in-point, when there is an animation.
    var animationFrameRate: Double? {
        get { track.animationFrameRate }
        set { track.animationFrameRate = newValue }
    }
    var animationInPoint: Double {
        get { track.animationInPoint }
        set { track.animationInPoint = newValue }
    }
    /// The engine slot of the voice this clock follows (0: a single player's).
    var voice: Int { track.voice }

    init(timeline: PlaybackTimeline, sampleRate: SampleRate, durationMilliseconds: Double,
                 animationFrameRate: Double? = nil, animationInPoint: Double = 0, voice: Int = 0) {
        track = VoiceTrack(timeline: timeline, sampleRate: sampleRate, durationMilliseconds: durationMilliseconds,
                           animationFrameRate: animationFrameRate, animationInPoint: animationInPoint, voice: voice)
        filter = DevicePositionFilter(nominalRate: Double(sampleRate.hertz))
    }

    /// Makes `timeline` the one of mixer generation `generation`.
    mutating func register(_ timeline: PlaybackTimeline, generation: Int) {
        track.register(timeline, generation: generation)
    }

    /// True once the transport has nothing left to play: stopped after having been started, or
    /// paused (nothing moves until a new command).
    var isIdle: Bool { track.isIdle }

    /// Takes in one event from the engine.
    mutating func observe(_ event: EngineEvent) {
        switch event {
        case let .position(streamFrame, time):
            filter.add(frames: streamFrame.index, at: time)
        case .underrun:
            // The device restarted: its frames and time no longer lie on the old line.
            filter.reset()
        default:
            track.observe(event)
        }
    }

    /// Seconds between a frame the device reports heard and its sound (the main device's
    /// `--latency` in the two-device mode): the clock answers that much later.
    var latency: Double = 0

    /// The stream frame being heard at `time` (fractional), or nil before any position reading.
    mutating func streamFrame(at time: MonotonicTime) -> Double? {
        filter.frame(at: time.adding(seconds: -latency))
    }

    /// The content frame heard at `time` (fractional): nil before the first reading.
    mutating func contentFrame(at time: MonotonicTime) -> Double? {
        streamFrame(at: time).map(track.contentFrame(atStreamFrame:))
    }

    /// The content frame heard at stream frame `s` (fractional), by the transport states seen so
    /// far — e.g. for the true position a simulated device knows.
    func contentFrame(atStreamFrame s: Double) -> Double { track.contentFrame(atStreamFrame: s) }

    /// The iteration heard at `time` (0-based) and the loop count (`PlaybackTimeline.endless`
    /// for a loop without end), or nil before the first reading.
    mutating func iteration(at time: MonotonicTime) -> (iteration: Int, count: Int)? {
        streamFrame(at: time).map(track.iteration(atStreamFrame:))
    }

    /// Content time in ms at `time`.
    mutating func contentTime(at time: MonotonicTime) -> Double? {
        streamFrame(at: time).map(track.contentTime(atStreamFrame:))
    }

    /// Progress 0...1 through the content at `time`.
    mutating func progress(at time: MonotonicTime) -> Double? {
        streamFrame(at: time).flatMap(track.progress(atStreamFrame:))
    }

    /// The animation frame to show at `time`: `ip + seconds · fr` (needs an animation).
    mutating func animationFrame(at time: MonotonicTime) -> Double? {
        streamFrame(at: time).flatMap(track.animationFrame(atStreamFrame:))
    }
}
