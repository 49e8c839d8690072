import Glibc

/// The onset detector's spectrum (docs/derive.md §6): third-octave log band levels of a 23 ms
/// STFT every 5 ms, kept for every frame so the rules after the peak picking can look ahead.
struct OnsetSpectrum {
    /// `L = ln(1 + λ·g·m)`: the knee at −60 dB below a full-scale peak.
    static let logScale: Float = 1000
    /// The most the part is raised by `g` before its levels are taken: 30 dB.
    static let largestGain: Float = 31.622_776

    /// `g`, the gain that brings the part's largest sample magnitude to full scale, at most
    /// `largestGain` (1 for a silent part): onsets do not depend on the level a sound is mastered
    /// or recorded at, and a part of only faint hiss is not raised into the range of real sound.
    static func gain(_ x: UnsafePointer<Float>, count n: Int) -> Float {
        var peak: Float = 0
        for i in 0..<n { peak = max(peak, abs(x[i])) }
        return peak > 0 ? min(1 / peak, largestGain) : 1
    }
    static let lowestHertz = 30.0
    static let highestHertz = 16_000.0

    /// The bands' levels, frame after frame: `levels[k · bandCount + i]`.
    var levels: [Float]
    let bandCount: Int
    /// Each band's centre on the brightness scale, 0 at 100 Hz and 1 at 8 kHz.
    let positions: [Float]

    /// `frameCount` frames.
    var frameCount: Int { bandCount == 0 ? 0 : levels.count / bandCount }

    /// The band level `i` of frame `k`, the frame clamped to the part (it goes on before its
    /// start and after its end as it begins and ends).
    @inline(__always)
    func level(_ k: Int, _ i: Int) -> Float { levels[min(max(k, 0), frameCount - 1) * bandCount + i] }

    /// Third-octave bands of the bins from 30 Hz to `min(16 kHz, R/2)`; each bin in the band its
    /// centre falls in, empty bands dropped.
    static func bands(size: Int, sampleRate: Double) -> [Range<Int>] {
        let binHertz = sampleRate / Double(size)
        let firstBin = max(1, Int((lowestHertz / binHertz).rounded(.up)))
        let lastBin = min(size / 2 - 1, Int((highestHertz / binHertz).rounded(.down)))
        guard firstBin <= lastBin else { return [] }
        var bands: [Range<Int>] = []
        var bandStart = firstBin
        func bandIndex(_ b: Int) -> Int { Int((3 * log2(Double(b) * binHertz / lowestHertz)).rounded(.down)) }
        for b in (firstBin + 1)...(lastBin + 1) where b > lastBin || bandIndex(b) != bandIndex(bandStart) {
            bands.append(bandStart..<b)
            bandStart = b
        }
        return bands
    }

    /// The levels of `x` (`count` samples) on the frames centred at `centres`, windows of `size`.
    init(_ x: UnsafePointer<Float>, count n: Int, sampleRate: Double, centres: [Int], size: Int) {
        let bands = Self.bands(size: size, sampleRate: sampleRate)
        let binHertz = sampleRate / Double(size)
        bandCount = bands.count
        positions = bands.map { band in
            Float(log((Double(band.lowerBound) * Double(band.upperBound - 1)).squareRoot() * binHertz / 100) / log(80.0))
        }
        levels = [Float](repeating: 0, count: bands.count * centres.count)
        guard !bands.isEmpty else { return }
        let fft = RealFFT(size: size)
        // The work buffers, owned here: the window, its running sum of squares, a frame, its magnitudes.
        let w = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let w2 = UnsafeMutablePointer<Double>.allocate(capacity: size + 1)
        let f = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let m = UnsafeMutablePointer<Float>.allocate(capacity: size / 2 + 1)
        defer { w.deallocate(); w2.deallocate(); f.deallocate(); m.deallocate() }
        w2[0] = 0
        for j in 0..<size {
            w[j] = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(j) / Double(size)))
            w2[j + 1] = w2[j] + Double(w[j] * w[j])
        }
        let scaled = Self.logScale * Self.gain(x, count: n)
        let weights = bands.map { 1 / Float($0.count) }
        let half = size / 2
        levels.withUnsafeMutableBufferPointer { out in
            for k in centres.indices {
                // A window that would reach before the part's start or past its end is the part's
                // first or last whole window: the part goes on before its start as it begins (a
                // sound already playing at its first sample is not an onset) and after its end as
                // it ends. Only a part shorter than a window is zero-padded.
                let first = min(max(centres[k] - half, 0), max(n - size, 0))
                let lo = min(max(0, -first), size), hi = max(min(size, n - first), lo)
                Self.windowed(x + first, w, into: f, size: size, lo: lo, hi: hi)
                fft.magnitudes(of: UnsafePointer(f), into: m)
                // A full-scale sine reads 1; a window cut by the part's end (a part shorter than a
                // window) is scaled by the energy it lost.
                let inside = w2[hi] - w2[lo]
                let scale = inside > 0 ? 4 / Float(size) * Float((w2[size] / inside).squareRoot()) : 0
                for (i, band) in bands.enumerated() {
                    var total: Float = 0
                    for b in band { total += m[b] }
                    out[k * bands.count + i] = log1p(scaled * scale * total * weights[i])
                }
            }
        }
    }

    /// `f[j] = x[j]·w[j]` for `lo ≤ j < hi`, 0 elsewhere, 8 lanes at a time.
    @inline(__always)
    static func windowed(_ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, into f: UnsafeMutablePointer<Float>, size: Int, lo: Int, hi: Int) {
        if lo > 0 { f.update(repeating: 0, count: lo) }
        if hi < size { (f + hi).update(repeating: 0, count: size - hi) }
        var j = lo
        while j + 8 <= hi {
            let v = UnsafeRawPointer(x + j).loadUnaligned(as: SIMD8<Float>.self) * UnsafeRawPointer(w + j).loadUnaligned(as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(f + j).storeBytes(of: v, as: SIMD8<Float>.self)
            j += 8
        }
        while j < hi { f[j] = x[j] * w[j]; j += 1 }
    }
}
