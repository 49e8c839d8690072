/// The carrier of docs/signal-model.md §4: the amplitude curve smoothed by a causal tent of
/// `ρ = 8 ms` (§4.3), the frequency curve (§4.2), and the rule that says where it is silent.
///
/// Built once off the real-time path; a plain value type afterwards, safe from any thread.
struct CarrierEnvelope: Sendable {
    /// Width `ρ` of the smoothing tent, in milliseconds.
    static let smoothingMilliseconds = 8.0

    /// One stretch of the envelope: a cubic in seconds from its start.
    struct Piece: Sendable {
        var startMilliseconds: Double
        var amplitude: Cubic
    }

    /// Pieces covering `[0, endMilliseconds)` in order; empty when there is no carrier.
    let pieces: [Piece]
    /// `T_end`: where the curve stops (0 when there is no carrier).
    let curveEndMilliseconds: Double
    /// `T_end + ρ`: where the smoothed envelope is back at 0 for good.
    var endMilliseconds: Double { pieces.isEmpty ? 0 : curveEndMilliseconds + Self.smoothingMilliseconds }
    private let amplitudePoints: [ValuePoint]
    private let frequency: Curve
    private let profile: ActuatorProfile

    init(_ pattern: ContinuousPattern, profile: ActuatorProfile) {
        self.profile = profile
        // §3: points closer than a nanosecond are read as one time before anything else.
        let amplitude = Curve.coalesced(pattern.amplitude)
        amplitudePoints = amplitude
        frequency = Curve(Curve.coalesced(pattern.frequency))
        let end = max(amplitude.last?.time ?? 0, frequency.points.last?.time ?? 0)
        guard !amplitude.isEmpty, end > 0, end.isFinite else {
            pieces = []
            curveEndMilliseconds = 0
            return
        }
        curveEndMilliseconds = end
        pieces = TentSmoothing(curve: Curve(amplitude), end: end, width: Self.smoothingMilliseconds).pieces()
    }

    /// Times (ms) where the carrier's frequency changes slope: every point of the frequency curve.
    var frequencyBreakpoints: [Double] { frequency.points.map(\.time) }

    /// `ν_c` at `ms` (right-continuous) and its slope in Hz per second until the next frequency point.
    func hertz(atMilliseconds ms: Double) -> (value: Double, slope: Double) {
        let points = frequency.points
        guard !points.isEmpty else { return (profile.hertz(for: 0.5), 0) }
        let value = profile.hertz(for: frequency.value(at: ms))
        let j = Self.lastIndex(atOrBefore: ms, in: points)
        guard j >= 0, j + 1 < points.count else { return (value, 0) }
        let a = points[j], b = points[j + 1]
        guard b.time > a.time else { return (value, 0) }
        let slope = (profile.hertz(for: b.value) - profile.hertz(for: a.value)) / (b.time - a.time) * 1000
        return (value, slope)
    }

    /// §4.3: silent at `ms` when the amplitude curve (0 outside `[0, T_end)`) is 0 on all of
    /// `[ms − ρ, ms)` — so the smoothed envelope is 0 at `ms` — decided on the pattern's own values
    /// in the arithmetic §1's table gives: no carrier, `ms <= 0`, `fl(ms − ρ) >= T_end`, or every
    /// point from the last one at or before `max(fl(ms − ρ), 0)` to the first one at or after `ms`
    /// is exactly 0.
    func isSilent(atMilliseconds ms: Double) -> Bool {
        let points = amplitudePoints
        let lo = ms - Self.smoothingMilliseconds
        guard !pieces.isEmpty, ms > 0, lo < curveEndMilliseconds else { return true }
        let first = max(0, Self.lastIndex(atOrBefore: max(lo, 0), in: points))
        var last = first
        while last + 1 < points.count && points[last].time < ms { last += 1 }
        return points[first...last].allSatisfy { $0.value == 0 }
    }

