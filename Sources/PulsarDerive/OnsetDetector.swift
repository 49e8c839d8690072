import Foundation

/// Onsets by spectral flux with an adaptive threshold and peak picking (docs/derive.md §6).
enum OnsetDetector {
    struct Onset {
        /// Milliseconds from the part's start.
        var time: Double
        /// The normalised flux above its neighbourhood's mean, `ô_k − μ_k`.
        var strength: Double
        /// Where the new energy lies, 0 (100 Hz) … 1 (8 kHz): the log-frequency centroid of the
        /// band-level rises, each weighted by its square, clamped.
        var brightness: Double
    }

    /// Frames of the peak picking, in hops of 5 ms: ±30 ms for the maximum, −100 … +70 ms for the
    /// mean, 30 ms between onsets.
    static let maximumReach = 6
    static let meanBefore = 20
    static let meanAfter = 14
    static let minimumGap = 6
    /// `L = ln(1 + λ·m)`: the knee at −60 dBFS.
    static let logScale: Float = 1000
    static let lowestHertz = 30.0
    static let highestHertz = 16_000.0

    /// The STFT's length at a rate: `2^round(log2(0.023·R))`, within 64 … 16384.
    static func fftSize(sampleRate: Double) -> Int {
        let exponent = Int(log2(0.023 * sampleRate).rounded())
        return min(max(1 << max(exponent, 0), 64), 16_384)
    }

