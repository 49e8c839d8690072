import Foundation
import PulsarCore

/// A direct, slow transcription of docs/signal-model.md in 64-bit arithmetic with one `sin` per
/// sample. It shares no code with `PatternRenderer` (not even `Curve`), so agreement between the
/// two checks the renderer against the document.
struct ReferenceSignal {
    let rate: Double
    let fmin: Double, fmax: Double, gain: Double
    let pattern: PatternData

    init(_ pattern: PatternData, rate: Int, fmin: Double = 60, fmax: Double = 300, gain: Double = 1) {
        self.pattern = pattern
        self.rate = Double(rate)
        self.fmin = fmin
        self.fmax = fmax
        self.gain = gain
    }

    func hz(_ f: Double) -> Double { fmin + f * (fmax - fmin) }

    /// §3: right-continuous value (`left == false`) or left limit, ends held.
    static func curve(_ points: [ValuePoint], at T: Double, left: Bool) -> Double {
        if points.isEmpty { return 0 }
        var j = -1
        for (i, p) in points.enumerated() where left ? p.time < T : p.time <= T { j = i }
        if j < 0 { return points[0].value }
        if j == points.count - 1 { return points[j].value }
        let a = points[j], b = points[j + 1]
        if b.time == a.time { return b.value }
        return a.value + (b.value - a.value) * (T - a.time) / (b.time - a.time)
    }

    /// §4: segments with their phase at the start.
    struct Segment { var T0, T1, a0, a1, h0, h1, phase: Double; var first, end: Int }

    var segments: [Segment] {
        let A = pattern.continuousPattern.amplitude, F = pattern.continuousPattern.frequency
        guard !A.isEmpty else { return [] }
        let tEnd = max(A.last!.time, F.last?.time ?? 0)
        guard tEnd > 0 else { return [] }
        let times = Array(Set([0, tEnd] + (A + F).map(\.time).filter { $0 > 0 && $0 < tEnd })).sorted()
        var result: [Segment] = []
        var phase = 0.0
        for k in 0..<(times.count - 1) {
            let T0 = times[k], T1 = times[k + 1]
            let f0 = F.isEmpty ? 0.5 : Self.curve(F, at: T0, left: false)
            let f1 = F.isEmpty ? 0.5 : Self.curve(F, at: T1, left: true)
            let s = Segment(T0: T0, T1: T1, a0: Self.curve(A, at: T0, left: false), a1: Self.curve(A, at: T1, left: true),
                            h0: hz(f0), h1: hz(f1), phase: phase,
                            first: Int((T0 * rate / 1000).rounded(.up)), end: Int((T1 * rate / 1000).rounded(.up)))
            result.append(s)
            let d = (T1 - T0) / 1000
            phase += s.h0 * d + (s.h1 - s.h0) / d * d * d / 2
        }
        return result
    }

    /// §4–§6 for samples `range`, before (`limited == false`) or after the limiter.
    func samples(_ range: Range<Int>, limited: Bool = true) -> [Double] {
        var out = [Double](repeating: 0, count: range.count)
        for s in segments {
            let d = (s.T1 - s.T0) / 1000
            let alpha = (s.a1 - s.a0) / d, beta = (s.h1 - s.h0) / d
            for n in max(s.first, range.lowerBound)..<max(max(s.first, range.lowerBound), min(s.end, range.upperBound)) {
                let u = Double(n) / rate - s.T0 / 1000
                let phi = s.phase + s.h0 * u + beta * u * u / 2
                out[n - range.lowerBound] += (s.a0 + alpha * u) * sin(2 * Double.pi * phi)
            }
        }
        for p in pattern.discretePattern {
            let onset = Int((p.time * rate / 1000).rounded())
            let nu = hz(p.frequency)
            let D = min(max(3 / nu, 0.010), 0.030)
            let L = max(1, Int((D * rate).rounded()))
            for j in 0..<L where range.contains(onset + j) {
                let e = 1 - Double(j) / Double(L)
                out[onset + j - range.lowerBound] += p.amplitude * e * e * cos(2 * Double.pi * nu * Double(j) / rate)
            }
        }
        return out.map { v in
            let s = gain * v
            guard limited, abs(s) > 0.8 else { return s }
            return (s < 0 ? -1 : 1) * (0.8 + 0.2 * tanh((abs(s) - 0.8) / 0.2))
        }
    }

    /// §6: N_total.
    var frameCount: Int {
        var total = segments.last?.end ?? 0
        for p in pattern.discretePattern {
            let nu = hz(p.frequency)
            let L = max(1, Int((min(max(3 / nu, 0.010), 0.030) * rate).rounded()))
            total = max(total, Int((p.time * rate / 1000).rounded()) + L)
        }
        return total
    }
}
