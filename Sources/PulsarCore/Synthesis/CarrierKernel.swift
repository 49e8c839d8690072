#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The inner loop of synthesis: one chunk of
/// `y[k] = (a0 + a1·k + a2·k² + a3·k³) · sin(φ0 + φ1·k + φ2·k²)`, `k = 0 ..< length`.
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
    var amplitude3: Double
    /// `e^{i·phase1}` when `phase2 == 0` (precomputed by the plan); ignored otherwise.
    var step: Complex

    /// Writes samples `writeRange` of the chunk to `out[k - writeRange.lowerBound]` and returns
    /// how many of them the envelope limiter touched. With `limit`, each lane's amplitude passes
    /// through `Limiter.apply` before it meets the phasor (docs/signal-model.md §7); the amplitude
    /// is never negative, so the sample is the limited envelope times the sine. Without it the
    /// caller knows the envelope stays at or below the knee, and the samples are the same.
    @inline(__always)
    func run(_ out: UnsafeMutablePointer<Float>, writeRange: Range<Int>, limit: Bool) -> Int {
        // Specialised loops: a constant frequency needs no rotation update, a linear amplitude no
        // higher differences, and an envelope under the knee no limiter.
        switch (phase2 != 0, amplitude2 != 0 || amplitude3 != 0, limit) {
        case (false, false, false): return loop(out, writeRange, No.self, No.self, No.self)
        case (false, false, true): return loop(out, writeRange, No.self, No.self, Yes.self)
        case (false, true, false): return loop(out, writeRange, No.self, Yes.self, No.self)
        case (false, true, true): return loop(out, writeRange, No.self, Yes.self, Yes.self)
        case (true, false, false): return loop(out, writeRange, Yes.self, No.self, No.self)
        case (true, false, true): return loop(out, writeRange, Yes.self, No.self, Yes.self)
        case (true, true, false): return loop(out, writeRange, Yes.self, Yes.self, No.self)
        case (true, true, true): return loop(out, writeRange, Yes.self, Yes.self, Yes.self)
        }
    }

    /// One specialised loop per combination of flags: the flags are types, so each combination is
    /// compiled separately with its branches folded away.
    ///
    /// A hot kernel, kept as one function on purpose (longer than the house limit): the lane
    /// state (phasors, rotations, amplitude and its differences) is set up and stepped as locals
    /// of this body, which the inlined `advance()` updates, so the optimizer keeps it in vector
    /// registers through the chunk. Split into functions, that state would cross calls as
    /// `inout` arguments or a struct, in memory, in the per-sample loop.
    private func loop<Chirp: KernelFlag, Cubic: KernelFlag, Limit: KernelFlag>(
        _ out: UnsafeMutablePointer<Float>, _ range: Range<Int>, _: Chirp.Type, _: Cubic.Type, _: Limit.Type
    ) -> Int {
        let chirp = Chirp.isOn, cubic = Cubic.isOn, limit = Limit.isOn
        // Lane start values z_l = e^{iφ(l)}, amplitudes and their 8-step differences, built in
        // 64-bit and rounded to 32-bit once. The 8-step rotation of lane l at step m is
        // W_l(m) = e^{i(φ(l+8m+8) − φ(l+8m))} = R(m) · V_l with R(m) = e^{i(8φ1 + 64φ2 + 128φ2·m)}
        // and V_l = e^{i·16φ2·l}: R advances in 64-bit, so rotation errors do not pile up in the
        // 32-bit lanes (they would grow the phase error with the cube of the chunk length).
        var zr = SIMD8<Float>(), zi = SIMD8<Float>()
        var vr = SIMD8<Float>(), vi = SIMD8<Float>()
        // Lane l holds P(l + 8m) at step m; d1, d2, d3 are its forward differences in m, set up
        // exactly in 64-bit from four values of the cubic.
        var amp = SIMD8<Float>(), d1 = SIMD8<Float>(), d2 = SIMD8<Float>(), d3 = SIMD8<Float>()
        @inline(__always)
        func p(_ k: Double) -> Double { amplitude0 + k * (amplitude1 + k * (amplitude2 + k * amplitude3)) }
        var z = Complex(angle: phase0)
        let g0 = chirp ? Complex(angle: phase1 + phase2) : step   // φ(l+1) − φ(l) at l = 0
        var g = g0
        // Without a chirp the steps are 1, the per-sample turn comes with the piece and the
        // 8-step rotation is its 8th power (three squarings in 64-bit): one `sin`/`cos` pair a
        // chunk instead of six.
        let one = Complex(re: 1, im: 0)
        let gStep = chirp ? Complex(angle: 2 * phase2) : one
        var v = one
        let vStep = chirp ? Complex(angle: 16 * phase2) : one
        for lane in 0..<8 {
            let l = Double(lane)
            zr[lane] = Float(z.re)
            zi[lane] = Float(z.im)
            vr[lane] = Float(v.re)
            vi[lane] = Float(v.im)
            let p0 = p(l), p1 = p(l + 8)
            amp[lane] = Float(p0)
            if cubic {
                let p2 = p(l + 16), p3 = p(l + 24)
                d1[lane] = Float(p1 - p0)
                d2[lane] = Float(p2 - 2 * p1 + p0)
                d3[lane] = Float(p3 - 3 * p2 + 3 * p1 - p0)
            } else {
                d1[lane] = Float(8 * amplitude1)
            }
            z = z * g
            if chirp {
                g = g * gStep
                v = v * vStep
            }
        }
        var rotation: Complex
        if chirp {
            rotation = Complex(angle: 8 * phase1 + 64 * phase2)
        } else {
            let g2 = g0 * g0, g4 = g2 * g2
            rotation = g4 * g4
        }
        let rotationStep = chirp ? Complex(angle: 128 * phase2) : one
        // Without a chirp every lane turns by the same constant.
        let constantR = SIMD8<Float>(repeating: Float(rotation.re)), constantI = SIMD8<Float>(repeating: Float(rotation.im))

        @inline(__always)
        func advance() {
            let wr: SIMD8<Float>, wi: SIMD8<Float>
            if chirp {
                let rr = Float(rotation.re), ri = Float(rotation.im)
                wr = vr * rr - vi * ri
                wi = vr * ri + vi * rr
                rotation = rotation * rotationStep
            } else {
                wr = constantR
                wi = constantI
            }
            let nr = zr * wr - zi * wi
            let ni = zr * wi + zi * wr
            zr = nr
            zi = ni
            amp += d1
            if cubic {
                d1 += d2
                d2 += d3
            }
        }

        var limited = 0
        let start = range.lowerBound, end = range.upperBound
        var base = 0
        while base + 8 <= start {
            advance()
            base += 8
        }
        // Partial vector at the start.
        if base < start || (base < end && base + 8 > end) {
            let y = Self.samples(amp, zi, limit, start - base, end - base, &limited)
            for lane in 0..<8 where base + lane >= start && base + lane < end {
                out[base + lane - start] = y[lane]
            }
            advance()
            base += 8
        }
        while base + 8 <= end {
            UnsafeMutableRawPointer(out + (base - start)).storeBytes(of: Self.samples(amp, zi, limit, 0, 8, &limited), as: SIMD8<Float>.self)
            advance()
            base += 8
        }
        if base < end {
            let y = Self.samples(amp, zi, limit, 0, end - base, &limited)
            for lane in 0..<(end - base) { out[base + lane - start] = y[lane] }
        }
        return limited
    }
}

