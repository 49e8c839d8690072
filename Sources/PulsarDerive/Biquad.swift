import Glibc

/// One biquad section in `T` (32-bit float as AOSP, or 64-bit), transposed direct form II:
/// `y = b0·x + s1; s1 = b1·x − a1·y + s2; s2 = b2·x − a2·y` — the form AOSP's filters run in.
/// A plain value: its owner steps it.
struct Biquad<T: BinaryFloatingPoint> {
    var b0, b1, b2, a1, a2: T
    var s1: T = 0
    var s2: T = 0

    /// The section of coefficients designed in 64-bit, each rounded once to `T`.
    init(_ c: HapticGenerator.Coefficients) {
        b0 = T(c.b0); b1 = T(c.b1); b2 = T(c.b2); a1 = T(c.a1); a2 = T(c.a2)
    }

    @inline(__always)
    mutating func step(_ x: T) -> T {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        return y
    }

    mutating func clear() {
        s1 = 0
        s2 = 0
    }

}

extension Biquad where T == Float {
    /// A 2nd-order Butterworth-family low-pass (`q` = 1/√2 for Butterworth) by the bilinear
    /// transform with the corner pre-warped (the RBJ audio EQ cookbook).
    static func lowPass(_ hertz: Double, q: Double, sampleRate: Double) -> HapticGenerator.Coefficients {
        let w = 2 * Double.pi * hertz / sampleRate, cw = cos(w), alpha = sin(w) / (2 * q)
        let a0 = 1 + alpha
        return HapticGenerator.Coefficients(b0: (1 - cw) / 2 / a0, b1: (1 - cw) / a0, b2: (1 - cw) / 2 / a0,
                                            a1: -2 * cw / a0, a2: (1 - alpha) / a0)
    }

    /// The high-pass counterpart of `lowPass`.
    static func highPass(_ hertz: Double, q: Double, sampleRate: Double) -> HapticGenerator.Coefficients {
        let w = 2 * Double.pi * hertz / sampleRate, cw = cos(w), alpha = sin(w) / (2 * q)
        let a0 = 1 + alpha
        return HapticGenerator.Coefficients(b0: (1 + cw) / 2 / a0, b1: -(1 + cw) / a0, b2: (1 + cw) / 2 / a0,
                                            a1: -2 * cw / a0, a2: (1 - alpha) / a0)
    }
}
