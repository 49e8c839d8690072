#if canImport(Glibc)
import Glibc
#endif

/// Waiting on a condition rather than on the wall clock: a busy machine makes the wait longer,
/// never a test wrong. Tests that poll carry a generous `.timeLimit` trait so a condition that
/// never comes fails the test instead of hanging the run.
public enum Poll {
    /// Calls `condition` every `interval` microseconds until it returns true (then returns true),
    /// or until the surrounding task is cancelled — as the test runner does when a test passes
    /// its time limit (then returns false).
    @discardableResult
    public static func until(every interval: UInt32 = 2_000, _ condition: () throws -> Bool) rethrows -> Bool {
        while !(try condition()) {
            if Task.isCancelled { return false }
            usleep(interval)
        }
        return true
    }
}
