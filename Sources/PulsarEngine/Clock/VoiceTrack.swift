import PulsarCore

/// What one voice sounds like at any stream position: its transport states at their effective
/// frames and the timelines of its mixer generations, so that a device clock's stream frame
/// (`DevicePositionFilter`) becomes the voice's content frame, iteration and animation frame. It
/// freezes exactly where a pause took effect, jumps exactly at a seek's effective frame, wraps at
/// loop boundaries and runs backwards in reverse iterations.
///
/// Feed it the engine's events (`observe`): it keeps the commands and completion of its voice.
///
/// Thread rules: a plain value for one non-real-time thread (the UI or control thread).
package struct VoiceTrack: Sendable {
    /// The engine slot of the voice (0: a single player's).
    let voice: Int
    /// The timeline of the first mixer (generation 0).
    var timeline: PlaybackTimeline { timelines[0]! }
    /// Timelines by mixer generation (`register` each live change before its events arrive).
    private var timelines: [Int: PlaybackTimeline]
    let sampleRate: SampleRate
    /// Content duration in ms (for `progress`).
    let durationMilliseconds: Double
    /// Animation frame rate and in-point, when there is an animation.
    var animationFrameRate: Double?
    var animationInPoint: Double = 0
    private var states: [TransportState] = [TransportState.initial]

    init(timeline: PlaybackTimeline, sampleRate: SampleRate, durationMilliseconds: Double,
         animationFrameRate: Double? = nil, animationInPoint: Double = 0, voice: Int = 0) {
        self.voice = voice
        timelines = [0: timeline]
        self.sampleRate = sampleRate
        self.durationMilliseconds = durationMilliseconds
        self.animationFrameRate = animationFrameRate
        self.animationInPoint = animationInPoint
    }

    /// Makes `timeline` the one of mixer generation `generation`.
    mutating func register(_ timeline: PlaybackTimeline, generation: Int) {
        timelines[generation] = timeline
    }

    /// True once the transport has nothing left to play: stopped after having been started, or
    /// paused (nothing moves until a new command).
    package var isIdle: Bool {
        guard let last = states.last, states.count > 1 else { return false }
        return last.mode != .playing
    }

    /// The newest state the voice's events have given.
    var latestState: TransportState { states.last ?? .initial }

    /// Takes in one event of the engine (those of other voices are ignored).
    mutating func observe(_ event: EngineEvent) {
        switch event {
        case let .command(_, voice, _, _, state):
            guard voice == self.voice else { return }
            // States arrive in effective-frame order; a later one replaces any that start after it
            // (a rewound tail's state never sounded).
            while let last = states.last, last.anchor > state.anchor { states.removeLast() }
            states.append(state)
        case let .completion(voice, _, streamFrame):
            guard voice == self.voice else { return }
            while let last = states.last, last.anchor > streamFrame { states.removeLast() }
            let mix = states.last?.mix ?? 0
            let ended = TransportState(mode: .stopped, timelineFrame: timeline(mix).end, anchor: streamFrame, mix: mix)
            if states.last?.mode == .playing || states.last?.mode == .paused { states.append(ended) }
        case .position, .underrun, .renderFailed, .eventsLost, .detached, .hapticDevicePosition, .hapticDeviceSegment, .hapticDeviceUnderrun:
            break
        }
    }

    /// The content frame heard at stream frame `s` (fractional), by the transport states seen so
    /// far — e.g. for the true position a simulated device knows.
    package func contentFrame(atStreamFrame s: Double) -> Double {
        let state = self.state(atStreamPosition: s)
        let timelinePosition: Double
        switch state.mode {
        case .playing: timelinePosition = state.pin.timelinePosition(atStreamPosition: s)
        case .paused, .stopped: timelinePosition = Double(state.timelineFrame.index)
        }
        return timeline(state.mix).contentPosition(atTimelinePosition: timelinePosition)
    }

    /// The iteration heard at stream frame `s` (0-based) and the loop count
    /// (`PlaybackTimeline.endless` for a loop without end).
    func iteration(atStreamFrame s: Double) -> (iteration: Int, count: Int) {
        let state = self.state(atStreamPosition: s)
        let t = timeline(state.mix)
        let position = state.position(atStreamFrame: StreamFrame(FrameIndex(s.rounded(.down))))
        return (t.position(of: position).iteration, t.loopCount)
    }

    /// Content time in ms at stream frame `s`.
    func contentTime(atStreamFrame s: Double) -> Double {
        contentFrame(atStreamFrame: s) * 1000 / Double(sampleRate.hertz)
    }

    /// Progress 0...1 through the content at stream frame `s` (nil without a duration).
    func progress(atStreamFrame s: Double) -> Double? {
        guard durationMilliseconds > 0 else { return nil }
        return min(max(contentTime(atStreamFrame: s) / durationMilliseconds, 0), 1)
    }

    /// The animation frame to show at stream frame `s`: `ip + seconds · fr` (needs an animation).
    func animationFrame(atStreamFrame s: Double) -> Double? {
        guard let fr = animationFrameRate else { return nil }
        return animationInPoint + contentTime(atStreamFrame: s) / 1000 * fr
    }

    /// The state sounding at fractional stream position `s`.
    private func state(atStreamPosition s: Double) -> TransportState {
        states.last { Double($0.anchor.index) <= s } ?? TransportState.initial
    }

    private func timeline(_ generation: Int) -> PlaybackTimeline {
        timelines[generation] ?? timelines[0]!
    }
}
