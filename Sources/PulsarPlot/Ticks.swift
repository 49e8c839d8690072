import Glibc

/// Tick values at "nice" steps (1, 2, 2.5 or 5 × 10ⁿ) and their labels.
///
/// Pure functions: any thread.
public enum Ticks {
    /// The smallest nice step that cuts `span` into at most `maxCount` intervals.
    public static func step(span: Double, maxCount: Int) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / Double(max(maxCount, 1))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        for factor in [1, 2, 2.5, 5, 10] where factor * magnitude >= raw * (1 - 1e-9) {
            return factor * magnitude
        }
        return 10 * magnitude
    }

    /// The multiples of `step` inside `range` (ends included within a rounding error).
    public static func values(in range: ClosedRange<Double>, step: Double) -> [Double] {
        guard step > 0, step.isFinite, range.lowerBound.isFinite, range.upperBound.isFinite else { return [] }
        let slack = step * 1e-9
        let first = ((range.lowerBound - slack) / step).rounded(.up)
        let last = ((range.upperBound + slack) / step).rounded(.down)
        guard last >= first, last - first < 10_000 else { return [] }
        return stride(from: first, through: last, by: 1).map { abs($0) < 0.5 ? 0 : $0 * step }
    }

    /// `range` widened to multiples of the nice step for `maxCount` intervals.
    public static func niceRange(_ range: ClosedRange<Double>, maxCount: Int) -> ClosedRange<Double> {
        let s = step(span: range.upperBound - range.lowerBound, maxCount: maxCount)
        let lo = (range.lowerBound / s + 1e-9).rounded(.down) * s
        let hi = (range.upperBound / s - 1e-9).rounded(.up) * s
        return lo < hi ? lo...hi : range
    }

    /// `value` with as many decimals as `step` needs, a true minus sign, no "−0".
    public static func label(_ value: Double, step: Double) -> String {
        var decimals = 0
        if step > 0, step.isFinite {
            var scaled = step
            while decimals < 9, abs(scaled - scaled.rounded()) > 1e-6 * max(1, abs(scaled)) {
                scaled *= 10
                decimals += 1
            }
        }
        let shown = abs(value) < step * 1e-6 ? 0 : value
        let text = String(printf: "%.\(decimals)f", shown)
        return text.hasPrefix("-") ? "\u{2212}" + text.dropFirst() : text
    }
}
