import PulsarAudio
import PulsarCore

/// A live change of mix settings, as a transport command carries it: the generation of the
/// prepared mixer that takes over (installed in the player's `MixerTable` before the command is
/// sent) and the complete resulting values, so that the event log alone can rebuild that mixer
/// from the first one. Plain data: queueing it never retains, allocates or locks.
public struct MixChange: Hashable, Sendable {
    /// The mixer generation this change switches to (the first mixer is generation 0).
    public var generation: Int
    public var loopCount: Int
    public var reverse: Bool
    /// The first iteration runs backwards (`PlaybackRange.startsBackwards`).
    public var startsBackwards: Bool
    public var from: Double?
    public var to: Double?
    public var hapticOffset: Double
    public var hapticsEnabled: Bool
    public var audioGain: Double
    public var hapticGain: Double

    public init(generation: Int, loopCount: Int, reverse: Bool, from: Double?, to: Double?, hapticOffset: Double,
                hapticsEnabled: Bool, audioGain: Double, hapticGain: Double, startsBackwards: Bool = false) {
        self.generation = generation
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

    /// The values `mixer` was built with, as generation `generation`.
    public init(generation: Int, of mixer: PresetMixer) {
        self.init(generation: generation, loopCount: mixer.range.loopCount, reverse: mixer.range.reverse,
                  from: mixer.range.from, to: mixer.range.to, hapticOffset: mixer.settings.hapticOffset,
                  hapticsEnabled: mixer.settings.hapticsEnabled, audioGain: mixer.settings.audioGain,
                  hapticGain: mixer.settings.profile.gain, startsBackwards: mixer.range.startsBackwards)
    }

    /// The adjustment that turns any mixer of the same preset into this generation's.
    public var adjustment: MixAdjustment {
        MixAdjustment(loopCount: loopCount, reverse: reverse, from: .some(from), to: .some(to), hapticOffset: hapticOffset,
                      hapticsEnabled: hapticsEnabled, audioGain: audioGain, hapticGain: hapticGain,
                      startsBackwards: startsBackwards)
    }
}