extension CarrierKernel {
    /// The samples of one step: the envelope `amp` (through the limiter when `limit`) times the
    /// sine `zi`; lanes `first ..< end` that the limiter touched are counted into `limited`.
    /// A static function with no captures, so the loop's state needs no run-time access checks.
    @inline(__always)
    static func samples(_ amp: SIMD8<Float>, _ zi: SIMD8<Float>, _ limit: Bool, _ first: Int, _ end: Int,
                        _ limited: inout Int) -> SIMD8<Float> {
        guard limit else { return amp * zi }
        let above = amp .> SIMD8<Float>(repeating: Limiter.knee)
        guard any(above) else { return amp * zi }
        return limitedSamples(amp, zi, above, first, end, &limited)
    }

    /// The step's samples when some lane's envelope is above the knee (out of line, so the
    /// common path stays small enough to inline).
    @inline(never)
    static func limitedSamples(_ amp: SIMD8<Float>, _ zi: SIMD8<Float>, _ above: SIMDMask<SIMD8<Int32>>,
                               _ first: Int, _ end: Int, _ limited: inout Int) -> SIMD8<Float> {
        let e = amp.replacing(with: Limiter.applyAboveKnee(amp), where: above)
        let ones = SIMD8<Float>().replacing(with: 1, where: above)
        // Lanes `first ..< end` are stored (`end` may lie past this step's 8 lanes).
        let lo = max(first, 0), hi = min(end, 8)
        if lo == 0 && hi == 8 {
            limited += Int(ones.sum())
        } else if lo < hi {
            for lane in lo..<hi { limited += Int(ones[lane]) }
        }
        // The 32-bit phasor's magnitude drifts from 1 by a few parts in a million: cap the
        // product so a limited sample stays inside (−1, 1).
        let y = e * zi, ceiling = Limiter.ceiling
        return y.replacing(with: ceiling, where: y .> ceiling).replacing(with: -ceiling, where: y .< -ceiling)
    }
}

/// A compile-time switch for `CarrierKernel`'s specialised loops.
protocol KernelFlag {
    static var isOn: Bool { get }
}

enum Yes: KernelFlag {
    static var isOn: Bool { true }
}

enum No: KernelFlag {
    static var isOn: Bool { false }
}

/// A 64-bit complex number, for the kernel's exact lane set-up.
struct Complex: Sendable {
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
