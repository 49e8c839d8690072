import PulsarCore

/// What plays on a transport — a single player, a voice of an engine — and the controls every
/// one of them has, each a command that takes effect at an effective device frame.
///
/// Thread rules: as `send`: any thread but the real-time one.
public protocol TransportControls: AnyObject {
    /// Queues `command`; false when it was not taken (queue full, or nothing left to play it).
    @discardableResult
    func send(_ command: TransportCommand) -> Bool
    /// The timeline frame a seek or cue to content time `ms` goes to.
    func timelineFrame(atMs ms: Double) -> TimelineFrame
}

extension TransportControls {
    @discardableResult
    public func pause() -> Bool { send(.pause) }
    /// Resumes from exactly the content frame where the pause took effect.
    @discardableResult
    public func resume() -> Bool { send(.resume) }
    /// Stops; the completion handler gets false.
    @discardableResult
    public func stop() -> Bool { send(.stop) }
    /// Holds paused at `ms` of content (clamped into 0 … duration, then into the segment),
    /// whatever the state: the clock then reports exactly that content time, and `resume()`
    /// plays from it. lottie-ios's `currentTime =` / `currentFrame =`.
    @discardableResult
    public func cue(atMs ms: Double) -> Bool { send(.cue(toTimelineFrame: timelineFrame(atMs: ms))) }
}
