import PulsarEngine
import Synchronization

/// A monotonic clock that only moves when told to: tests and simulations drive time exactly.
///
/// Thread rules: `now()` from any thread (real-time safe); `advance`/`set` from any thread.
/// Time never goes backwards: `set` to an earlier time is ignored.
public final class ManualClock: MonotonicClock {
    private let nanoseconds: Atomic<Int64>

    public init(start: MonotonicTime = MonotonicTime(nanoseconds: 1_000_000_000)) {
        nanoseconds = Atomic(start.nanoseconds)
    }

    public func now() -> MonotonicTime {
        MonotonicTime(nanoseconds: nanoseconds.load(ordering: .acquiring))
    }

    /// Moves time forward by `seconds` (≥ 0).
    public func advance(seconds: Double) {
        let delta = max(Int64((seconds * 1e9).rounded()), 0)
        nanoseconds.add(delta, ordering: .acquiringAndReleasing)
    }

    /// Moves time forward to `time` (no effect when `time` is earlier).
    public func set(_ time: MonotonicTime) {
        var current = nanoseconds.load(ordering: .relaxed)
        while time.nanoseconds > current {
            let (exchanged, original) = nanoseconds.compareExchange(expected: current, desired: time.nanoseconds, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }
}
