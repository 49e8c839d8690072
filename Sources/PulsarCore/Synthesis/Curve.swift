/// A piecewise-linear curve over sorted points with its ends held; two points at one time form a
/// step (docs/signal-model.md §3).
///
/// A plain value type: safe to use from any thread.
public struct Curve: Sendable {
    public let points: [ValuePoint]

    public init(_ points: [ValuePoint]) {
        self.points = points
    }

    /// The value at `time`; at a step, the later point's value (right-continuous).
    public func value(at time: Double) -> Double {
        value(at: time, fromLeft: false)
    }

    /// The limit of the value approaching `time` from below; at a step, the earlier point's value.
    public func valueBefore(_ time: Double) -> Double {
        value(at: time, fromLeft: true)
    }

    private func value(at time: Double, fromLeft: Bool) -> Double {
        guard let first = points.first else { return 0 }
        // j = last index with t_j <= time (right) or t_j < time (left), or -1.
        var lo = -1, hi = points.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            let t = points[mid].time
            if fromLeft ? t < time : t <= time { lo = mid } else { hi = mid - 1 }
        }
        if lo < 0 { return first.value }
        if lo == points.count - 1 { return points[lo].value }
        let a = points[lo], b = points[lo + 1]
        if b.time == a.time { return b.value }
        return a.value + (b.value - a.value) * (time - a.time) / (b.time - a.time)
    }
}
