#if canImport(Glibc)
import Glibc
#endif

/// The waveforms of an emphasis burst (docs/actuators.md, "Band-limited bursts"): drawn whole, as
/// Meta's renderer draws them, or as their sine series cut at a frequency.
///
/// Every shape is odd about phase 0 and has a sine series `shape(p) = Σₖ bₖ · sin(2πkp)`:
/// saw `bₖ = 2 / (πk)`; square `4 / (πk)` for odd `k`, 0 for even; triangle
/// `(−1)^((k−1)/2) · 8 / (π²k²)` for odd `k`; sine `b₁ = 1`. A band-limited burst at `h` Hz keeps
/// the harmonics `k = 1…K` with `k · h` at or below the limit and below half the rate.
///
/// A plain namespace: safe from any thread.
public enum BurstWaveform {
    /// One period of `shape` at phase `p` in 0..<1, drawn whole.
    public static func whole(_ shape: MetaActuatorConfig.Shape, _ p: Double) -> Double {
        switch shape {
        case .saw: return 1 - 2 * p
        case .sine: return sin(2 * Double.pi * p)
        case .square: return p < 0.5 ? 1 : -1
        case .triangle: return 1 - abs(2 - abs(3 - 4 * p))
        }
    }

    /// The sine-series coefficient `bₖ` of `shape` (`k ≥ 1`).
    public static func coefficient(_ shape: MetaActuatorConfig.Shape, _ k: Int) -> Double {
        let odd = k % 2 == 1
        switch shape {
        case .saw: return 2 / (Double.pi * Double(k))
        case .sine: return k == 1 ? 1 : 0
        case .square: return odd ? 4 / (Double.pi * Double(k)) : 0
        case .triangle: return odd ? ((k / 2) % 2 == 0 ? 1 : -1) * 8 / (Double.pi * Double.pi * Double(k * k)) : 0
        }
    }

    /// `shape` at phase `p` from its first `harmonics` terms: `Σₖ bₖ · sin(2π · frac(k · p))`,
    /// summed from `k = 1` up in Double.
    public static func limited(_ shape: MetaActuatorConfig.Shape, _ p: Double, harmonics: Int) -> Double {
        if shape == .sine { return sin(2 * Double.pi * p) }
        var sum = 0.0
        for k in 1...max(harmonics, 1) {
            let b = coefficient(shape, k)
            guard b != 0 else { continue }
            let x = Double(k) * p
            sum += b * sin(2 * Double.pi * (x - x.rounded(.down)))
        }
        return sum
    }

    /// The most harmonics a burst is drawn with (a 94 Hz burst at 48 kHz has 255 below half the
    /// rate; a lower one is cut here, at 256).
    public static let maximumHarmonics = 256

    /// How many harmonics of a burst at `hertz` a limit keeps: the `k ≥ 1` with `k · hertz ≤ limit`
    /// and `k · hertz < rate / 2` (products in Double, no tolerance), at least the fundamental and
    /// at most `maximumHarmonics`.
    public static func harmonics(hertz: Double, limit: Double, rate: Double) -> Int {
        guard hertz > 0 else { return 1 }
        var k = 1
        while k < maximumHarmonics, Double(k + 1) * hertz <= limit, Double(k + 1) * hertz < rate / 2 { k += 1 }
        return k
    }

    /// `Σ aₖ²`, `Σ bₖ²` and `Σ aₖ · bₖ` of two shapes' coefficients, `k = 1 … 2¹⁶`: what
    /// `keptShare` divides by, once per pair of shapes.
    public static func powerSums(_ shapes: (MetaActuatorConfig.Shape, MetaActuatorConfig.Shape)) -> (aa: Double, bb: Double, ab: Double) {
        var sums = (aa: 0.0, bb: 0.0, ab: 0.0)
        for k in 1...65536 {
            let (a, b) = (coefficient(shapes.0, k), coefficient(shapes.1, k))
            sums.aa += a * a
            sums.bb += b * b
            sums.ab += a * b
        }
        return sums
    }

    /// The share of a burst's energy (its mean square over a period) that the first `harmonics`
    /// terms keep, for the mix `weights.0 · a + weights.1 · b` of two shapes: by Parseval,
    /// `Σ_{k ≤ K} cₖ² / Σ_k cₖ²` with `cₖ = w₀ · aₖ + w₁ · bₖ`, the whole sum taken to 2¹⁶ terms
    /// (`w₀² · Σaₖ² + w₁² · Σbₖ² + 2 · w₀w₁ · Σaₖbₖ` from `powerSums`). 1 for a silent mix.
    public static func keptShare(_ shapes: (MetaActuatorConfig.Shape, MetaActuatorConfig.Shape), weights: (Double, Double),
                                 harmonics: Int, sums: (aa: Double, bb: Double, ab: Double)? = nil) -> Double {
        let s = sums ?? powerSums(shapes)
        let total = weights.0 * weights.0 * s.aa + weights.1 * weights.1 * s.bb + 2 * weights.0 * weights.1 * s.ab
        var kept = 0.0
        for k in 1...max(1, min(harmonics, 65536)) {
            let c = weights.0 * coefficient(shapes.0, k) + weights.1 * coefficient(shapes.1, k)
            kept += c * c
        }
        return total > 0 ? min(kept / total, 1) : 1
    }
}
