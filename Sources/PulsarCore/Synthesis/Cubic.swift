/// A cubic polynomial `c0 + c1·u + c2·u² + c3·u³` in a local variable `u`, evaluated in 64-bit.
/// The synthesis plan keeps every envelope as one of these around a chosen origin.
///
/// A plain value type: safe to use from any thread, including the real-time path.
struct Cubic: Sendable, Equatable {
    var c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0

    static let zero = Cubic()

    var isZero: Bool { c0 == 0 && c1 == 0 && c2 == 0 && c3 == 0 }

    @inline(__always)
    func value(at u: Double) -> Double { c0 + u * (c1 + u * (c2 + u * c3)) }

    /// The same polynomial around a new origin `d`: `q(u) = p(u + d)` (a Taylor shift).
    @inline(__always)
    func shifted(by d: Double) -> Cubic {
        Cubic(c0: value(at: d),
              c1: c1 + d * (2 * c2 + 3 * c3 * d),
              c2: c2 + 3 * c3 * d,
              c3: c3)
    }

    /// `q(u) = p(s·u)`: the polynomial in a variable scaled by `s`.
    @inline(__always)
    func scaled(by s: Double) -> Cubic {
        Cubic(c0: c0, c1: c1 * s, c2: c2 * s * s, c3: c3 * s * s * s)
    }

    static func + (a: Cubic, b: Cubic) -> Cubic {
        Cubic(c0: a.c0 + b.c0, c1: a.c1 + b.c1, c2: a.c2 + b.c2, c3: a.c3 + b.c3)
    }

    static func - (a: Cubic, b: Cubic) -> Cubic {
        Cubic(c0: a.c0 - b.c0, c1: a.c1 - b.c1, c2: a.c2 - b.c2, c3: a.c3 - b.c3)
    }

    static func * (k: Double, a: Cubic) -> Cubic {
        Cubic(c0: k * a.c0, c1: k * a.c1, c2: k * a.c2, c3: k * a.c3)
    }

    /// The largest value over `0 ... length`: at the ends or where the slope is 0.
    func maximum(upTo length: Double) -> Double {
        var m = max(c0, value(at: length))
        // Roots of c1 + 2·c2·u + 3·c3·u².
        let a = 3 * c3, b = 2 * c2, c = c1
        if a == 0 {
            if b != 0 { let u = -c / b; if u > 0 && u < length { m = max(m, value(at: u)) } }
        } else {
            let d = b * b - 4 * a * c
            if d >= 0 {
                let r = d.squareRoot()
                let u1 = (-b - r) / (2 * a), u2 = (-b + r) / (2 * a)
                if u1 > 0 && u1 < length { m = max(m, value(at: u1)) }
                if u2 > 0 && u2 < length { m = max(m, value(at: u2)) }
            }
        }
        return m
    }

    /// The line `v0 + slope·u`.
    static func line(_ v0: Double, slope: Double) -> Cubic { Cubic(c0: v0, c1: slope) }

    /// `from + (to − from) · S(u / width)` with the smoothstep `S(x) = 3x² − 2x³`
    /// (docs/signal-model.md §4.3).
    static func smoothstep(from: Double, to: Double, width: Double) -> Cubic {
        let h = to - from
        return Cubic(c0: from, c1: 0, c2: 3 * h / (width * width), c3: -2 * h / (width * width * width))
    }
}
