import PulsarCore

/// The bounds of an engine, checked where numbers enter (options, scripts, logs).
enum EngineLimits {
    /// Largest voice limit (voices playing at once).
    static let maximumVoiceLimit = 128
    /// Slots beyond the voice limit, for stolen voices on their way out: a voice no block has
    /// mixed yet leaves at the next step, silent; one that sounded keeps its slot until its 1 ms
    /// fade has been heard. So many starts at a full engine take effect before any waits for a
    /// slot (10 000 starts at one instant at a limit of one: BENCHMARKS.md).
    static let stealSlots = 256
    /// Most voice slots an engine has: the voice limit plus the steal slots.
    static let maximumVoices = maximumVoiceLimit + stealSlots
    /// Largest intensity or master gain (past 1 the haptics go through the limiter).
    static let maximumGain = Limits.gain.upperBound
}
