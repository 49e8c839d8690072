#if canImport(Glibc)
import Glibc
#endif
import PulsarEngine

/// The viewer's main loop: after one first picture (not counted), once a display slot
/// (`FramePacer`): read the window's events, drain the player's, draw the picture for the
/// slot's deadline from the engine's clock, present it, then sleep to the next deadline on
/// `CLOCK_MONOTONIC`.
///
/// The frame drawn for a slot is the one the clock gives for the slot's deadline plus the
/// session's `displayLatencyMs`; the pacer only says when to draw.
///
/// Thread rules: the main thread (the surface's).
public enum ViewerLoop {
    /// Why the loop ended.
    public enum Ending: Sendable, Equatable {
        /// The user closed the window or pressed q / Escape.
        case closed
        /// `exitAfter` seconds went by.
        case timeUp
        /// The output device failed (`HapticPlayer.failure`, e.g. unplugged): nothing plays any more.
        case deviceFailed
    }

    /// Runs until the window closes or the slots of `exitAfter` seconds (nil: no limit) have been
    /// drawn — the slots whose deadlines lie in `[0, exitAfter)` from the start; returns
    /// why and the pacing figures. A present that fails ends the loop with its error.
    public static func run(_ session: ViewerSession, refreshHz: Double = 60, exitAfter: Double? = nil,
                           clock: MonotonicClock = SystemMonotonicClock(),
                           sleep: (MonotonicTime) -> Void = ViewerLoop.sleep(until:)) throws -> (ending: Ending, stats: FrameStats) {
        // A first picture before the slots start, not counted: the first present sets up the
        // window's drawing and costs several slots' worth of time.
        let first = clock.now()
        for event in session.surface.pollEvents() where !session.handle(event, at: first) {
            return (.closed, FramePacer(refreshHz: refreshHz, start: first).stats)
        }
        try session.surface.present(try session.frame(at: first.adding(seconds: session.displayLatencyMs / 1000)))
        var pacer = FramePacer(refreshHz: refreshHz, start: clock.now())
        while true {
            let woke = clock.now()
            pacer.woke(at: woke)
            for event in session.surface.pollEvents() where !session.handle(event, at: woke) {
                return (.closed, pacer.stats)
            }
            session.poll()
            if session.content.player.failure != nil { return (.deviceFailed, pacer.stats) }
            let drawStart = clock.now()
            let shows = pacer.deadline.adding(seconds: session.displayLatencyMs / 1000)
            let picture = try session.frame(at: shows)
            session.slotObserver?(shows, session.contentMs(at: shows), session.mode)
            try session.surface.present(picture)
            let next = pacer.presented(drawStart: drawStart, at: clock.now())
            if let exitAfter, next.seconds(since: pacer.start) >= exitAfter - 1e-9 {
                // The window holds the slots whose deadlines lie before `exitAfter`, however
                // late its last frame came.
                pacer.close(beforeSlot: Int((exitAfter * refreshHz - 1e-9).rounded(.up)))
                return (.timeUp, pacer.stats)
            }
            sleep(next)
        }
    }

    /// Sleeps until `deadline` on `CLOCK_MONOTONIC` (at once if it has passed).
    public static func sleep(until deadline: MonotonicTime) {
        var ts = timespec(tv_sec: Int(deadline.nanoseconds / 1_000_000_000), tv_nsec: Int(deadline.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