    /// The onsets of `x` (`count` samples at `sampleRate`), on the frames centred at
    /// `centres` (the 5 ms grid).
    static func detect(_ x: UnsafePointer<Float>, count n: Int, sampleRate: Double, centres: [Int], threshold: Double) -> [Onset] {
        let frames = centres.count
        guard frames >= 3 else { return [] }
        let size = fftSize(sampleRate: sampleRate)
        let fft = RealFFT(size: size)
        // The work buffers, owned here: the window, a frame, this frame's and the last one's magnitudes.
        let w = UnsafeMutablePointer<Float>.allocate(capacity: size)
        let f = UnsafeMutablePointer<Float>.allocate(capacity: size)
        var current = UnsafeMutablePointer<Float>.allocate(capacity: size / 2 + 1)
        var before = UnsafeMutablePointer<Float>.allocate(capacity: size / 2 + 1)
        defer { w.deallocate(); f.deallocate(); current.deallocate(); before.deallocate() }
        for j in 0..<size { w[j] = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(j) / Double(size))) }
        before.initialize(repeating: 0, count: size / 2 + 1)
        current.initialize(repeating: 0, count: size / 2 + 1)
        let binHertz = sampleRate / Double(size)
        let firstBin = max(1, Int((lowestHertz / binHertz).rounded(.up)))
        let lastBin = min(size / 2 - 1, Int((highestHertz / binHertz).rounded(.down)))
        guard firstBin <= lastBin else { return [] }
        // Third-octave bands from 30 Hz; each bin in the band its centre falls in, empty bands dropped.
        var bands: [Range<Int>] = []
        var bandStart = firstBin
        func bandIndex(_ b: Int) -> Int { Int((3 * log2(Double(b) * binHertz / lowestHertz)).rounded(.down)) }
        for b in (firstBin + 1)...(lastBin + 1) where b > lastBin || bandIndex(b) != bandIndex(bandStart) {
            bands.append(bandStart..<b)
            bandStart = b
        }
        let bandWeights = bands.map { 1 / Float($0.count) }
        // Each band's centre (the geometric mean of its first and last bins) on the brightness
        // scale: ln(f / 100 Hz) / ln(80), 0 at 100 Hz and 1 at 8 kHz.
        let bandPositions = bands.map { band in
            Float(log((Double(band.lowerBound) * Double(band.upperBound - 1)).squareRoot() * binHertz / 100) / log(80.0))
        }

        // Each band's level one and two frames ago (0 before the part: levels are never negative,
        // so at frame 1 the reference is frame 0's level alone).
        var previousLevels = [Float](repeating: 0, count: bands.count)
        var earlierLevels = [Float](repeating: 0, count: bands.count)
        var flux = [Double](repeating: 0, count: frames)
        var brightness = [Double](repeating: 0, count: frames)
        let scale = 4 / Float(size)
        let half = size / 2
        let bins = lastBin - firstBin + 1
        for k in 0..<frames {
            let first = centres[k] - half
            let lo = min(max(0, -first), size), hi = max(min(size, n - first), lo)
            if lo > 0 { f.update(repeating: 0, count: lo) }
            if hi < size { (f + hi).update(repeating: 0, count: size - hi) }
            var j = lo
            while j + 8 <= hi {
                let v = UnsafeRawPointer(x + first + j).loadUnaligned(as: SIMD8<Float>.self)
                    * UnsafeRawPointer(w + j).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(f + j).storeBytes(of: v, as: SIMD8<Float>.self)
                j += 8
            }
            while j < hi { f[j] = x[first + j] * w[j]; j += 1 }
            fft.magnitudes(of: UnsafePointer(f), into: current)
            // Magnitudes scaled so a full-scale sine reads 1.
            let m = current + firstBin
            j = 0
            while j + 8 <= bins {
                let v = UnsafeRawPointer(m + j).loadUnaligned(as: SIMD8<Float>.self) * scale
                UnsafeMutableRawPointer(m + j).storeBytes(of: v, as: SIMD8<Float>.self)
                j += 8
            }
            while j < bins { m[j] *= scale; j += 1 }
            var sum: Float = 0, squares: Float = 0, moment: Float = 0
            for (i, band) in bands.enumerated() {
                var total: Float = 0
                for b in band { total += current[b] }
                let level = log1p(logScale * total * bandWeights[i])
                // The part goes on before `from` as it begins: frame 0 has no flux.
                if k > 0 {
                    // A rise above both frames before: a level that dips for one frame (tones
                    // beating in a band's few bins) is not new energy when it comes back.
                    let rise = max(0, level - max(previousLevels[i], earlierLevels[i]))
                    sum += rise
                    squares += rise * rise
                    moment += rise * rise * bandPositions[i]
                }
                earlierLevels[i] = previousLevels[i]
                previousLevels[i] = level
            }
            flux[k] = Double(sum) / Double(bands.count)
            brightness[k] = squares > 0 ? min(max(Double(moment / squares), 0), 1) : 0
            swap(&current, &before)
        }
        let largest = flux.max() ?? 0
        guard largest > 0 else { return [] }
        let odf = flux.map { $0 / largest }
        // Running sums for the neighbourhood means.
        var prefix = [Double](repeating: 0, count: frames + 1)
        for k in 0..<frames { prefix[k + 1] = prefix[k] + odf[k] }
        var onsets: [Onset] = []
        var lastFrame = Int.min / 2
        for k in 1..<frames where odf[k] > 0 {
            let lo = max(0, k - maximumReach), hi = min(frames - 1, k + maximumReach)
            var isPeak = true
            for j in lo...hi where j != k && (odf[j] > odf[k] || (j < k && odf[j] == odf[k])) {
                isPeak = false
                break
            }
            guard isPeak else { continue }
            let a = max(0, k - meanBefore), b = min(frames - 1, k + meanAfter)
            let mean = (prefix[b + 1] - prefix[a]) / Double(b - a + 1)
            guard odf[k] >= mean + threshold, k - lastFrame >= minimumGap else { continue }
            var offset = 0.0
            if k + 1 < frames {
                let curvature = odf[k - 1] - 2 * odf[k] + odf[k + 1]
                if curvature < 0 { offset = min(max(0.5 * (odf[k - 1] - odf[k + 1]) / curvature, -0.5), 0.5) }
            }
            let peak = 5 * (Double(k) + offset)
            let time = refined(peak, x, count: n, sampleRate: sampleRate)
            if let last = onsets.last, time <= last.time { continue }
            onsets.append(Onset(time: time, strength: odf[k] - mean, brightness: brightness[k]))
            lastFrame = k
        }
        return onsets
    }

    /// The time-domain refinement: 1 ms blocks; a split searched from 6 ms before to 12 ms after
    /// the flux peak, the energy of the 5 ms after it against the 5 ms before it.
    static let refineBefore = 6
    static let refineAfter = 12
    static let refineSpan = 5

    /// The onset near a flux peak at `peak` ms: the start of the 1 ms block that best splits
    /// quiet from loud — the largest ratio of the energy in the 5 ms from it (taken at its centre) to the energy in the
    /// 5 ms before it — from 6 ms before the peak to 12 ms after. The flux of a 23 ms window
    /// peaks a few ms before the sound it finds (its log rises as soon as the new sound enters
    /// the window's edge); the energy's split marks where the new sound starts.
    static func refined(_ peak: Double, _ x: UnsafePointer<Float>, count n: Int, sampleRate: Double) -> Double {
        let block = max(1, Int((sampleRate / 1000).rounded()))
        let centre = Int((peak * sampleRate / 1000).rounded())
        let first = centre - (refineBefore + refineSpan) * block
        let blocks = refineBefore + refineAfter + 2 * refineSpan + 1
        var energy = [Double](repeating: 0, count: blocks)
        for j in 0..<blocks {
            let lo = max(0, first + j * block), hi = min(n, first + (j + 1) * block)
            var sum: Float = 0
            if lo < hi { for i in lo..<hi { sum += x[i] * x[i] } }
            energy[j] = Double(sum)
        }
        let floor = max((energy.max() ?? 0) * 1e-6, 1e-20)
        var best = refineSpan, bestRise = -Double.infinity
        for j in refineSpan...(blocks - refineSpan) {
            var before = 0.0, after = 0.0
            for i in (j - refineSpan)..<j { before += energy[i] }
            for i in j..<(j + refineSpan) { after += energy[i] }
            let rise = log(after + floor) - log(before + floor)
            if rise > bestRise { bestRise = rise; best = j }
        }
        // The onset lies somewhere in the block: its centre.
        return max(0, (Double(first + best * block) + 0.5 * Double(block)) * 1000 / sampleRate)
    }
}
