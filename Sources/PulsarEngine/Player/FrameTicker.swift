#if canImport(Glibc)
import Glibc
#endif

/// What a display tick shows: the instant and where the player is then.
public struct FrameTick: Sendable {
    public var index: Int
    public var time: MonotonicTime
    /// Content time in ms, animation frame and progress from the device-slaved clock (nil before
    /// the device has reported a position).
    public var contentMilliseconds: Double?
    public var animationFrame: Double?
    public var progress: Double?
}

/// A display-link-like loop: wakes at a fixed rate on absolute deadlines of the monotonic clock
/// (so ticks never drift), polls the player and hands out the frame to show. Ticks only time the
/// *asking*; what they show comes from the device-slaved clock, never from the tick count.
///
/// Thread rules: `run` blocks the calling thread, which becomes the player's control thread for
/// its duration (it calls `poll`).
public struct FrameTicker: Sendable {
    /// Ticks per second (default 60).
    public var rate: Double

    public init(rate: Double = 60) {
        self.rate = max(rate, 1)
    }

    /// Ticks until `onTick` returns false.
    public func run(_ player: HapticPlayer, onTick: (FrameTick) -> Bool) {
        let start = SystemMonotonicClock().now()
        var index = 0
        while true {
            let deadline = start.adding(seconds: Double(index) / rate)
            var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
            player.poll()
            let now = player.now()
            let tick = FrameTick(index: index, time: now, contentMilliseconds: player.contentTime(at: now),
                                 animationFrame: player.animationFrame(at: now), progress: player.progress(at: now))
            if !onTick(tick) { return }
            index += 1
        }
    }
}
