/// What a live player may change while it plays: the loop, the segment, its direction, the haptic offset,
/// haptics on or off and the two gains. Each field left nil keeps the mixer's current value;
/// the audio source, the rate, the layout and the actuator band never change.
///
/// A plain value: safe from any thread.
public struct MixAdjustment: Hashable, Sendable {
    /// Iterations (`PlaybackTimeline.endless` for a loop without end).
    public var loopCount: Int?
    /// Boomerang: every iteration runs the other way from the one before it.
    public var reverse: Bool?
    /// The first iteration runs backwards (`PlaybackRange.startsBackwards`).
    public var startsBackwards: Bool?
    /// The segment, content ms (`.some(nil)` resets to the start / the preset's end).
    public var from: Double??
    public var to: Double??
    public var hapticOffset: Double?
    public var hapticsEnabled: Bool?
    /// Linear gain on the preset audio (on top of its own volume).
    public var audioGain: Double?
    /// Linear gain on the haptic render (the actuator profile's gain, before its limiter).
    public var hapticGain: Double?

    public init(loopCount: Int? = nil, reverse: Bool? = nil, from: Double?? = nil, to: Double?? = nil,
                hapticOffset: Double? = nil, hapticsEnabled: Bool? = nil, audioGain: Double? = nil, hapticGain: Double? = nil,
                startsBackwards: Bool? = nil) {
        self.loopCount = loopCount
        self.reverse = reverse
        self.startsBackwards = startsBackwards
        self.from = from
        self.to = to
        self.hapticOffset = hapticOffset
        self.hapticsEnabled = hapticsEnabled
        self.audioGain = audioGain
        self.hapticGain = hapticGain
    }
}
