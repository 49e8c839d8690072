/// A piecewise-linear curve over sorted points with its ends held; two points at one time form a
/// step (docs/signal-model.md §3).
///
/// A plain value type: safe to use from any thread.
public struct Curve: Sendable {
    public let points: [ValuePoint]

    public init(_ points: [ValuePoint]) {
        self.points = points
    }

    /// Points closer in time than this (ms, one nanosecond) are one time to the model
    /// (docs/signal-model.md §3): a slope over less than it would be a step the arithmetic cannot
    /// resolve (its envelope's changes cancel to nothing but rounding).
    public static let coincidenceMilliseconds = 1e-6

    /// The points as the model reads them (§3): walking in order, a point less than
    /// `coincidenceMilliseconds` after the first point of its group joins the group; a group of
    /// two or more becomes a step at its first point's time, from its first point's value to its
    /// last point's. Points at least that far apart come back unchanged, and so does a step.
    public static func coalesced(_ points: [ValuePoint]) -> [ValuePoint] {
        var out: [ValuePoint] = []
        out.reserveCapacity(points.count)
        forEachGroup(points) { first, last in
            out.append(points[first])
            if last > first { out.append(ValuePoint(time: points[first].time, value: points[last].value)) }
        }
        return out
    }

    /// How many points `coalesced` reads at an earlier time than their own.
    public static func coincidentCount(_ points: [ValuePoint]) -> Int {
        var count = 0
        forEachGroup(points) { first, last in
            count += points[first...last].filter { $0.time != points[first].time }.count
        }
        return count
    }

    private static func forEachGroup(_ points: [ValuePoint], _ body: (Int, Int) -> Void) {
        var i = 0
        while i < points.count {
            var j = i
            while j + 1 < points.count && points[j + 1].time - points[i].time < coincidenceMilliseconds { j += 1 }
            body(i, j)
            i = j + 1
        }
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
