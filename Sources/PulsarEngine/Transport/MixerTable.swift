import PulsarAudio
import PulsarCore

/// The mixers a player switches between, by generation: generation 0 is the one it was made
/// with; each live change of loop, segment, offset, haptics or gains installs a prepared mixer
/// under the next generation and sends a `MixChange` naming it.
///
/// Hand-over without locks: the control thread writes a slot before the command that names it
/// crosses the command queue, and clears a slot only after the real-time thread has reported
/// (through the event queue) a later generation — the real-time thread never goes back to an
/// older generation, since no rewind reaches before the current state's anchor. So the
/// real-time thread only ever reads slots nobody writes, and the last reference to a mixer is
/// always dropped on the control thread.
///
/// Thread rules: `install` and `retire(below:)` from one control thread; `mixer(_:)` from the
/// real-time thread (no allocation, no lock) for generations it received in a command.
@_spi(Internals) public final class MixerTable: @unchecked Sendable {
    /// Generation 0.
    let base: PresetMixer
    /// Slots; generation `g` lives in `g % capacity`.
    let capacity: Int
    private let slots: UnsafeMutablePointer<PresetMixer?>
    /// The newest generation installed.
    private(set) var newest = 0
    /// Generations below this have been cleared.
    private var retiredBelow = 0

    package init(base: PresetMixer, capacity: Int = 16) {
        self.base = base
        self.capacity = max(capacity, 2)
        slots = .allocate(capacity: self.capacity)
        slots.initialize(repeating: nil, count: self.capacity)
        slots[0] = base
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// The mixer of `generation`. Real-time thread.
    @inline(__always)
    func mixer(_ generation: Int) -> PresetMixer {
        slots[generation % capacity] ?? base
    }

    /// The newest installed mixer (what the next change starts from). Control thread.
    public var newestMixer: PresetMixer { mixer(newest) }

    /// Installs `mixer` as generation `newest + 1` and returns that generation, or nil when its
    /// slot still holds a generation the real-time thread may use (too many changes in flight).
    /// Control thread.
    public func install(_ mixer: PresetMixer) -> Int? {
        let generation = newest + 1
        guard generation - capacity < retiredBelow else { return nil }
        slots[generation % capacity] = mixer
        newest = generation
        return generation
    }

    /// Takes back the newest generation, `generation`, which no command has named (its change
    /// was refused on the way to the real-time thread): the table is as before `install`.
    /// Control thread.
    public func uninstall(_ generation: Int) {
        precondition(generation == newest && generation > 0, "only the newest, unsent generation can be taken back")
        slots[generation % capacity] = nil
        newest = generation - 1
    }

    /// Installs `mixer` as `generation` directly — for a replay, whose table holds every
    /// generation of a log (`capacity` above the highest); generations skipped on the way keep
    /// the mixer before them. Not for a live player.
    func installForReplay(_ mixer: PresetMixer, as generation: Int) {
        precondition(generation > newest && generation < capacity, "replay generations rise and fit the table")
        for g in (newest + 1)..<generation { slots[g] = slots[newest] }
        slots[generation] = mixer
        newest = generation
    }

    /// Drops every generation below `generation`, which the real-time thread has reported
    /// leaving for good. Control thread.
    public func retire(below generation: Int) {
        while retiredBelow < min(generation, newest) {
            slots[retiredBelow % capacity] = nil
            retiredBelow += 1
        }
    }
}
