import Glibc

/// The magnitude spectrum of real frames of one power-of-two size `N`: a complex radix-2 FFT of
/// `N/2` points over the even and odd samples, then the split into the `N/2 + 1` bins of the
/// real transform. Twiddles (computed in 64-bit, stored as 32-bit, one contiguous table per
/// stage so a stage runs 8 butterflies at a time) and the bit-reversal order are made in `init`;
/// `magnitudes` allocates nothing.
///
/// Thread rules: one thread at a time (it owns its work buffers).
final class RealFFT {
    /// `N`, the frame length.
    let size: Int
    private let half: Int
    private let re: UnsafeMutablePointer<Float>
    private let im: UnsafeMutablePointer<Float>
    /// For each stage of length `L = 2^s` (`s ≥ 2`), `e^{−2πij/L}` for `j < L/2`, at offset `L/2 − 1`.
    private let cosines: UnsafeMutablePointer<Float>
    private let sines: UnsafeMutablePointer<Float>
    /// `e^{−2πik/N}` for `k ≤ N/2`: the split's twiddles.
    private let splitCosines: UnsafeMutablePointer<Float>
    private let splitSines: UnsafeMutablePointer<Float>
    private let reversed: UnsafeMutablePointer<Int32>

    /// `size` a power of two from 4 to 65536.
    init(size: Int) {
        precondition(size >= 4 && size <= 65_536 && size & (size - 1) == 0, "FFT size \(size) is not a power of two in 4...65536")
        self.size = size
        half = size / 2
        re = .allocate(capacity: half)
        im = .allocate(capacity: half)
        cosines = .allocate(capacity: half)
        sines = .allocate(capacity: half)
        var length = 2
        while length <= half {
            let h = length / 2
            for j in 0..<h {
                let angle = -2 * Double.pi * Double(j) / Double(length)
                cosines[h - 1 + j] = Float(cos(angle))
                sines[h - 1 + j] = Float(sin(angle))
            }
            length *= 2
        }
        splitCosines = .allocate(capacity: half + 1)
        splitSines = .allocate(capacity: half + 1)
        for k in 0...half {
            let angle = -2 * Double.pi * Double(k) / Double(size)
            splitCosines[k] = Float(cos(angle))
            splitSines[k] = Float(sin(angle))
        }
        reversed = .allocate(capacity: half)
        let bits = half.trailingZeroBitCount
        for i in 0..<half {
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            reversed[i] = Int32(r)
        }
    }

    deinit {
        re.deallocate(); im.deallocate()
        cosines.deallocate(); sines.deallocate()
        splitCosines.deallocate(); splitSines.deallocate()
        reversed.deallocate()
    }

    /// `|X_k|` for `k = 0 … N/2` of the real frame `x` (`N` samples) into `out` (`N/2 + 1`):
    /// `X_k = Σ x_n e^{−2πikn/N}`.
    ///
    /// One pass after another over the work buffers, each its own function (inlined: the same
    /// loops as one body, with no state between passes but the buffers).
    func magnitudes(of x: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) {
        loadBitReversed(x)
        firstStages()
        wideStages()
        split(into: out)
    }

    /// The even samples of `x` into `re`, the odd ones into `im`, in bit-reversed order.
    @inline(__always)
    private func loadBitReversed(_ x: UnsafePointer<Float>) {
        for n in 0..<half {
            let r = Int(reversed[n])
            re[r] = x[2 * n]
            im[r] = x[2 * n + 1]
        }
    }

    /// The butterfly stages of length 2 (twiddle 1) and 4 (twiddles 1 and −i), which need no
    /// multiplications.
    @inline(__always)
    private func firstStages() {
        let m = half
        // Stage of length 2: twiddle 1.
        var a = 0
        while a + 1 < m {
            let tr = re[a + 1], ti = im[a + 1]
            re[a + 1] = re[a] - tr; im[a + 1] = im[a] - ti
            re[a] += tr; im[a] += ti
            a += 2
        }
        // Stage of length 4: twiddles 1 and −i.
        if m >= 4 {
            a = 0
            while a < m {
                var tr = re[a + 2], ti = im[a + 2]
                re[a + 2] = re[a] - tr; im[a + 2] = im[a] - ti
                re[a] += tr; im[a] += ti
                tr = im[a + 3]; ti = -re[a + 3]           // (re + i·im) · (−i)
                re[a + 3] = re[a + 1] - tr; im[a + 3] = im[a + 1] - ti
                re[a + 1] += tr; im[a + 1] += ti
                a += 4
            }
        }
    }

