import Glibc
import PulsarCore

/// A pattern derived from a sound by the `envelope` method, with what the analysis found.
///
/// A plain value type: safe to use from any thread.
public struct DerivedPattern: Sendable {
    /// The amplitude and frequency curves and the transients; times in ms from `from`. Empty for
    /// a silent sound (and then `warnings` says so).
    public var pattern: PatternData
    public var warnings: [DeriveDiagnostic]
    /// The largest difference between each simplified curve and its frame values.
    public var amplitudeError: Double
    public var frequencyError: Double
    /// The 5 ms frames analysed.
    public var frameCount: Int
    /// The part's length in ms.
    public var durationMilliseconds: Double
}

/// The `envelope` method (docs/derive.md): mono samples → a Pulsar pattern of an amplitude curve
/// (band-limited RMS, compressed, normalised to the gain), a frequency curve (the band's RMS
/// frequency on the profile's band) and transients at the onsets (spectral flux).
///
/// A plain value: `derive` may run on any thread, any number at once (each call works on its
/// own buffers). Not for the real-time path: it allocates.
public struct EnvelopeDeriver: Sendable {
    /// Frame hop and Hann window length (ms).
    public static let hopMilliseconds: Double = 5
    public static let windowMilliseconds: Double = 25
    /// Frames more than this many dB below the loudest are 0.
    public static let gateDB: Double = 60
    /// A part whose samples all stay below this (−80 dBFS) is silent; so is a band whose
    /// loudest frame's RMS does.
    public static let silenceLevel: Double = 1e-4
    /// The running median over the frequency values, in frames.
    public static let frequencyMedianFrames = 5

    public let settings: DeriveSettings

    /// Checks `settings` (all but what depends on the rate).
    public init(settings: DeriveSettings = DeriveSettings()) throws(DeriveError) {
        try settings.validate()
        self.settings = settings
    }

