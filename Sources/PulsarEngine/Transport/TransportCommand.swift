import PulsarCore

/// What an app asks of a voice's transport, from any thread but the real-time one. Plain data
/// (no references), so queueing it never retains, allocates or locks. The engine's own messages
/// (a live change's mixer, a voice joining or giving way) are not among them: they are
/// `EngineCommand`s, which only the engine sends.
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
    /// A live parameter ramps to a value (`ParameterTrack`): a voice's intensity or sharpness,
    /// or (sent to the engine, not a voice) the master haptic gain.
    case parameter(LiveParameter, ParameterTrack.Target)
    /// A `.realtime` voice's content position, in ms (`RealtimeTrack`).
    case position(Double)
}

/// A command as the engine queues, applies and logs it: an app's `TransportCommand`, or one of
/// the engine's own messages to a voice's slot. `EngineEvent.command` reports these, and the
/// event log records them, so a replay sees every change the live engine made.
public enum EngineCommand: Hashable, Sendable {
    case play(fromTimelineFrame: TimelineFrame)
    case pause
    case resume
    case stop
    case seek(toTimelineFrame: TimelineFrame)
    case cue(toTimelineFrame: TimelineFrame)
    case parameter(LiveParameter, ParameterTrack.Target)
    case position(Double)
    /// Switch to a prepared mixer (loop, segment, haptic offset, haptics on/off, gains),
    /// continuing the content being heard (`PlaybackTimeline.frame(continuing:of:)`).
    case mix(MixChange)
    /// A voice joins the engine's mix in its slot (the engine's `id` for it; its mixers were
    /// put in the slot before this was sent), stopped until a `play`.
    case attach(voiceID: Int)
    /// The voice gave way to a newer one: it fades out as a pause does, then leaves the mix.
    case steal

    /// The app's command, as the engine carries it.
    public init(_ command: TransportCommand) {
        switch command {
        case .play(let f): self = .play(fromTimelineFrame: f)
        case .pause: self = .pause
        case .resume: self = .resume
        case .stop: self = .stop
        case .seek(let f): self = .seek(toTimelineFrame: f)
        case .cue(let f): self = .cue(toTimelineFrame: f)
        case .parameter(let p, let t): self = .parameter(p, t)
        case .position(let ms): self = .position(ms)
        }
    }

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
