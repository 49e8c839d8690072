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
    public static let ceiling: Float = Float(1).nextDown

    /// The limiter's transfer function.
    @inline(__always)
    public static func apply(_ x: Float) -> Float {
        let m = abs(x)
        if m <= knee { return x }
        // In 32-bit the tanh saturates to 1 for large inputs: cap just below 1 to keep |y| < 1.
        let y = min(knee + (1 - knee) * tanhf((m - knee) / (1 - knee)), ceiling)
        return x < 0 ? -y : y
    }

    /// Limits `buffer` in place and returns how many samples were above the knee.
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
                for j in i..<(i + 64) where abs(base[j]) > knee {
                    base[j] = apply(base[j])
                    limited += 1
                }
            }
            i += 64
        }
        while i < count {
            if abs(base[i]) > knee {
                base[i] = apply(base[i])
                limited += 1
            }
            i += 1
        }
        return limited
    }
}
