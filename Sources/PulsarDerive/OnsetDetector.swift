import Glibc

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
        /// The energy after the flux peak against the energy before it, dB (`fall`).
        var fall: Double
        /// The flux at the peak, nepers averaged over the bands.
        var flux: Double
    }

    /// Frames of the peak picking, in hops of 5 ms: 30 ms before for the maximum, −100 … +70 ms for
    /// the mean, 40 ms between onsets (a syllable's consonant and the vowel 25–35 ms after it are
    /// one event, as are a flam's two strokes).
    static let maximumReach = 6
    static let meanBefore = 20
    static let meanAfter = 14
    static let minimumGap = 8
    /// A band's rise is taken above the highest of its levels in the frames 5 … 30 ms before.
    static let referenceFrames = 6
    /// A flux peak after which the sound's energy is this far below what it was before (dB, see
    /// `fall`) is a sound cut off, not begun: not an onset.
    static let offsetFall = -10.0
    /// The least flux of an onset, nepers averaged over the bands (a rise of 2 nepers, 17 dB, in
    /// one band of 25, or 0.7 dB in all): below it a peak is a tone's vibrato or beating, or
    /// rounding noise in a steady sound, however it compares with the part's strongest — unless
    /// the sound after it is `onsetRise` louder than before.
    static let minimumFlux = 0.08

    /// The high bands, from 3 kHz (on the brightness scale): cymbals, hats and a fricative's hiss
    /// rise there alone, and a hat on a kick's tail is small against the kick in the flux of all bands.
    static let airPosition = Float(log(30.0) / log(80.0))
    /// A flux peak after which the sound's energy is this far above what it was before (dB, see
    /// `fall`) is new sound however small its flux: a slow bow or a quiet note whose rise spreads
    /// over the window. The mirror of `offsetFall`.
    static let onsetRise = 10.0
    /// The least flux of an onset in the high bands alone: the sum of their rises at least half
    /// the full-band floor's sum (`minimumFlux` times the number of bands), 1.2 nepers at 44.1 kHz.
    static let airFloorShare = 0.5

    /// A flux normalised by its largest, and the running sums of its neighbourhood means.
    struct Novelty {
        let flux: [Double]
        let largest: Double
        let odf: [Double]
        let prefix: [Double]
        init(_ flux: [Double]) {
            self.flux = flux
            largest = flux.max() ?? 0
            let l = largest
            odf = l > 0 ? flux.map { $0 / l } : flux
            var p = [Double](repeating: 0, count: flux.count + 1)
            for k in 0..<flux.count { p[k + 1] = p[k] + odf[k] }
            prefix = p
        }
        func mean(_ k: Int) -> Double {
            let a = max(0, k - meanBefore), b = min(odf.count - 1, k + meanAfter)
            return (prefix[b + 1] - prefix[a]) / Double(b - a + 1)
        }
    }

    /// The STFT's length at a rate: `2^round(log2(0.023·R))`, within 64 … 16384.
    static func fftSize(sampleRate: Double) -> Int {
        let exponent = Int(log2(0.023 * sampleRate).rounded())
        return min(max(1 << max(exponent, 0), 64), 16_384)
    }

    /// The onsets of `x` (`count` samples at `sampleRate`), on the frames centred at
    /// `centres` (the 5 ms grid).
    static func detect(_ x: UnsafePointer<Float>, count n: Int, sampleRate: Double, centres: [Int], threshold: Double,
                       offsetFall: Double = offsetFall) -> [Onset] {
        let frames = centres.count
        guard frames >= 3 else { return [] }
        let spectrum = OnsetSpectrum(x, count: n, sampleRate: sampleRate, centres: centres, size: fftSize(sampleRate: sampleRate))
        guard spectrum.bandCount > 0 else { return [] }
        let (flux, brightness) = fluxes(spectrum)
        let full = Novelty(flux)
        guard full.largest > 0 else { return [] }
        // The high bands alone, normalised by their own strongest onset (rules 1–3 on them).
        let air = Novelty(fluxes(spectrum, from: airPosition).flux)
        let airBands = Double(spectrum.positions.filter { $0 >= airPosition }.count)
        let airFloor = airFloorShare * minimumFlux * Double(spectrum.bandCount)
        /// Rules 1 and 2 on `novelty`: a peak standing `threshold` above its neighbourhood's mean.
        func stands(_ novelty: Novelty, _ k: Int) -> Bool {
            novelty.largest > 0 && novelty.odf[k] > 0 && isPeak(novelty.odf, k) && novelty.odf[k] >= novelty.mean(k) + threshold
        }
        var onsets: [Onset] = []
        var lastFrame = Int.min / 2
        for k in 1..<frames {
            let peakAll = stands(full, k)
            let byAir = stands(air, k) && air.flux[k] * airBands >= airFloor
            guard peakAll || byAir, k - lastFrame >= minimumGap else { continue }
            let change = fall(5 * Double(k), x, count: n, sampleRate: sampleRate)
            guard change >= offsetFall else { continue }
            let byAll = peakAll && (flux[k] >= minimumFlux || change >= onsetRise)
            guard byAll || byAir else { continue }
            let found = byAll ? full : air
            let odf = found.odf
            var offset = 0.0
            if k + 1 < frames {
                let curvature = odf[k - 1] - 2 * odf[k] + odf[k + 1]
                if curvature < 0 { offset = min(max(0.5 * (odf[k - 1] - odf[k + 1]) / curvature, -0.5), 0.5) }
            }
            let time = refined(5 * (Double(k) + offset), x, count: n, sampleRate: sampleRate)
            if let last = onsets.last, time <= last.time { continue }
            if time < startGuard && alreadyPlaying(at: time, x, count: n, sampleRate: sampleRate) { continue }
            onsets.append(Onset(time: time, strength: odf[k] - found.mean(k), brightness: brightness[k], fall: change, flux: flux[k]))
            lastFrame = k
        }
        return onsets
    }

    /// Whether `odf[k]` is the largest value from `maximumReach` frames before it to the next frame
    /// (of equal values the earliest). Not the largest of the 30 ms after it too: of two peaks
    /// closer than the minimum gap — a plosive's burst and its voicing, a flam — the first is the
    /// onset, where the later larger one would have been.
    static func isPeak(_ odf: [Double], _ k: Int) -> Bool {
        let lo = max(0, k - maximumReach), hi = min(odf.count - 1, k + 1)
        for j in lo...hi where j != k && (odf[j] > odf[k] || (j < k && odf[j] == odf[k])) { return false }
        return true
    }

    /// Each frame's flux, the mean over the bands of the rise above the six frames before, and its
    /// brightness, the rises' log-frequency centroid weighted by their squares. Frame 0 has none:
    /// the part goes on before its start as it begins.
    static func fluxes(_ s: OnsetSpectrum, from lowest: Float = -.infinity) -> (flux: [Double], brightness: [Double]) {
        var flux = [Double](repeating: 0, count: s.frameCount)
        var brightness = [Double](repeating: 0, count: s.frameCount)
        let bands = (0..<s.bandCount).filter { s.positions[$0] >= lowest }
        guard !bands.isEmpty else { return (flux, brightness) }
        for k in 1..<s.frameCount {
            var sum: Float = 0, squares: Float = 0, moment: Float = 0
            for i in bands {
                // A rise above the six frames before: a level that dips for up to 25 ms (tones
                // beating in a band's few bins, a chord of detuned voices) is not new energy when
                // it comes back.
                var reference: Float = 0
                for lag in 1...referenceFrames { reference = max(reference, s.level(k - lag, i)) }
                let rise = max(0, s.level(k, i) - reference)
                sum += rise
                squares += rise * rise
                moment += rise * rise * s.positions[i]
            }
            flux[k] = Double(sum) / Double(bands.count)
            brightness[k] = squares > 0 ? min(max(Double(moment / squares), 0), 1) : 0
        }
        return (flux, brightness)
    }

    /// The energy of the 20 ms from 10 ms after `peak` against the 20 ms ending 10 ms before it,
    /// in dB (the part's samples only; 0 when either side lies wholly outside it).
    static func fall(_ peak: Double, _ x: UnsafePointer<Float>, count n: Int, sampleRate: Double) -> Double {
        func energy(_ from: Double, _ to: Double) -> Double? {
            let lo = max(0, Int((from * sampleRate / 1000).rounded())), hi = min(n, Int((to * sampleRate / 1000).rounded()))
            guard lo < hi else { return nil }
            var sum: Float = 0
            for i in lo..<hi { sum += x[i] * x[i] }
            return Double(sum) / Double(hi - lo)
        }
        guard let before = energy(peak - 30, peak - 10), let after = energy(peak + 10, peak + 30) else { return 0 }
        return 10 * log10((after + 1e-12) / (before + 1e-12))
    }

    /// Within this many ms of the part's start, a sound that was already playing at its first
    /// sample does not begin: it fades in, or swells, and is not an onset.
    static let startGuard = 50.0
    /// "Already playing": the part's first 5 ms within this many dB of the 5 ms from the onset.
    static let playingWithin = 30.0

    /// Whether the part's first 5 ms hold sound within `playingWithin` dB of the 5 ms from `time`.
    static func alreadyPlaying(at time: Double, _ x: UnsafePointer<Float>, count n: Int, sampleRate: Double) -> Bool {
        func energy(_ from: Double) -> Double {
            let lo = min(n, Int((from * sampleRate / 1000).rounded())), hi = min(n, lo + Int((0.005 * sampleRate).rounded()))
            var sum: Float = 0
            for i in lo..<hi { sum += x[i] * x[i] }
            return Double(sum)
        }
        return 10 * log10((energy(0) + 1e-20) / (energy(time) + 1e-20)) >= -playingWithin
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
        // Before the part's start it goes on as it begins: its first millisecond's energy.
        if first < 0 {
            let start = min(-first / block, blocks - 1)
            let lo = 0, hi = min(n, first + (start + 1) * block)
            let whole = hi > lo ? energy[start] * Double(block) / Double(hi - lo) : 0
            for j in 0...start { energy[j] = whole }
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