    /// The pattern of `samples` (mono, at `sampleRate` Hz), of the part the settings name.
    public func derive(_ samples: [Float], sampleRate: Int) throws(DeriveError) -> DerivedPattern {
        try samples.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<Float>) throws(DeriveError) -> DerivedPattern in
            try derive(buffer, sampleRate: sampleRate)
        }
    }

    /// The pattern of `samples` (mono, at `sampleRate` Hz), of the part the settings name.
    public func derive(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int) throws(DeriveError) -> DerivedPattern {
        try settings.validate(sampleRate: sampleRate)
        let (range, warnings) = try DerivePart.frames(settings, total: samples.count, sampleRate: sampleRate)
        var result = analyse(UnsafeBufferPointer(rebasing: samples[range]), sampleRate: sampleRate)
        result.warnings = warnings + result.warnings
        return result
    }

    /// The analysis of a part already cut (settings checked at its rate).
    func analyse(_ x: UnsafeBufferPointer<Float>, sampleRate: Int, file: String? = nil) -> DerivedPattern {
        let n = x.count, rate = Double(sampleRate)
        let duration = Double(n) * 1000 / rate
        var warnings: [DeriveDiagnostic] = []

        // Non-finite samples read as 0; the part's peak decides silence.
        let (work, peak, nonFinite) = Self.finiteSamples(x)
        if nonFinite > 0 {
            warnings.append(.warning(.nonFiniteSamples, file: file, "\(nonFinite) samples were NaN or infinite and were read as 0"))
        }
        guard Double(peak) >= Self.silenceLevel else {
            warnings.append(.warning(.silence, file: file, "the sound is silent (no sample reaches −80 dBFS): the pattern is empty"))
            return DerivedPattern(pattern: PatternData(), warnings: warnings, amplitudeError: 0, frequencyError: 0,
                                  frameCount: 0, durationMilliseconds: duration)
        }

        // 1.–2. Band-limit, then frames every 5 ms.
        let band = settings.analysisBand
        let frames = Self.frames(of: work, band: band, rate: rate)
        let rms = frames.energy.map { Double($0.squareRoot()) }
        let loudest = rms.max() ?? 0

        var pattern = PatternData()
        var amplitudeError = 0.0, frequencyError = 0.0
        if loudest >= Self.silenceLevel {
            (pattern.continuousPattern, amplitudeError, frequencyError) = continuousPart(frames, rms: rms, loudest: loudest,
                                                                                         rate: rate, duration: duration)
        } else {
            warnings.append(.warning(.silentBand, file: file, "the band \(JSONWriter.format(band.lowerBound))–\(JSONWriter.format(band.upperBound)) Hz is silent (its loudest frame stays below −80 dBFS): no continuous part, transients only"))
        }

        // 6. Transients.
        let onsets = work.withUnsafeBufferPointer {
            OnsetDetector.detect($0.baseAddress!, count: n, sampleRate: rate, centres: frames.centres, threshold: settings.threshold)
        }
        pattern.discretePattern = Self.transients(onsets, rms: rms, loudest: loudest, gain: settings.gain, exponent: settings.exponent)
        return DerivedPattern(pattern: pattern, warnings: warnings, amplitudeError: amplitudeError, frequencyError: frequencyError,
                              frameCount: frames.count, durationMilliseconds: duration)
    }

    /// The samples of `x` with each non-finite one read as 0, their peak magnitude, and how many
    /// were not finite.
    static func finiteSamples(_ x: UnsafeBufferPointer<Float>) -> (samples: [Float], peak: Float, nonFinite: Int) {
        let n = x.count
        var work = [Float](repeating: 0, count: n)
        var nonFinite = 0
        var peak: Float = 0
        work.withUnsafeMutableBufferPointer { w in
            for i in 0..<n {
                let v = x[i]
                if v.isFinite {
                    w[i] = v
                    peak = max(peak, abs(v))
                } else {
                    nonFinite += 1
                }
            }
        }
        return (work, peak, nonFinite)
    }

    /// The analysis frames: every 5 ms, centred on sample `centres[k]`, the means of `y²` and
    /// `(Δy)²` under a 25 ms Hann window, `y` the part band-limited.
    struct Frames {
        var count: Int
        var centres: [Int]
        /// The windowed mean of `y²`: the frame's RMS squared.
        var energy: [Float]
        /// The windowed mean of `(y[n] − y[n−1])²`, which with `energy` gives the RMS frequency.
        var slope: [Float]
    }

    /// 1. Band-limits `work` to `band` (a 2nd-order Butterworth high-pass, a 4th-order
    /// Butterworth low-pass); 2. frames it every 5 ms under a 25 ms Hann window.
    static func frames(of work: [Float], band: ClosedRange<Double>, rate: Double) -> Frames {
        let n = work.count
        let sections = [Biquad<Float>(Biquad<Float>.highPass(band.lowerBound, q: 0.5.squareRoot(), sampleRate: rate)),
                        Biquad<Float>(Biquad<Float>.lowPass(band.upperBound, q: 0.541_196_100_146_197, sampleRate: rate)),
                        Biquad<Float>(Biquad<Float>.lowPass(band.upperBound, q: 1.306_562_964_876_377, sampleRate: rate))]
        var squares = [Float](repeating: 0, count: n)
        var differences = [Float](repeating: 0, count: n)
        bandLimit(work, sections, squares: &squares, differences: &differences)

        let frames = n == 0 ? 0 : Int((Double(n - 1) * 1000 / hopMilliseconds / rate).rounded(.down)) + 1
        let centres = (0..<frames).map { Int((Double($0) * rate * hopMilliseconds / 1000).rounded()) }
        let reach = Int((rate * windowMilliseconds / 2000).rounded())
        let width = 2 * reach + 1
        let window = (0..<width).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0 + 1) / Double(width + 1))) }
        let windowSum = window.reduce(0, +)
        var energy = [Float](repeating: 0, count: frames)
        var slope = [Float](repeating: 0, count: frames)
        squares.withUnsafeBufferPointer { s in
            differences.withUnsafeBufferPointer { d in
                window.withUnsafeBufferPointer { w in
                    for k in 0..<frames {
                        let first = centres[k] - reach
                        let lo = max(0, -first), hi = min(width, n - first)
                        guard lo < hi else { continue }
                        let (e, g) = dots(w.baseAddress! + lo, s.baseAddress! + first + lo, d.baseAddress! + first + lo, hi - lo)
                        energy[k] = e / windowSum
                        slope[k] = g / windowSum
                    }
                }
            }
        }
        return Frames(count: frames, centres: centres, energy: energy, slope: slope)
    }

    /// 3.–5. The amplitude (gated 60 dB below the loudest frame, compressed, at most 1) and the
    /// frequency (the band's RMS frequency on the profile, gaps filled, median-smoothed) of
    /// each frame, simplified to curves; with each curve's largest error.
    func continuousPart(_ frames: Frames, rms: [Double], loudest: Double, rate: Double,
                        duration: Double) -> (curves: ContinuousPattern, amplitudeError: Double, frequencyError: Double) {
        let gain = settings.gain, exponent = settings.exponent
        let gate = loudest * pow(10, -Self.gateDB / 20)
        var amplitude = [Double](repeating: 0, count: frames.count)
        var frequency = [Double?](repeating: nil, count: frames.count)
        let profile = settings.profile, span = profile.maximumHertz - profile.minimumHertz
        for k in 0..<frames.count where rms[k] >= gate {
            amplitude[k] = min(1, gain * pow(rms[k] / loudest, exponent))
            let ratio = Double(frames.slope[k] / frames.energy[k])
            let hertz = rate / Double.pi * asin(min(1, 0.5 * ratio.squareRoot()))
            frequency[k] = span > 0 ? min(max((hertz - profile.minimumHertz) / span, 0), 1) : 0.5
        }
        let filled = Self.median(Self.filled(frequency), width: Self.frequencyMedianFrames)
        // 5. Simplification.
        let times = (0..<frames.count).map { Double($0) * Self.hopMilliseconds }
        let budget = max(2, Int((settings.resolution * duration / 1000).rounded(.up)) + 1)
        let a = CurveSimplifier.simplify(times: times, values: amplitude, tolerance: settings.tolerance, budget: budget)
        let f = CurveSimplifier.simplify(times: times, values: filled, tolerance: settings.tolerance, budget: budget)
        let curves = ContinuousPattern(amplitude: a.kept.map { ValuePoint(time: times[$0], value: amplitude[$0]) },
                                       frequency: f.kept.map { ValuePoint(time: times[$0], value: filled[$0]) })
        return (curves, a.error, f.error)
    }

    /// Frames of a transient's band strength, in hops from its onset: the band's RMS 15 ms before
    /// it against its largest from 5 to 40 ms after it.
    static let riseBefore = 3
    static let riseAfter = 1...8

    /// The transients at `onsets`. A transient's amplitude is the strength of its onset in the
    /// band the actuator plays: the rise of the band-limited RMS across it, on the amplitude
    /// curve's own scale, `G · (rise / r_max)^p` — so a cut-off's click or a hi-hat, with little
    /// energy in the band, gives little amplitude however sharp its broadband flux. A sound whose
    /// band is silent has its transients' amplitudes from the flux instead (its strongest at `G`).
    static func transients(_ onsets: [OnsetDetector.Onset], rms: [Double], loudest: Double, gain: Double, exponent: Double) -> [DiscretePoint] {
        let strongest = onsets.map(\.strength).max() ?? 0
        return onsets.map { onset in
            let amplitude: Double
            if loudest >= silenceLevel {
                let k = Int((onset.time / hopMilliseconds).rounded())
                let before = rms[min(max(k - riseBefore, 0), rms.count - 1)]
                var after = 0.0
                for j in riseAfter { after = max(after, rms[min(max(k + j, 0), rms.count - 1)]) }
                amplitude = min(1, gain * pow(max(0, after - before) / loudest, exponent))
            } else {
                amplitude = strongest > 0 ? min(1, gain * pow(onset.strength / strongest, exponent)) : gain
            }
            return DiscretePoint(time: onset.time, amplitude: amplitude, frequency: onset.brightness)
        }
    }

    /// `y` = `x` through the three sections (transposed direct form II, 32-bit); `y²` into
    /// `squares`, `(y[n] − y[n−1])²` into `differences` (`y[−1] = 0`). The states are plain
    /// locals so the loop stays scalar and short.
    static func bandLimit(_ x: [Float], _ f: [Biquad<Float>], squares: inout [Float], differences: inout [Float]) {
        let (b00, b01, b02, a01, a02) = (f[0].b0, f[0].b1, f[0].b2, f[0].a1, f[0].a2)
        let (b10, b11, b12, a11, a12) = (f[1].b0, f[1].b1, f[1].b2, f[1].a1, f[1].a2)
        let (b20, b21, b22, a21, a22) = (f[2].b0, f[2].b1, f[2].b2, f[2].a1, f[2].a2)
        var s01: Float = 0, s02: Float = 0, s11: Float = 0, s12: Float = 0, s21: Float = 0, s22: Float = 0
        var before: Float = 0
        x.withUnsafeBufferPointer { input in
            squares.withUnsafeMutableBufferPointer { sq in
                differences.withUnsafeMutableBufferPointer { df in
                    for i in 0..<input.count {
                        let v = input[i]
                        let y0 = b00 * v + s01
                        s01 = b01 * v - a01 * y0 + s02
                        s02 = b02 * v - a02 * y0
                        let y1 = b10 * y0 + s11
                        s11 = b11 * y0 - a11 * y1 + s12
                        s12 = b12 * y0 - a12 * y1
                        let y2 = b20 * y1 + s21
                        s21 = b21 * y1 - a21 * y2 + s22
                        s22 = b22 * y1 - a22 * y2
                        sq[i] = y2 * y2
                        let d = y2 - before
                        df[i] = d * d
                        before = y2
                    }
                }
            }
        }
    }

    /// `(Σ w·a, Σ w·b)` over `count` values, 8 lanes at a time.
    @inline(__always)
    static func dots(_ w: UnsafePointer<Float>, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> (Float, Float) {
        var sa = SIMD8<Float>(), sb = SIMD8<Float>()
        var i = 0
        while i + 8 <= count {
            let weights = UnsafeRawPointer(w + i).loadUnaligned(as: SIMD8<Float>.self)
            sa += weights * UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
            sb += weights * UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
            i += 8
        }
        var ra = sa.sum(), rb = sb.sum()
        while i < count {
            ra += w[i] * a[i]
            rb += w[i] * b[i]
            i += 1
        }
        return (ra, rb)
    }

    /// Each missing value replaced by the nearest present one before it, else after it.
    static func filled(_ values: [Double?]) -> [Double] {
        guard let first = values.first(where: { $0 != nil }) ?? nil else { return values.map { _ in 0.5 } }
        var last = first
        return values.map { v in
            if let v { last = v }
            return last
        }
    }

    /// A running median over `width` (odd) values, the window cut at the ends.
    static func median(_ values: [Double], width: Int) -> [Double] {
        let reach = width / 2
        return values.indices.map { k in
            let window = values[max(0, k - reach)...min(values.count - 1, k + reach)].sorted()
            return window[window.count / 2]
        }
    }
}
