import PulsarCore

/// A transport request, as it travels from any thread to the player's real-time thread. Plain
/// data (no references), so queueing it never retains, allocates or locks.
public enum TransportCommand: Hashable, Sendable {
    /// Play from a timeline frame (0: the start).
    case play(fromTimelineFrame: TimelineFrame)
    case pause
    /// Continue from exactly the timeline frame where the pause took effect.
    case resume
    /// Silence; the player completes with `false`.
    case stop
    /// Jump to a timeline frame, staying paused when paused.
    case seek(toTimelineFrame: TimelineFrame)
    /// Hold at a timeline frame, paused, from any state (lottie-ios's `currentFrame =`): the
    /// clock reports that frame, and `resume` plays from it. From playing, the sound fades out
    /// over the pause fade.
    case cue(toTimelineFrame: TimelineFrame)
    /// Switch to a prepared mixer (loop, segment, haptic offset, haptics on/off, gains),
    /// continuing the content being heard (`PlaybackTimeline.frame(continuing:of:)`).
    case mix(MixChange)

    /// The name used in the event log.
    public var name: String {
        switch self {
        case .play: return "play"
        case .pause: return "pause"
        case .resume: return "resume"
        case .stop: return "stop"
        case .seek: return "seek"
        case .cue: return "cue"
        case .mix: return "mix"
        }
    }
}