    /// The last index whose time is at or before `ms`, or −1.
    static func lastIndex(atOrBefore ms: Double, in points: [ValuePoint]) -> Int {
        var lo = -1, hi = points.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if points[mid].time <= ms { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}

/// The amplitude curve as steps and slope changes, each smoothed by the causal tent
/// `w(s) = 4s/ρ²` on `[0, ρ/2)`, `4(ρ − s)/ρ²` on `[ρ/2, ρ)` (docs/signal-model.md §4.3). A step
/// becomes a C1 rise over the `ρ` after it, a corner a C2 bend; in between, the curve delayed by
/// `ρ/2`. Every interval between `T_j`, `T_j + ρ/2` and `T_j + ρ` is one cubic.
struct TentSmoothing {
    /// A change of the curve at `time`: a step of `jump` and a change of slope (per second) of `bend`.
    struct Change {
        var time: Double
        var jump: Double
        var bend: Double
    }

    /// Segments of the curve (right-continuous start value, slope per second) starting at `times[k]`.
    private var times: [Double] = []
    private var values: [Double] = []
    private var slopes: [Double] = []
    private var changes: [Change] = []
    private let width: Double
    private let end: Double

    init(curve a: Curve, end: Double, width: Double) {
        self.width = width
        self.end = end
        times = [0.0]
        for p in a.points where p.time > 0 && p.time < end && p.time != times.last! { times.append(p.time) }
        for k in times.indices {
            let s = times[k], e = k + 1 < times.count ? times[k + 1] : end
            let v = a.value(at: s)
            values.append(v)
            slopes.append((a.valueBefore(e) - v) / (e - s) * 1000)
            let before = k == 0 ? 0 : a.valueBefore(s)
            changes.append(Change(time: s, jump: v - before, bend: slopes[k] - (k == 0 ? 0 : slopes[k - 1])))
        }
        changes.append(Change(time: end, jump: -a.valueBefore(end), bend: -slopes[slopes.count - 1]))
    }

    /// The delayed curve `A(t − ρ/2)` on segment `k` (−1 before the curve, `times.count` after it)
    /// as a cubic in seconds from the time `ms`.
    private func delayed(segment k: Int, at ms: Double) -> Cubic {
        guard k >= 0, k < times.count else { return .zero }
        let x = (ms - width / 2 - times[k]) / 1000
        return Cubic.line(values[k] + slopes[k] * x, slope: slopes[k])
    }

    /// A change's correction to the delayed curve, `x` ms after it, as a cubic in seconds from there.
    private func correction(_ c: Change, at x: Double, secondHalf: Bool) -> Cubic {
        let r = width / 1000
        let k = 2 / (r * r)
        if !secondHalf {
            // h·Hs(x) + b·Rs(x): (2/ρ²)·h·x² + (2/(3ρ²))·b·x³.
            return Cubic(c0: 0, c1: 0, c2: k * c.jump, c3: k / 3 * c.bend).shifted(by: x / 1000)
        }
        // h·(Hs − 1) + b·(Rs − (x − ρ/2)): −(2/ρ²)·h·(ρ − x)² + (2/(3ρ²))·b·(ρ − x)³, in y = ρ − x.
        let inY = Cubic(c0: 0, c1: 0, c2: -k * c.jump, c3: k / 3 * c.bend)
        return inY.shifted(by: (width - x) / 1000).scaled(by: -1)
    }

    func pieces() -> [CarrierEnvelope.Piece] {
        // Breakpoints in time order; the delayed curve moves to segment k at times[k] + ρ/2.
        enum Kind { case change(Int), half(Int), leave(Int) }
        var marks: [(ms: Double, kind: Kind)] = []
        for (j, c) in changes.enumerated() {
            marks.append((c.time, .change(j)))
            marks.append((c.time + width / 2, .half(j)))
            marks.append((c.time + width, .leave(j)))
        }
        marks.sort { $0.ms < $1.ms }
        var pieces: [CarrierEnvelope.Piece] = []
        var segment = -1
        var active: [Int] = []
        // Which half of the tent each change is in is decided by the marks, never by comparing
        // recomputed times (T_j + ρ/2 − T_j need not be ρ/2 in doubles).
        var secondHalf = [Bool](repeating: false, count: changes.count)
        var left = secondHalf
        for (m, next) in zip(marks, marks.dropFirst()) {
            switch m.kind {
            case .change(let j): active.append(j)
            case .half(let j):
                segment = j
                secondHalf[j] = true
            case .leave(let j): left[j] = true
            }
            guard next.ms > m.ms else { continue }
            active.removeAll { left[$0] }
            var sum = delayed(segment: segment, at: m.ms)
            for j in active { sum = sum + correction(changes[j], at: m.ms - changes[j].time, secondHalf: secondHalf[j]) }
            pieces.append(CarrierEnvelope.Piece(startMilliseconds: m.ms, amplitude: sum))
        }
        return pieces
    }
}
