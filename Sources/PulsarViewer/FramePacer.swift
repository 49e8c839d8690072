import PulsarEngine

/// Display slots at a fixed refresh rate, and the frames that missed them.
///
/// Slot `k` has the deadline `start + k·T` (T = 1 / refresh rate). After the frame of slot `k`
/// is presented at `now`, the next slot is the smallest `j > k` whose deadline has not passed
/// (`start + j·T ≥ now`); the `j − k − 1` slots skipped are *missed* frames. The pacer decides
/// only when to draw — which animation frame to draw comes from the engine's clock.
///
/// Thread rules: a value; one thread.
public struct FramePacer: Sendable {
    public let refreshHz: Double
    public let start: MonotonicTime
    /// The slot being drawn.
    public private(set) var slot = 0
    public private(set) var presented = 0
    public private(set) var missed = 0
    private var drawMs: [Double] = []
    private var wakeLateMs: [Double] = []
    private var last: MonotonicTime

    public init(refreshHz: Double = 60, start: MonotonicTime) {
        precondition(refreshHz > 0 && refreshHz.isFinite, "a refresh rate above 0 Hz")
        self.refreshHz = refreshHz
        self.start = start
        last = start
    }

    /// Seconds per slot.
    public var period: Double { 1 / refreshHz }

    /// The deadline of the slot being drawn: the instant its frame is meant for.
    public var deadline: MonotonicTime { deadline(of: slot) }

    public func deadline(of slot: Int) -> MonotonicTime {
        start.adding(seconds: Double(slot) / refreshHz)
    }

    /// Records that the loop woke for the current slot at `time` (its lateness past the deadline).
    public mutating func woke(at time: MonotonicTime) {
        wakeLateMs.append(max(time.seconds(since: deadline), 0) * 1000)
    }

    /// Records the current slot's frame, drawn from `drawStart` and presented by `now`, and
    /// moves to the next slot whose deadline has not passed. Returns that deadline.
    @discardableResult
    public mutating func presented(drawStart: MonotonicTime, at now: MonotonicTime) -> MonotonicTime {
        presented += 1
        drawMs.append(now.seconds(since: drawStart) * 1000)
        last = now
        let elapsed = now.seconds(since: start) * refreshHz
        // The smallest j > slot whose deadline (in whole nanoseconds) is not before now.
        var next = max(Int(elapsed.rounded(.down)), slot + 1)
        while deadline(of: next) < now { next += 1 }
        missed += next - slot - 1
        slot = next
        return deadline
    }

    /// Ends the run before slot `limit` (the first slot past a time limit): slots skipped past it
    /// are not missed frames of the run — a late last frame must not count the window's end.
    public mutating func close(beforeSlot limit: Int) {
        guard slot > limit else { return }
        missed -= min(slot - limit, missed)
        slot = limit
    }

    /// The figures so far.
    public var stats: FrameStats {
        FrameStats(refreshHz: refreshHz, seconds: last.seconds(since: start), slots: presented + missed,
                   presented: presented, missed: missed, drawMs: Percentiles(drawMs), wakeLateMs: Percentiles(wakeLateMs))
    }
}
