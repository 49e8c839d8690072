import Foundation
import PulsarCore

/// The reference's per-sample part: one-time groups (§3), the carrier (§6) and the samples.
extension ReferenceSignal {
    /// §3: a point less than 1e-6 ms after the first point of its group belongs to the group; a
    /// group of several points is a step at the first one's time, from its value to the last's.
    static func oneTime(_ points: [ValuePoint]) -> [ValuePoint] {
        var result: [ValuePoint] = []
        var first = 0
        for k in points.indices {
            let endsGroup = k + 1 == points.count || !(points[k + 1].time - points[first].time < 1e-6)
            guard endsGroup else { continue }
            result.append(points[first])
            if k > first { result.append(ValuePoint(time: points[first].time, value: points[k].value)) }
            first = k + 1
        }
        return result
    }

    // MARK: - The signal

    /// §4.3 "silent at t", decided on the file's values with §1's table: with `m = fl(fl(1000·n)/R)`
    /// and `m₋ = fl(m − 8)`, silent when there is no carrier, `m <= 0`, `m₋ >= T_end`, or every
    /// amplitude point from the last one at or before `max(m₋, 0)` (the first if none) to the
    /// first one at or after `m` (the last if none) is 0.
    func carrierSilent(atFrame n: Int) -> Bool {
        guard hasCarrier else { return true }
        let m = Double(1000 * n) / rate
        let mMinus = m - 8
        if m <= 0 || mMinus >= tEnd { return true }
        let A = amplitude
        var lo = 0, hi = A.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if A[mid].time <= max(mMinus, 0) { lo = mid + 1 } else { hi = mid }
        }
        let first = max(lo - 1, 0)
        var last = first
        while last + 1 < A.count && A[last].time < m { last += 1 }
        return A[first...last].allSatisfy { $0.value == 0 }
    }

    /// §4.3 `a(t_n)`: `A⁰(t − ρ/2)` plus, for each change with `t − ρ < T_j <= t` (`x = t − T_j`),
    /// `h_j·2x²/ρ² + b_j·2x³/(3ρ²)` on `[0, ρ/2)` and `−h_j·2(ρ − x)²/ρ² + b_j·2(ρ − x)³/(3ρ²)` on
    /// `[ρ/2, ρ)` — that is `h_j·Hs(x) + b_j·Rs(x)` less the settled forms already in the delayed
    /// curve.
    func carrierAmplitude(atFrame n: Int) -> Double {
        guard hasCarrier, n > 0 else { return 0 }
        let R = rate
        // (t_n − T)·R in ms·Hz for T, T + ρ/2, T + ρ: `k.addingProduct(−T, R)`, one rounding.
        let kNow = Double(1000 * n)
        let kMid = Double(1000 * n - 4 * sampleRate)
        let kOld = Double(1000 * n - 8 * sampleRate)
        var a = delayedCurve(kMid)
        // The first change with T > t − ρ.
        var lo = 0, hi = changes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if kOld.addingProduct(-changes[mid].T, R) >= 0 { lo = mid + 1 } else { hi = mid }
        }
        var k = lo
        while k < changes.count {
            let c = changes[k]
            let xR = kNow.addingProduct(-c.T, R)
            guard xR >= 0 else { break }
            if kMid.addingProduct(-c.T, R) < 0 {
                let x = xR / R
                a += c.h * 2 * x * x / Self.rho2 + c.b * 2 * x * x * x / (3 * Self.rho2)
            } else {
                let y = -kOld.addingProduct(-c.T, R) / R  // ρ − x
                a += -c.h * 2 * y * y / Self.rho2 + c.b * 2 * y * y * y / (3 * Self.rho2)
            }
            k += 1
        }
        return a
    }

    /// `A⁰(u)` at `u = t − ρ/2`, given `kMid = 1000·n − 4R` (so `(u − T)·R = kMid − T·R`, ms·Hz).
    /// Which side of a point `u` lies on is decided by the exact sign of that value, as for the
    /// changes in `carrierAmplitude`, so the two agree on every step.
    private func delayedCurve(_ kMid: Double) -> Double {
        let R = rate
        if kMid < 0 || kMid.addingProduct(-tEnd, R) >= 0 { return 0 }
        let A = amplitude, m = A.count
        var lo = 0, hi = m
        while lo < hi {
            let mid = (lo + hi) / 2
            if kMid.addingProduct(-A[mid].time, R) >= 0 { lo = mid + 1 } else { hi = mid }
        }
        let j = lo - 1
        if j < 0 { return A[0].value }
        if j == m - 1 { return A[m - 1].value }
        let p = A[j], q = A[j + 1]
        let d = kMid.addingProduct(-p.time, R) / R  // u − T_j, ms
        return p.value + (q.value - p.value) * d / (q.time - p.time)
    }

    /// §6 `E(t_n)`, before the gain and the limiter.
    func envelope(atFrame n: Int) -> Double {
        var sum = carrierAmplitude(atFrame: n)
        for i in burstsHolding(.frame(n)).reversed() {
            sum += transients[i].amplitude * envelope(transients[i], atFrame: n)
        }
        return sum
    }

    /// §6 `frac(Φ(t_n))` (for `n >= firstFrame`).
    func phase(atFrame n: Int) -> Double {
        var lo = 0, hi = pieces.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if order(pieces[mid].start, .frame(n)) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        let p = pieces[max(lo - 1, 0)]
        let u = secondsBetween(p.start, .frame(n))
        return Self.frac(p.phase + p.nu * u + p.slope * u * u / 2)
    }

    /// §6 and §7: `y[n] = L(g·E(t_n))·sin(2πΦ(t_n))` (or `s[n] = g·E(t_n)·sin(2πΦ(t_n))` when
    /// `limited == false`) for `n` in `range`; 0 outside `firstFrame ..< frameCount`.
    func samples(_ range: Range<Int>, limited: Bool = true) -> [Double] {
        range.map { n in
            guard n >= firstFrame && n < frameCount else { return 0 }
            let e = gain * envelope(atFrame: n)
            return (limited ? Self.limit(e) : e) * sin(2 * Double.pi * phase(atFrame: n))
        }
    }
}
