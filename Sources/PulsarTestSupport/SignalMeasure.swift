#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measurements of rendered signals that share no code with synthesis: a plain radix-2 FFT for
/// the energy above a frequency, and the peaks of a signal between its zero crossings.
public enum SignalMeasure {
    /// The share of `x`'s energy above `hertz`, in dB (`10·log10(E_above / E_total)`), from the
    /// spectrum of the whole signal zero-padded to a power of two; −infinity for silence.
    public static func energyAbove(_ hertz: Double, in x: [Float], rate: Double) -> Double {
        var size = 1
        while size < x.count { size <<= 1 }
        var re = [Double](repeating: 0, count: size), im = [Double](repeating: 0, count: size)
        for (i, v) in x.enumerated() { re[i] = Double(v) }
        fft(&re, &im)
        var above = 0.0, total = 0.0
        for k in 0...(size / 2) {
            let weight = (k == 0 || k == size / 2) ? 1.0 : 2.0
            let e = weight * (re[k] * re[k] + im[k] * im[k])
            total += e
            if Double(k) * rate / Double(size) > hertz { above += e }
        }
        guard total > 0 else { return -.infinity }
        return above > 0 ? 10 * log10(above / total) : -.infinity
    }

    /// In-place iterative radix-2 FFT; the count must be a power of two.
    static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<max(n, 1) {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        // Twiddles once: e^{−2πik/n}; a stage of length m uses every (n/m)-th.
        var wr = [Double](repeating: 0, count: n / 2), wi = wr
        for k in 0..<(n / 2) {
            wr[k] = cos(-2 * Double.pi * Double(k) / Double(n))
            wi[k] = sin(-2 * Double.pi * Double(k) / Double(n))
        }
        var length = 2
        while length <= n {
            let stride = n / length
            for start in Swift.stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let cr = wr[k * stride], ci = wi[k * stride]
                    let a = start + k, b = a + length / 2
                    let tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            length <<= 1
        }
    }

    /// The half-cycles of `x` inside `range`: the intervals between consecutive sign changes
    /// (a sample of 0 counts with the positive side), clipped to `range`.
    public static func halfCycles(of x: [Float], in range: Range<Int>) -> [Range<Int>] {
        var cuts = [range.lowerBound]
        for n in (range.lowerBound + 1)..<range.upperBound where (x[n] >= 0) != (x[n - 1] >= 0) { cuts.append(n) }
        cuts.append(range.upperBound)
        return zip(cuts, cuts.dropFirst()).filter { $0 < $1 }.map { $0..<$1 }
    }

    /// Largest magnitude of `x` over `range` (0 for an empty range).
    public static func peak(of x: [Float], in range: Range<Int>) -> Float {
        var m: Float = 0
        for n in range { m = max(m, abs(x[n])) }
        return m
    }
}
