#if canImport(Glibc)
import Glibc
#endif

/// A point on the system's monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds. The only wall
/// time the engine knows; it never accumulates it into positions, it only timestamps readings.
///
/// A plain value: safe from any thread, real-time safe.
public struct MonotonicTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static func < (a: MonotonicTime, b: MonotonicTime) -> Bool { a.nanoseconds < b.nanoseconds }

    /// `self + seconds`.
    public func adding(seconds: Double) -> MonotonicTime {
        MonotonicTime(nanoseconds: nanoseconds + Int64((seconds * 1e9).rounded()))
    }

    /// Seconds from `earlier` to `self`.
    public func seconds(since earlier: MonotonicTime) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1e9
    }

    public var description: String { "\(Double(nanoseconds) / 1e9) s" }
}

/// Where time comes from: the system's monotonic clock, or a clock a test drives.
///
/// Thread rules: `now()` is safe from any thread and real-time safe in every implementation.
public protocol MonotonicClock: AnyObject, Sendable {
    func now() -> MonotonicTime
}

/// `CLOCK_MONOTONIC`.
public final class SystemMonotonicClock: MonotonicClock {
    public init() {}

    public func now() -> MonotonicTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicTime(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
