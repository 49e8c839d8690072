#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inner loop of synthesis: one chunk of
/// `y[k] = (a0 + a1·k + a2·k²) · sin(φ0 + φ1·k + φ2·k²)`, `k = 0 ..< length`.
///
/// The phase is carried by complex phasors in 8 interleaved 32-bit lanes (lane `l` holds
/// `k ≡ l mod 8`), each started from values computed in 64-bit and advanced by complex
/// multiplication, so a sample costs a few multiply-adds and no `sin`. The chunk is always
/// evaluated from `k = 0`; `writeRange` only selects which samples are stored, so the samples
/// do not depend on where a render starts (docs/signal-model.md, Precision).
///
/// Real-time safe: no allocation, no locks.
struct CarrierKernel {
    /// Longest chunk: phasor error grows with the number of steps, so chunks restart here.
    static let blockLength = 1024

    var phase0: Double
    var phase1: Double
    var phase2: Double
    var amplitude0: Double
    var amplitude1: Double
    var amplitude2: Double

    /// Writes (or adds) samples `writeRange` of the chunk to `out[k - writeRange.lowerBound]`.
    @inline(__always)
    func run(_ out: UnsafeMutablePointer<Float>, writeRange: Range<Int>, accumulate: Bool) {
        if phase2 == 0 {
            if accumulate { loop(out, writeRange, chirp: false, accumulate: true) } else { loop(out, writeRange, chirp: false, accumulate: false) }
        } else {
            if accumulate { loop(out, writeRange, chirp: true, accumulate: true) } else { loop(out, writeRange, chirp: true, accumulate: false) }
        }
    }

    @inline(__always)
    private func loop(_ out: UnsafeMutablePointer<Float>, _ range: Range<Int>, chirp: Bool, accumulate: Bool) {
        // Lane start values z_l = e^{iφ(l)} and per-lane 8-step rotations W_l = e^{i(φ(l+8) − φ(l))},
        // built in 64-bit from five sin/cos pairs and complex products.
        var zr = SIMD8<Float>(), zi = SIMD8<Float>()
        var wr = SIMD8<Float>(), wi = SIMD8<Float>()
        var z = Complex(angle: phase0)
        var g = Complex(angle: phase1 + phase2)          // φ(l+1) − φ(l) at l = 0
        let gStep = Complex(angle: 2 * phase2)
        var w = Complex(angle: 8 * phase1 + 64 * phase2)  // W_0
        let wStep = Complex(angle: 16 * phase2)
        for lane in 0..<8 {
            zr[lane] = Float(z.re)
            zi[lane] = Float(z.im)
            wr[lane] = Float(w.re)
            wi[lane] = Float(w.im)
            z = z * g
            if chirp {
                g = g * gStep
                w = w * wStep
            }
        }
        let c = Complex(angle: 128 * phase2)
        let cr = Float(c.re), ci = Float(c.im)
        let a0 = Float(amplitude0), a1 = Float(amplitude1), a2 = Float(amplitude2)
        var k = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        let eight = SIMD8<Float>(repeating: 8)

        @inline(__always)
        func advance() {
            let nr = zr * wr - zi * wi
            let ni = zr * wi + zi * wr
            zr = nr
            zi = ni
            if chirp {
                let vr = wr * cr - wi * ci
                let vi = wr * ci + wi * cr
                wr = vr
                wi = vi
            }
            k += eight
        }

        let start = range.lowerBound, end = range.upperBound
        var base = 0
        while base + 8 <= start {
            advance()
            base += 8
        }
        // Partial vector at the start.
        if base < start || (base < end && base + 8 > end) {
            let y = (a0 + k * (a1 + k * a2)) * zi
            for lane in 0..<8 where base + lane >= start && base + lane < end {
                let p = out + (base + lane - start)
                p.pointee = accumulate ? p.pointee + y[lane] : y[lane]
            }
            advance()
            base += 8
        }
        while base + 8 <= end {
            let y = (a0 + k * (a1 + k * a2)) * zi
            let raw = UnsafeMutableRawPointer(out + (base - start))
            if accumulate {
                raw.storeBytes(of: raw.loadUnaligned(as: SIMD8<Float>.self) + y, as: SIMD8<Float>.self)
            } else {
                raw.storeBytes(of: y, as: SIMD8<Float>.self)
            }
            advance()
            base += 8
        }
        if base < end {
            let y = (a0 + k * (a1 + k * a2)) * zi
            for lane in 0..<(end - base) {
                let p = out + (base + lane - start)
                p.pointee = accumulate ? p.pointee + y[lane] : y[lane]
            }
        }
    }
}

/// A 64-bit complex number, for the kernel's exact lane set-up.
struct Complex {
    var re: Double
    var im: Double

    @inline(__always)
    init(re: Double, im: Double) {
        self.re = re
        self.im = im
    }

    /// `e^{i·angle}`.
    @inline(__always)
    init(angle: Double) {
        re = cos(angle)
        im = sin(angle)
    }

    @inline(__always)
    static func * (a: Complex, b: Complex) -> Complex {
        Complex(re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re)
    }
}
