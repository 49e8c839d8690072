import PulsarAudio
import PulsarCore

/// A live change of mix settings, as a transport command carries it: the generation of the
/// prepared mixer that takes over (installed in the player's `MixerTable` before the command is
/// sent) and its complete live values, so that the event log alone can rebuild that mixer from
/// the first one. Plain data: queueing it never retains, allocates or locks.
public struct MixChange: Hashable, Sendable {
    /// The mixer generation this change switches to (the first mixer is generation 0).
    public var generation: Int
    /// The values that generation's mixer was built with.
    public var mix: LiveMix

    init(generation: Int, mix: LiveMix) {
        self.generation = generation
        self.mix = mix
    }

    /// The values `mixer` was built with, as generation `generation`.
    @_spi(Internals) public init(generation: Int, of mixer: PresetMixer) {
        self.init(generation: generation, mix: mixer.live)
    }
}
