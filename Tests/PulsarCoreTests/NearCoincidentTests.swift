import Foundation
import Testing
@testable import PulsarCore

/// Curve points closer than a nanosecond (docs/signal-model.md §3): the model reads them as one
/// time, so the render is the step's, bit for bit; points a nanosecond or more apart are rendered
/// as the slope they are, within the 2e-5 of [Precision], against an 80-bit evaluation of §4.3's
/// closed form.
@Suite struct NearCoincidentTests {
    static func points(_ list: [(Double, Double)]) -> [ValuePoint] { list.map { ValuePoint(time: $0.0, value: $0.1) } }

    /// 0.6 from `T − 50`, falling to 0 between `T` and `T + gap`, then 0.3 on `[T + 30, T + 60)`.
    static func fall(at T: Double, gap: Double) -> [(Double, Double)] {
        [(T - 50, 0), (T - 50, 0.6), (T, 0.6), (T + gap, 0), (T + 30, 0), (T + 30, 0.3), (T + 60, 0.3)]
    }

    static func pattern(_ amplitude: [(Double, Double)]) -> PatternData {
        PatternData(continuousPattern: ContinuousPattern(amplitude: points(amplitude), frequency: points([(0, 0.5)])))
    }

    @Test("Grouping: within a nanosecond of a group's first point is one time; a step stays; a chain is cut at each nanosecond")
    func grouping() {
        #expect(Curve.coalesced(Self.points([(300, 0.6), (300.00000000000006, 0)])) == Self.points([(300, 0.6), (300, 0)]))
        #expect(Curve.coalesced(Self.points([(0, 0.6), (.leastNonzeroMagnitude, 0)])) == Self.points([(0, 0.6), (0, 0)]))
        #expect(Curve.coalesced(Self.points([(5, 0.2), (5, 0.9), (5 + 1e-9, 0.1), (7, 0.1)])) == Self.points([(5, 0.2), (5, 0.1), (7, 0.1)]))
        let untouched = Self.points([(0, 0), (10, 1), (10, 0.5), (10.000002, 0.4), (20, 0)])
        #expect(Curve.coalesced(untouched) == untouched, "two nanoseconds apart are two times")
        // Points every 0.4 ns: each group spans less than a nanosecond from its first point.
        let chain = Self.points((0..<6).map { (1 + Double($0) * 4e-7, Double($0) / 10) })
        let t3 = chain[3].time
        #expect(Curve.coalesced(chain) == Self.points([(1, 0), (1, 0.2), (t3, 0.3), (t3, 0.5)]))
        #expect(Curve.coincidentCount(chain) == 4)
    }

    @Test("Closer than a nanosecond, at any time up to 24 h and down to the smallest positive double, renders as the step bit for bit")
    func belowTheBound() throws {
        let rate = SampleRate(48_000)!
        for T in [300.0, 3_600_000.0, 86_390_000.0] {
            let step = try PatternRenderer(pattern: Self.pattern(Self.fall(at: T, gap: 0)), sampleRate: rate)
            let frames = FrameIndex((T - 10) * 48)..<FrameIndex((T + 20) * 48)
            let expected = step.render(frames: frames)
            for gap in [9.99e-7, 1e-9, 1e-12, T.ulp, 6e-14] where T + gap > T {
                let near = Self.pattern(Self.fall(at: T, gap: gap))
                let r = try PatternRenderer(pattern: near, sampleRate: rate)
                #expect(r.render(frames: frames) == expected, "T \(T) ms, gap \(gap) ms")
                let warnings = try PatternValidator().validate(near)
                #expect(warnings.map(\.rule) == [.nearCoincident], "\(warnings.map(\.message))")
            }
        }
        // At 0: a step down at the start, the second point the smallest positive double later.
        let atZero = Self.pattern([(0, 0.6), (.leastNonzeroMagnitude, 0), (20, 0), (20, 0.5), (40, 0.5)])
        let exact = Self.pattern([(0, 0.6), (0, 0), (20, 0), (20, 0.5), (40, 0.5)])
        let a = try PatternRenderer(pattern: atZero, sampleRate: rate), b = try PatternRenderer(pattern: exact, sampleRate: rate)
        #expect(a.render(frames: 0..<a.frameCount) == b.render(frames: 0..<b.frameCount))
        #expect(try PatternValidator().validate(exact).isEmpty)
    }

    @Test("A nanosecond or more apart, the slope is rendered within 2e-5 of §4.3 evaluated in 80-bit arithmetic")
    func atAndAboveTheBound() throws {
        for T in [300.0, 3_600_000.0, 86_390_000.0] {
            for gap in [1e-6, 2e-6, 1e-5, 1e-3, 0.1, 2.5] {
                let list = Self.fall(at: T, gap: gap)
                let p = Self.pattern(list)
                let r = try PatternRenderer(pattern: p, sampleRate: SampleRate(48_000)!)
                let reference = ReferenceSignal(p, rate: 48_000)
                let first = Int((T - 10) * 48)
                let y = r.render(frames: FrameIndex(first)..<FrameIndex(first + 1440))
                var worst = 0.0
                for (k, v) in y.enumerated() {
                    let n = first + k
                    let envelope = Double(Self.envelope(list, end: T + 60, at: Float80(n) / 48_000))
                    worst = max(worst, abs(Double(v) - envelope * sin(2 * Double.pi * reference.phase(atFrame: n))))
                }
                #expect(worst < 2e-5, "T \(T) ms, gap \(gap) ms: \(worst)")
            }
        }
    }

    /// §4.3's `a(t) = Σ_j h_j·Hs(t − t_j) + b_j·Rs(t − t_j)` for a curve of distinct-time segments
    /// (steps written as two points) ending at `end` ms, in 80-bit arithmetic.
    static func envelope(_ list: [(Double, Double)], end: Double, at t: Float80) -> Float80 {
        let rho: Float80 = 0.008
        func hs(_ x: Float80) -> Float80 {
            x <= 0 ? 0 : x < rho / 2 ? 2 * x * x / (rho * rho) : x < rho ? 1 - 2 * (rho - x) * (rho - x) / (rho * rho) : 1
        }
        func rs(_ x: Float80) -> Float80 {
            x <= 0 ? 0 : x < rho / 2 ? 2 * x * x * x / (3 * rho * rho)
                : x < rho ? x - rho / 2 + 2 * (rho - x) * (rho - x) * (rho - x) / (3 * rho * rho) : x - rho / 2
        }
        // Segments [times[k], times[k+1]) with their start value and slope per second.
        var times: [Float80] = [0], starts: [Float80] = [], slopes: [Float80] = []
        for p in list where p.0 > 0 && p.0 < end && Float80(p.0) != times.last! { times.append(Float80(p.0)) }
        let curve = Curve(points(list))
        for k in times.indices {
            let s = times[k], e = k + 1 < times.count ? times[k + 1] : Float80(end)
            starts.append(Float80(curve.value(at: Double(s))))
            slopes.append((Float80(curve.valueBefore(Double(e))) - starts[k]) / (e - s) * 1000)
        }
        var sum: Float80 = 0
        for k in times.indices {
            let before: Float80 = k == 0 ? 0 : Float80(curve.valueBefore(Double(times[k])))
            let x = t - times[k] / 1000
            sum += (starts[k] - before) * hs(x) + (slopes[k] - (k == 0 ? 0 : slopes[k - 1])) * rs(x)
        }
        let x = t - Float80(end) / 1000
        return sum - Float80(curve.valueBefore(end)) * hs(x) - slopes.last! * rs(x)
    }
}
