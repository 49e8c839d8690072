import PulsarCore

/// What a live player may change while it plays: the loop, the segment, its direction, the
/// haptic offset, haptics on or off and the two gains — the complete values, not a difference.
/// One type for every place these travel: a caller edits a mixer's `live` value, the mixer built
/// from it carries it, the real-time thread receives it in a `MixChange`, and the event log
/// writes and reads it. The audio source, the rate, the layout and the actuator band never
/// change live.
///
/// A plain value: safe from any thread.
public struct LiveMix: Hashable, Sendable {
    /// Iterations (`PlaybackTimeline.endless` for a loop without end).
    public var loopCount: Int
    /// Boomerang: every iteration runs the other way from the one before it.
    public var reverse: Bool
    /// The first iteration runs backwards (`PlaybackRange.startsBackwards`).
    public var startsBackwards: Bool
    /// The segment, content ms (nil: the start / the preset's end).
    public var from: Double?
    public var to: Double?
    /// Milliseconds by which haptics lag (positive) or lead audio and animation.
    public var hapticOffset: Double
    public var hapticsEnabled: Bool
    /// Linear gain on the preset audio (on top of its own volume).
    public var audioGain: Double
    /// Linear gain on the haptic render (the actuator profile's gain, before its limiter).
    public var hapticGain: Double

    public init(loopCount: Int = 1, reverse: Bool = false, startsBackwards: Bool = false, from: Double? = nil,
                to: Double? = nil, hapticOffset: Double = 0, hapticsEnabled: Bool = true, audioGain: Double = 1,
                hapticGain: Double = 1) {
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

    /// Sets the loops as a player's `setLoop(_:count:reverse:)` says: `loop` false plays one
    /// iteration; true repeats `count` iterations in all (nil: without end), boomerang when
    /// `reverse`.
    public mutating func setLoop(_ loop: Bool, count: Int?, reverse: Bool) {
        loopCount = loop ? (count.map { max($0, 1) } ?? PlaybackTimeline.endless) : 1
        self.reverse = loop && reverse
    }

    /// This value with `edit` applied.
    public func with(_ edit: (inout LiveMix) -> Void) -> LiveMix {
        var copy = self
        edit(&copy)
        return copy
    }
}

extension LiveMix {
    /// The live values in `settings` and `range` (the haptic gain is the profile's).
    public init(settings: MixSettings, range: PlaybackRange) {
        self.init(loopCount: range.loopCount, reverse: range.reverse, startsBackwards: range.startsBackwards,
                  from: range.from, to: range.to, hapticOffset: settings.hapticOffset,
                  hapticsEnabled: settings.hapticsEnabled, audioGain: settings.audioGain, hapticGain: settings.profile.gain)
    }

    /// Writes these values into `settings` and `range`, the inverse of `init(settings:range:)`.
    public func apply(to settings: inout MixSettings, _ range: inout PlaybackRange) {
        range.loopCount = loopCount
        range.reverse = reverse
        range.startsBackwards = startsBackwards
        range.from = from
        range.to = to
        settings.hapticOffset = hapticOffset
        settings.hapticsEnabled = hapticsEnabled
        settings.audioGain = audioGain
        settings.profile.gain = hapticGain
    }
}
