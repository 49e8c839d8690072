import PulsarCore
import PulsarEngine

/// A step in a device's time line that no restart announced: a sound server held up on a busy
/// machine stops its graph for a few milliseconds and then goes on at its own rate without
/// catching up, so the readings after it lie on a line parallel to the one before. Fitting one
/// line through both would turn the step into a rate error (a 2.6 ms step in 10 s reads as
/// −260 ppm); `pulsar drift` instead splits the segment there, fits the rate within the pieces,
/// and reports the step.
public struct Slip: Hashable, Sendable {
    /// Monotonic time of the first reading after the step.
    public var time: MonotonicTime
    /// How far the device fell behind (positive) or jumped ahead, seconds.
    public var seconds: Double
}

/// Finds slips in each segment of a meter's readings (docs/drift.md):
///
/// 1. the slope `b` is the median of the readings' pairwise slopes `Δt / Δn` (robust to the few
///    pairs a step falls between), and `L_k = t_k − b·n_k` the readings' lag;
/// 2. the scale `s` is the median of `|L_k − L_{k−1}|`, and the threshold `τ = max(12·s, 0.1 ms)`;
/// 3. a step at `k` is `Δ_k = median(L_k … L_{k+7}) − median(L_{k−8} … L_{k−1})`; where `|Δ_k|`
///    passes `τ`, the largest `|Δ|` of that run of `k` is a slip, and the segment is cut there.
///
/// Medians of eight readings ignore a single late reading (a spike that comes back), so only a
/// lasting shift is cut. Readings are in time order, segment by segment.
struct SlipDetector {
    /// Readings in each window on either side of a candidate step.
    static let window = 3
    /// The threshold's floor, seconds.
    static let minimumStep = 1e-4

    /// Per reading, the piece it belongs to (pieces are numbered in time order across segments).
    private(set) var pieces: [Int32] = []
    private(set) var slips: [Slip] = []
    /// Each piece's first reading's time and its segment, in time order.
    private(set) var starts: [(time: Int64, segment: Int32)] = []

    init(frames: [FrameIndex], times: [Int64], segments: [Int32]) {
        pieces.reserveCapacity(frames.count)
        var i = 0
        while i < frames.count {
            var end = i
            while end < frames.count, segments[end] == segments[i] { end += 1 }
            let cuts = Self.cuts(frames: frames[i..<end], times: times[i..<end])
            var c = 0
            starts.append((times[i], segments[i]))
            for k in i..<end {
                if c < cuts.count, k == cuts[c].index {
                    slips.append(Slip(time: MonotonicTime(nanoseconds: times[k]), seconds: cuts[c].step))
                    starts.append((times[k], segments[k]))
                    c += 1
                }
                pieces.append(Int32(starts.count - 1))
            }
            i = end
        }
    }

    /// The piece of `segment` in force at `time`: the last one starting at or before it, or the
    /// segment's first when `time` comes before it; nil for a segment without readings.
    func piece(at time: Int64, segment: Int32) -> Int32? {
        var best: Int?
        for (index, start) in starts.enumerated() where start.segment == segment {
            if best == nil || start.time <= time { best = index }
            if start.time > time { break }
        }
        return best.map { Int32($0) }
    }

    /// The indices (into the whole arrays) where one segment's readings step, with the step.
    private static func cuts(frames: ArraySlice<FrameIndex>, times: ArraySlice<Int64>) -> [(index: Int, step: Double)] {
        let w = window
        guard frames.count >= 2 * w + 1, let slope = pairwiseMedianSlope(frames, times) else { return [] }
        let base = frames.startIndex
        let origin = (frames.first!, times.first!)
        let lag = zip(frames, times).map { n, t in Double(t - origin.1) / 1e9 - slope * Double(n - origin.0) }
        let scale = median(zip(lag.dropFirst(), lag).map { abs($0 - $1) })
        let threshold = max(12 * scale, minimumStep)
        var cuts: [(index: Int, step: Double)] = []
        var run: (index: Int, step: Double)?
        var scratch = [Double](repeating: 0, count: w)
        for k in w...(lag.count - w) {
            let step = windowMedian(lag, k..<(k + w), &scratch) - windowMedian(lag, (k - w)..<k, &scratch)
            if abs(step) > threshold {
                if run == nil || abs(step) > abs(run!.step) { run = (base + k, step) }
            } else if let found = run {
                cuts.append(found)
                run = nil
            }
        }
        if let found = run { cuts.append(found) }
        return cuts
    }

    /// The median of `Δt / Δn` over consecutive readings that advanced, seconds per frame.
    private static func pairwiseMedianSlope(_ frames: ArraySlice<FrameIndex>, _ times: ArraySlice<Int64>) -> Double? {
        var slopes: [Double] = []
        slopes.reserveCapacity(frames.count)
        for k in frames.indices.dropFirst() where frames[k] > frames[k - 1] {
            slopes.append(Double(times[k] - times[k - 1]) / 1e9 / Double(frames[k] - frames[k - 1]))
        }
        return slopes.isEmpty ? nil : median(slopes)
    }

    /// The median of `values[range]`, sorted in `scratch` (insertion sort: a window is short).
    private static func windowMedian(_ values: [Double], _ range: Range<Int>, _ scratch: inout [Double]) -> Double {
        let n = range.count
        for (j, i) in range.enumerated() {
            let v = values[i]
            var p = j
            while p > 0, scratch[p - 1] > v {
                scratch[p] = scratch[p - 1]
                p -= 1
            }
            scratch[p] = v
        }
        return n % 2 == 1 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2
    }

    private static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