    /// The stages of length 8 to `N/2`, 4 butterflies at a time on the stage's twiddle table.
    @inline(__always)
    private func wideStages() {
        let m = half
        var length = 8
        while length <= m {
            let h = length / 2
            let wc = cosines + (h - 1), ws = sines + (h - 1)
            var start = 0
            while start < m {
                let ar = re + start, ai = im + start, br = re + start + h, bi = im + start + h
                var j = 0
                while j < h {          // h is a multiple of 4 from here on
                    let c = UnsafeRawPointer(wc + j).loadUnaligned(as: SIMD4<Float>.self)
                    let s = UnsafeRawPointer(ws + j).loadUnaligned(as: SIMD4<Float>.self)
                    let xr = UnsafeRawPointer(br + j).loadUnaligned(as: SIMD4<Float>.self)
                    let xi = UnsafeRawPointer(bi + j).loadUnaligned(as: SIMD4<Float>.self)
                    let yr = UnsafeRawPointer(ar + j).loadUnaligned(as: SIMD4<Float>.self)
                    let yi = UnsafeRawPointer(ai + j).loadUnaligned(as: SIMD4<Float>.self)
                    let tr = xr * c - xi * s, ti = xr * s + xi * c
                    UnsafeMutableRawPointer(br + j).storeBytes(of: yr - tr, as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(bi + j).storeBytes(of: yi - ti, as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(ar + j).storeBytes(of: yr + tr, as: SIMD4<Float>.self)
                    UnsafeMutableRawPointer(ai + j).storeBytes(of: yi + ti, as: SIMD4<Float>.self)
                    j += 4
                }
                start += length
            }
            length *= 2
        }
    }

    /// The complex transform `Z` of `N/2` points split into the real transform's magnitudes:
    /// `E_k = (Z_k + conj Z_{m−k}) / 2`, `O_k = (Z_k − conj Z_{m−k}) / 2i`, `X_k = E_k + W^k O_k`;
    /// `X_0` and `X_m` are real (`Z_m` is `Z_0`).
    @inline(__always)
    private func split(into out: UnsafeMutablePointer<Float>) {
        let m = half
        out[0] = abs(re[0] + im[0])
        out[m] = abs(re[0] - im[0])
        var k = 1
        while k + 4 <= m {
            let a = UnsafeRawPointer(re + k).loadUnaligned(as: SIMD4<Float>.self)
            let b = UnsafeRawPointer(im + k).loadUnaligned(as: SIMD4<Float>.self)
            let cr = UnsafeRawPointer(re + (m - k - 3)).loadUnaligned(as: SIMD4<Float>.self)
            let dr = UnsafeRawPointer(im + (m - k - 3)).loadUnaligned(as: SIMD4<Float>.self)
            let c = SIMD4(cr[3], cr[2], cr[1], cr[0]), d = SIMD4(dr[3], dr[2], dr[1], dr[0])
            let er = 0.5 * (a + c), ei = 0.5 * (b - d)
            let or = 0.5 * (b + d), oi = -0.5 * (a - c)
            let wr = UnsafeRawPointer(splitCosines + k).loadUnaligned(as: SIMD4<Float>.self)
            let wi = UnsafeRawPointer(splitSines + k).loadUnaligned(as: SIMD4<Float>.self)
            let xr = er + wr * or - wi * oi
            let xi = ei + wr * oi + wi * or
            UnsafeMutableRawPointer(out + k).storeBytes(of: (xr * xr + xi * xi).squareRoot(), as: SIMD4<Float>.self)
            k += 4
        }
        while k < m {
            let a = re[k], b = im[k], c = re[m - k], d = im[m - k]
            let er = 0.5 * (a + c), ei = 0.5 * (b - d)
            let or = 0.5 * (b + d), oi = -0.5 * (a - c)
            let wr = splitCosines[k], wi = splitSines[k]
            let xr = er + wr * or - wi * oi
            let xi = ei + wr * oi + wi * or
            out[k] = (xr * xr + xi * xi).squareRoot()
            k += 1
        }
    }
}
