import PulsarCore

/// A transport request for one voice, as it travels from any thread to the engine's real-time
/// thread. Plain data (no references), so queueing it never retains, allocates or locks.
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
    /// A voice joins the engine's mix in its slot (the engine's `id` for it; its mixers were
    /// put in the slot before this was sent), stopped until a `play`.
    case attach(voiceID: Int)
    /// The voice gave way to a newer one: it fades out as a pause does, then leaves the mix.
    case steal
    /// A live parameter ramps to a value (`ParameterTrack`): a voice's intensity, or (sent to
    /// the engine, not a voice) the master haptic gain.
    case parameter(LiveParameter, ParameterTrack.Target)
    /// A `.realtime` voice's content position, in ms (`RealtimeTrack`).
    case position(Double)

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
        case .attach: return "attach"
        case .steal: return "steal"
        case .parameter(let p, _): return p.rawValue
        case .position: return "position"
        }
    }
}

/// A parameter that changes live, sample by sample, at effective frames.
public enum LiveParameter: String, Hashable, Sendable, CaseIterable {
    /// A voice's haptic amplitude multiplier, 0…4 (Core Haptics' `HapticIntensityControl`; past
    /// 1 the product goes through the limiter).
    case intensity
    /// The engine's gain on every voice's haptics, 0…4.
    case masterGain = "master-gain"
    /// An offset of a voice's frequency parameter, −1…1 (Core Haptics' `HapticSharpnessControl`;
    /// the sum is clamped into 0…1): from its first change on, the voice's haptics run on an
    /// oscillator of its own (`VoiceOscillator`, docs/signal-model.md §12).
    case sharpness

    /// The values a target may take.
    public var range: ClosedRange<Double> { self == .sharpness ? Limits.sharpness : Limits.gain }
}
