import Glibc

/// An iterative radix-2 FFT of one power-of-two size; the twiddles and the bit-reversal order
/// are computed once, in `init`.
///
/// Thread rules: immutable after `init`; `transform` and `levels` may run on any thread, any
/// number at once (each call works on its own arrays).
public struct FFT: Sendable {
    public let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    /// Sizes from 2 to 65536 that are powers of two; nil otherwise.
    public init?(size: Int) {
        guard size >= 2, size <= 65_536, size & (size - 1) == 0 else { return nil }
        self.size = size
        let half = size / 2
        cosines = (0..<half).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<half).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    /// The discrete Fourier transform of (`real`, `imag`) in place: `X_k = Σ x_n e^(−2πikn/N)`.
    /// Both arrays must have `size` elements.
    public func transform(real: inout [Double], imag: inout [Double]) {
        precondition(real.count == size && imag.count == size, "the arrays must have the FFT's size")
        real.withUnsafeMutableBufferPointer { re in
            imag.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cs in
                    sines.withUnsafeBufferPointer { sn in
                        reversed.withUnsafeBufferPointer { rev in Self.transform(re, im, cs, sn, rev, size) }
                    }
                }
            }
        }
    }

    /// The butterflies on buffers (no bounds checks in the inner loop: the indices stay below
    /// `size` by construction); the same arithmetic in the same order as on arrays.
    private static func transform(_ real: UnsafeMutableBufferPointer<Double>, _ imag: UnsafeMutableBufferPointer<Double>,
                                  _ cosines: UnsafeBufferPointer<Double>, _ sines: UnsafeBufferPointer<Double>,
                                  _ reversed: UnsafeBufferPointer<Int>, _ size: Int) {
        for i in 0..<size where reversed[i] > i {
            real.swapAt(i, reversed[i])
            imag.swapAt(i, reversed[i])
        }
        let re = real.baseAddress!, im = imag.baseAddress!, cs = cosines.baseAddress!, sn = sines.baseAddress!
        var length = 2
        while length <= size {
            let half = length / 2, stride = size / length
            for start in Swift.stride(from: 0, to: size, by: length) {
                for k in 0..<half {
                    let c = cs[k * stride], s = sn[k * stride]
                    let a = start + k, b = a + half
                    let tr = re[b] * c - im[b] * s, ti = re[b] * s + im[b] * c
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                }
            }
            length *= 2
        }
    }

    /// The spectrum of `samples` (at most `size` of them, zero-padded to `size`) under a Hann
    /// window as long as they are, in dB of full scale: bin `k` (0 … size/2, `k · rate / size`
    /// Hz) of a sine of amplitude 1 at a bin's centre reads 0 dB. Silence reads `floor`.
    public func levels(of samples: [Float], floor: Double = -200) -> [Double] {
        let count = min(samples.count, size)
        guard count > 1 else { return Array(repeating: floor, count: size / 2 + 1) }
        var real = [Double](repeating: 0, count: size), imag = [Double](repeating: 0, count: size)
        let phase = 2 * Double.pi / Double(count)
        for i in 0..<count { real[i] = Double(samples[i]) * (0.5 - 0.5 * cos(phase * Double(i))) }
        transform(real: &real, imag: &imag)
        // A Hann-windowed sine of amplitude A over n samples peaks at A · n / 4.
        let fullScale = Double(count) / 4
        return (0...(size / 2)).map { k in
            let magnitude = (real[k] * real[k] + imag[k] * imag[k]).squareRoot() / fullScale
            return magnitude > 0 ? max(20 * log10(magnitude), floor) : floor
        }
    }
}
