#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memoryless soft limiter of docs/signal-model.md §6: the identity up to `knee`, then a
/// tanh curve that approaches but never reaches 1. Memoryless so that random access stays exact.
///
/// Real-time safe: no allocation, no locks.
public enum Limiter {
    /// Level up to which the limiter is transparent.
    public static let knee: Float = 0.8
    /// Largest output magnitude: the largest float below 1.
    public static let ceiling: Float = 0x1.fffffep-1
    /// `1 − knee` and its inverse: the tanh's scale.
    static let span: Float = 0.2
    static let inverseSpan: Float = 5

    /// The limiter's transfer function: the vector path on one lane, so the samples the kernel
    /// limits eight at a time and the ones the mixer limits one at a time are the same function.
    @inline(__always)
    public static func apply(_ x: Float) -> Float {
        let m = abs(x)
        if m <= knee { return x }
        let y = applyAboveKnee(SIMD8(repeating: m))[0]
        return x < 0 ? -y : y
    }

    /// `apply` on eight magnitudes above the knee at once. The rational tanh reaches 1 for large
    /// inputs: the result is capped just below 1 to keep `|y| < 1`.
    @inline(__always)
    static func applyAboveKnee(_ m: SIMD8<Float>) -> SIMD8<Float> {
        let y = knee + span * tanh((m - knee) * inverseSpan)
        return y.replacing(with: ceiling, where: .!(y .< ceiling))
    }

    /// `tanh(x)` for `x >= 0` as the rational function `x·P(x²)/Q(x²)` (degrees 13 and 6, the
    /// coefficients of Eigen's float tanh), with `x` capped at 7.905 where it reaches 1: within
    /// 3.5e−7 of the true value, and with no `libm` call, so the kernel runs it on whole vectors.
    @inline(__always)
    static func tanh(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let c = x.replacing(with: 7.90531110763549805, where: x .> 7.90531110763549805), c2 = c * c
        var p = SIMD8<Float>(repeating: -2.76076847742355e-16)
        p = p * c2 + 2.00018790482477e-13
        p = p * c2 + -8.60467152213735e-11
        p = p * c2 + 5.12229709037114e-08
        p = p * c2 + 1.48572235717979e-05
        p = p * c2 + 6.37261928875436e-04
        p = p * c2 + 4.89352455891786e-03
        var q = SIMD8<Float>(repeating: 1.19825839466702e-06)
        q = q * c2 + 1.18534705686654e-04
        q = q * c2 + 2.26843463243900e-03
        q = q * c2 + 4.89352518554385e-03
        return c * p / q
    }

    /// `apply`, with NaN as 0: a sample the scan found above the knee or not a number.
    @inline(__always)
    static func limitSample(_ x: Float) -> Float {
        x.isNaN ? 0 : apply(x)
    }

    /// Limits `buffer` in place and returns how many samples were above the knee. A NaN (its
    /// bits are above the knee's too) becomes 0 and is counted; ±∞ becomes ±`ceiling`.
    @discardableResult
    public static func process(_ buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let count = buffer.count
        var limited = 0
        var i = 0
        // Scan 64 samples at a time for a magnitude above the knee, on the bit patterns: a
        // non-negative float orders like its bits, and `knee &- |x|` borrows into the top bit
        // exactly when |x| > knee. Only groups that hold such a sample are fixed up.
        let magnitudeMask = SIMD8<UInt32>(repeating: 0x7FFF_FFFF)
        let kneeBits = SIMD8<UInt32>(repeating: knee.bitPattern)
        let signShift = SIMD8<UInt32>(repeating: 31)
        while i + 64 <= count {
            var above = SIMD8<UInt32>()
            for g in stride(from: i, to: i + 64, by: 8) {
                let bits = UnsafeRawPointer(base + g).loadUnaligned(as: SIMD8<UInt32>.self) & magnitudeMask
                above |= (kneeBits &- bits) &>> signShift
            }
            if above != SIMD8<UInt32>() {
                for j in i..<(i + 64) where !(abs(base[j]) <= knee) {
                    base[j] = limitSample(base[j])
                    limited += 1
                }
            }
            i += 64
        }
        while i < count {
            if !(abs(base[i]) <= knee) {
                base[i] = limitSample(base[i])
                limited += 1
            }
            i += 1
        }
        return limited
    }
}
