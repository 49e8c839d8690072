import PulsarCore

/// What a player sounds like at any monotonic instant: the content time, the animation frame
/// and the progress, derived from the device's own position readings (through
/// `DevicePositionFilter`) and the transport states at their effective frames — never from
/// accumulated wall time. It freezes exactly where a pause took effect, jumps exactly at a
/// seek's effective frame, wraps at loop boundaries and runs backwards in reverse iterations.
///
/// Feed it the player's events (`observe`) on the thread that queries it.
///
/// Thread rules: one non-real-time thread (the UI or control thread) feeds and queries it.
public struct PlaybackClock {
    /// The timeline of the first mixer (generation 0).
    public var timeline: PlaybackTimeline { timelines[0]! }
    /// Timelines by mixer generation (`register` each live change before its events arrive).
    private var timelines: [Int: PlaybackTimeline]
    public let sampleRate: SampleRate
    /// Content duration in ms (for `progress`).
    public let durationMilliseconds: Double
    /// Animation frame rate and in-point, when there is an animation.
    public var animationFrameRate: Double?
    public var animationInPoint: Double = 0

    private var filter: DevicePositionFilter
    private var states: [TransportState] = [TransportState.initial]

    public init(timeline: PlaybackTimeline, sampleRate: SampleRate, durationMilliseconds: Double,
                animationFrameRate: Double? = nil, animationInPoint: Double = 0) {
        timelines = [0: timeline]
        self.sampleRate = sampleRate
        self.durationMilliseconds = durationMilliseconds
        self.animationFrameRate = animationFrameRate
        self.animationInPoint = animationInPoint
        filter = DevicePositionFilter(nominalRate: Double(sampleRate.hertz))
    }

    /// Makes `timeline` the one of mixer generation `generation`.
    public mutating func register(_ timeline: PlaybackTimeline, generation: Int) {
        timelines[generation] = timeline
    }

    /// True once the transport has nothing left to play: stopped after having been started, or
    /// paused (nothing moves until a new command).
    public var isIdle: Bool {
        guard let last = states.last, states.count > 1 else { return false }
        return last.mode != .playing
    }

    /// Takes in one event from the player.
    public mutating func observe(_ event: EngineEvent) {
        switch event {
        case let .position(streamFrame, time):
            filter.add(frames: streamFrame.index, at: time)
        case let .command(_, _, _, state):
            // States arrive in effective-frame order; a later one replaces any that start after it
            // (a rewound tail's state never sounded).
            while let last = states.last, last.anchor > state.anchor { states.removeLast() }
            states.append(state)
        case let .completion(_, streamFrame):
            while let last = states.last, last.anchor > streamFrame { states.removeLast() }
            let mix = states.last?.mix ?? 0
            let ended = TransportState(mode: .stopped, timelineFrame: timeline(mix).end, anchor: streamFrame, mix: mix)
            if states.last?.mode == .playing || states.last?.mode == .paused { states.append(ended) }
        case .renderFailed, .eventsLost:
            break
        case .underrun:
            // The device restarted: its frames and time no longer lie on the old line.
            filter.reset()
        }
    }

    /// The stream frame being heard at `time` (fractional), or nil before any position reading.
    public mutating func streamFrame(at time: MonotonicTime) -> Double? {
        filter.frame(at: time)
    }

    /// The content frame heard at `time` (fractional): nil before the first reading or while
    /// stopped before anything played.
    public mutating func contentFrame(at time: MonotonicTime) -> Double? {
        streamFrame(at: time).map(contentFrame(atStreamFrame:))
    }

    /// The content frame heard at stream frame `s` (fractional), by the transport states seen so
    /// far — e.g. for the true position a simulated device knows.
    public func contentFrame(atStreamFrame s: Double) -> Double {
        let state = self.state(atStreamPosition: s)
        let timelinePosition: Double
        switch state.mode {
        case .playing: timelinePosition = state.pin.timelinePosition(atStreamPosition: s)
        case .paused, .stopped: timelinePosition = Double(state.timelineFrame.index)
        }
        return timeline(state.mix).contentPosition(atTimelinePosition: timelinePosition)
    }

    /// The state sounding at fractional stream position `s`.
    private func state(atStreamPosition s: Double) -> TransportState {
        states.last { Double($0.anchor.index) <= s } ?? TransportState.initial
    }

    private func timeline(_ generation: Int) -> PlaybackTimeline {
        timelines[generation] ?? timelines[0]!
    }

    /// The iteration heard at `time` (0-based) and the loop count (`PlaybackTimeline.endless`
    /// for a loop without end), or nil before the first reading.
    public mutating func iteration(at time: MonotonicTime) -> (iteration: Int, count: Int)? {
        guard let s = streamFrame(at: time) else { return nil }
        let state = self.state(atStreamPosition: s)
        let t = timeline(state.mix)
        let position = state.position(atStreamFrame: StreamFrame(FrameIndex(s.rounded(.down))))
        return (t.position(of: position).iteration, t.loopCount)
    }

    /// Content time in ms at `time`.
    public mutating func contentTime(at time: MonotonicTime) -> Double? {
        contentFrame(at: time).map { $0 * 1000 / Double(sampleRate.hertz) }
    }

    /// Progress 0...1 through the content at `time`.
    public mutating func progress(at time: MonotonicTime) -> Double? {
        guard durationMilliseconds > 0, let ms = contentTime(at: time) else { return nil }
        return min(max(ms / durationMilliseconds, 0), 1)
    }

    /// The animation frame to show at `time`: `ip + seconds · fr` (needs an animation).
    public mutating func animationFrame(at time: MonotonicTime) -> Double? {
        guard let fr = animationFrameRate, let ms = contentTime(at: time) else { return nil }
        return animationInPoint + ms / 1000 * fr
    }
}
