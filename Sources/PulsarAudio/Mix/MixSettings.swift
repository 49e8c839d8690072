import PulsarCore

/// Everything that decides how a preset becomes output samples, apart from the preset itself.
///
/// A plain value type: safe from any thread.
public struct MixSettings: Sendable {
    /// Output rate.
    public var sampleRate: SampleRate
    /// Output channels and what feeds them.
    public var layout: ChannelLayout
    /// Actuator band and haptic gain (`profile.gain`, applied before the haptic limiter).
    public var profile: ActuatorProfile
    /// The actuator config the haptic channel is rendered for (`--actuator`, docs/actuators.md):
    /// a `burst` one's renderer is Meta's through its config; an `envelope` one is `profile`
    /// (set both). Nil: `profile` alone. A session log names its file.
    public var actuator: Actuator? = nil
    /// Linear gain on the preset audio, on top of the preset's own volume.
    public var audioGain: Double
    /// False silences the haptic render (the layout keeps its channels).
    public var hapticsEnabled: Bool
    /// Milliseconds by which haptics lag (positive) or lead (negative) audio and animation.
    public var hapticOffset: Double
    /// Replaces the preset's audio offset (ms) when set.
    public var audioOffset: Double?
    /// Decode and resample the whole audio at set-up, so that `PresetMixer.render` only copies
    /// and is real-time safe (what a live player needs); otherwise audio streams block by block.
    /// Costs `frames × channels × 4` bytes.
    public var preloadAudio: Bool = false

    public init(sampleRate: SampleRate = SampleRate(48_000)!, layout: ChannelLayout = .mix,
                profile: ActuatorProfile = .wideband, audioGain: Double = 1, hapticsEnabled: Bool = true,
                hapticOffset: Double = 0, audioOffset: Double? = nil) {
        self.sampleRate = sampleRate
        self.layout = layout
        self.profile = profile
        self.audioGain = audioGain
        self.hapticsEnabled = hapticsEnabled
        self.hapticOffset = hapticOffset
        self.audioOffset = audioOffset
    }
}

/// Which part of the content plays, how often and which way: the offline form of the
/// transport's segment, loop, boomerang and direction (docs/mixing.md).
public struct PlaybackRange: Sendable {
    /// Content time where playback starts, ms (default 0).
    public var from: Double?
    /// Content time where it ends, ms (default: the preset's duration).
    public var to: Double?
    /// Iterations, at least 1.
    public var loopCount: Int
    /// Boomerang: every iteration runs the other way from the one before it.
    public var reverse: Bool
    /// The first iteration runs backwards (from `to` down to `from`); with `reverse` the
    /// direction still flips at every iteration (`PlaybackTimeline.startsBackwards`).
    public var startsBackwards: Bool
    /// Overrides the preset's duration (ms) when set: the first rule of the duration precedence.
    public var duration: Double?

    public init(from: Double? = nil, to: Double? = nil, loopCount: Int = 1, reverse: Bool = false, duration: Double? = nil,
                startsBackwards: Bool = false) {
        self.from = from
        self.to = to
        self.loopCount = loopCount
        self.reverse = reverse
        self.startsBackwards = startsBackwards
        self.duration = duration
    }
}
