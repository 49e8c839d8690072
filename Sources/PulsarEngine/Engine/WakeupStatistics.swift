import Synchronization

/// The gaps between an engine's steps: a wake-up is late when it comes more than half a period
/// after the period it was due (a gap over 1.5 periods; commands and the device's descriptors
/// only ever wake the thread earlier). Written by the real-time thread (two relaxed atomic
/// updates, no lock), read from any thread.
public final class WakeupStatistics: Sendable {
    private let late = Atomic<Int>(0)
    private let longest = Atomic<Int64>(0)

    /// Steps that came late so far.
    public var lateWakeups: Int { late.load(ordering: .relaxed) }
    /// The longest gap between two steps so far, seconds.
    public var longestGap: Double { Double(longest.load(ordering: .relaxed)) / 1e9 }

    func note(gapNanoseconds gap: Int64, periodNanoseconds period: Int64) {
        if gap > period + period / 2 { late.add(1, ordering: .relaxed) }
        if gap > longest.load(ordering: .relaxed) { longest.store(gap, ordering: .relaxed) }
    }
}
