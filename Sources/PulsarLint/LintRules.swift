import Glibc
import PulsarCore

/// One thing a device cannot do with a pattern: where, which rule, and the figure against its bound.
public struct LintFinding: Sendable, Equatable {
    public var fromMs: Double
    public var toMs: Double
    public var rule: String
    public var message: String
    /// The figure (dB, ms) and its bound, for `--json`.
    public var value: Double
    public var bound: Double
}

/// What `pulsar lint` checks a design against (docs/actuators.md, "Lint"): the device's band and
/// how long it takes to play one transient; the rendered haptic channel of the design on it.
public struct LintDevice {
    public var name: String
    public var minimumHertz: Double
    public var maximumHertz: Double
    /// The transients (ms), how long each sounds on this device (ms) and at what frequency (Hz).
    public var transients: [(ms: Double, lengthMs: Double, hertz: Double)]
    /// The haptic channel as this device is driven, and its rate.
    public var samples: [Float]
    public var rate: Int
    /// A config that band-limits its bursts: the limit, and the share of each burst's power the
    /// limit keeps (by `BurstWaveform.keptShare`) — what drawing them whole would add.
    public var bandLimit: (hertz: Double, keptShares: [Double])? = nil
    /// The device's own figures; a rule whose figure is nil is not checked.
    public var limits = Actuator.Limits()
    /// The amplitude curve the device's renderer reads (ms, value), its silent ends included, and
    /// the shortest time in which that renderer moves it (the signal model's 8 ms tent; a sample for Meta's ramps).
    public var amplitude: [(ms: Double, value: Double)] = []
    public var shortestMoveMs = 0.0

    public init(name: String, minimumHertz: Double, maximumHertz: Double, transients: [(ms: Double, lengthMs: Double, hertz: Double)],
                samples: [Float], rate: Int) {
        (self.name, self.minimumHertz, self.maximumHertz, self.transients, self.samples, self.rate) = (name, minimumHertz, maximumHertz, transients, samples, rate)
    }
}

/// The rules of `pulsar lint`. Each looks at the design on one device and reports spans:
///
/// - `transients-merge`: a transient starts before the one before it has finished sounding (its
///   onset inside the earlier burst): the two are felt as one.
/// - `energy-above-1khz`: in a 50 ms window (hop 25 ms), the energy above 1 kHz is more than
///   −40 dB of the window's: audible clicks on a voice coil, and nothing an actuator turns into
///   touch.
/// - `outside-band`: in a window, more than −10 dB (10 %) of the energy lies more than half an
///   octave outside the device's band: drive the actuator does not follow.
/// - `step`: the drive jumps from one sample to the next by more than a full-scale sine at twice
///   the band's top can move in a sample (`2 · 2π · f_max / rate`, and at least 0.01): a step,
///   which the actuator plays as a click whatever the window around it holds. Steps less than
///   10 ms apart make one span; its figure is the largest jump.
///
/// Windows quieter than −60 dBFS (RMS under the Hann window, which a sound at its very edge
/// hardly reaches) are not judged; nor is the band's low side when it lies under the window's
/// resolution (40 Hz). Consecutive windows with one finding
/// merge into one span; its figure is the worst window's.
public enum LintRules {
    static let windowMs = 50.0, hopMs = 25.0
    static let clickBoundDB = -40.0, bandBoundDB = -10.0, quietDBFS = -60.0
    /// How far past its edges energy counts as outside the band: half an octave (a 50 ms Hann
    /// window spreads a steady tone ±40 Hz; a tone at the band's edge is not outside it).
    static let bandMargin = 2.0.squareRoot()

    public static func check(_ device: LintDevice) -> [LintFinding] {
        (transientsMerge(device) + spectral(device) + steps(device) + limitRules(device)).sorted { ($0.fromMs, $0.rule) < ($1.fromMs, $1.rule) }
    }

    /// The largest jump a sample may make: a full-scale sine at twice the band's top.
    static func stepBound(_ device: LintDevice) -> Double {
        max(2 * 2 * Double.pi * device.maximumHertz / Double(device.rate), 0.01)
    }

    static func steps(_ device: LintDevice) -> [LintFinding] {
        let bound = stepBound(device), msPerSample = 1000 / Double(device.rate)
        var spans: [(from: Double, to: Double, worst: Double)] = []
        for n in device.samples.indices.dropFirst() {
            let jump = abs(Double(device.samples[n]) - Double(device.samples[n - 1]))
            guard jump > bound else { continue }
            let ms = Double(n) * msPerSample
            if let last = spans.last, ms - last.to < 10 {
                spans[spans.count - 1] = (last.from, ms, max(last.worst, jump))
            } else {
                spans.append((ms, ms, jump))
            }
        }
        return spans.map { span in
            LintFinding(fromMs: span.from, toMs: span.to, rule: "step",
                        message: String(printf: "a jump of %.3f in one sample (a sine at twice %@ Hz moves at most %.3f): a click",
                                        span.worst, JSONWriter.format(device.maximumHertz), bound),
                        value: span.worst, bound: bound)
        }
    }

    static func transientsMerge(_ device: LintDevice) -> [LintFinding] {
        let sorted = device.transients.sorted { $0.ms < $1.ms }
        return zip(sorted, sorted.dropFirst()).compactMap { a, b in
            let gap = b.ms - a.ms
            guard gap < a.lengthMs else { return nil }
            return LintFinding(fromMs: a.ms, toMs: b.ms, rule: "transients-merge",
                               message: "transients \(format(gap)) ms apart: the first sounds \(format(a.lengthMs)) ms on this device, so they are felt as one",
                               value: gap, bound: a.lengthMs)
        }
    }

    /// The two spectral rules over windows of the render.
    static func spectral(_ device: LintDevice) -> [LintFinding] {
        let window = Int(Double(device.rate) * windowMs / 1000), hop = Int(Double(device.rate) * hopMs / 1000)
        guard device.samples.count >= window, let fft = FFT(size: nextPowerOfTwo(window)) else { return [] }
        var clicks = Spans(rule: "energy-above-1khz", bound: clickBoundDB)
        var band = Spans(rule: "outside-band", bound: bandBoundDB)
        let binHz = Double(device.rate) / Double(fft.size)
        // Below the band is judged only where the window can tell it from the band: a 50 ms Hann
        // window spreads a tone over ±40 Hz (two of its 20 Hz bins), so an edge under 40 Hz (a
        // shaker's 25 Hz) is not.
        let lowEdge = device.minimumHertz / bandMargin, resolution = 2 * 1000 / windowMs
        // The window's weights once, not a cosine per sample per window.
        let weights = (0..<window).map { hann($0, window) }
        // The windows loud enough to judge, in order; two at a time through one transform.
        var loud: [Int] = []
        var start = 0
        while start + window <= device.samples.count {
            var sum = 0.0
            for i in 0..<window { let w = Double(device.samples[start + i]) * weights[i]; sum += w * w }
            // The level the spectrum sees: Hann-weighted, its mean square over the window's (3/8).
            let rms = (sum / (Double(window) * 3 / 8)).squareRoot()
            if rms > 0, 20 * log10(rms) > quietDBFS { loud.append(start) }
            start += hop
        }
        var pairs = PairedSpectra(fft: fft, window: window, weights: weights)
        for p in stride(from: 0, to: loud.count, by: 2) {
            let (a, b) = (loud[p], p + 1 < loud.count ? loud[p + 1] : nil)
            pairs.transform(device.samples, a, b)
            for (which, first) in [(0, a), (1, b)] {
                guard let first else { continue }
                var total = 0.0, high = 0.0, outside = 0.0
                for k in 1...(fft.size / 2) {
                    let e = pairs.energy(bin: k, of: which), hz = Double(k) * binHz
                    total += e
                    if hz > 1000 { high += e }
                    if (hz < lowEdge && lowEdge > resolution) || hz > device.maximumHertz * bandMargin { outside += e }
                }
                let fromMs = Double(first) * 1000 / Double(device.rate)
                if total > 0 {
                    clicks.note(db: 10 * log10(max(high / total, 1e-30)), fromMs: fromMs, toMs: fromMs + windowMs)
                    band.note(db: 10 * log10(max(outside / total, 1e-30)), fromMs: fromMs, toMs: fromMs + windowMs)
                }
            }
        }
        return clicks.findings { "\(format($0)) dB of the energy above 1 kHz (bound \(format(clickBoundDB)) dB): clicks, not touch" }
            + band.findings { "\(format($0)) dB of the energy over half an octave outside \(format(device.minimumHertz))–\(format(device.maximumHertz)) Hz (bound \(format(bandBoundDB)) dB): drive the actuator does not follow" }
    }

    /// The spectra of two real windows from one complex transform: the first window as the real
    /// part, the second as the imaginary, each recovered from the transform's bins k and N − k
    /// (X₁[k] = (Z[k] + Z*[N−k]) / 2, X₂[k] = (Z[k] − Z*[N−k]) / 2i): half the transforms.
    struct PairedSpectra {
        let fft: FFT
        let window: Int
        let weights: [Double]
        var real: [Double]
        var imag: [Double]

        init(fft: FFT, window: Int, weights: [Double]) {
            (self.fft, self.window, self.weights) = (fft, window, weights)
            (real, imag) = ([Double](repeating: 0, count: fft.size), [Double](repeating: 0, count: fft.size))
        }

        /// Transforms the Hann-weighted windows at `a` and `b` (nil: silence).
        mutating func transform(_ samples: [Float], _ a: Int, _ b: Int?) {
            for i in 0..<fft.size {
                real[i] = i < window ? Double(samples[a + i]) * weights[i] : 0
                imag[i] = i < window ? b.map { Double(samples[$0 + i]) * weights[i] } ?? 0 : 0
            }
            fft.transform(real: &real, imag: &imag)
        }

        /// |X[k]|² of the first (0) or second (1) window, for 1 ≤ k ≤ N/2.
        func energy(bin k: Int, of which: Int) -> Double {
            let j = (fft.size - k) % fft.size
            if which == 0 {
                let re = real[k] + real[j], im = imag[k] - imag[j]
                return (re * re + im * im) / 4
            }
            let re = imag[k] + imag[j], im = real[j] - real[k]
            return (re * re + im * im) / 4
        }
    }

    /// Windows over a bound, merged into spans.
    struct Spans {
        let rule: String
        let bound: Double
        var spans: [(from: Double, to: Double, worst: Double)] = []

        init(rule: String, bound: Double) {
            self.rule = rule
            self.bound = bound
        }

        mutating func note(db: Double, fromMs: Double, toMs: Double) {
            guard db > bound else { return }
            if let last = spans.last, fromMs <= last.to {
                spans[spans.count - 1] = (last.from, toMs, max(last.worst, db))
            } else {
                spans.append((fromMs, toMs, db))
            }
        }

        func findings(_ message: (Double) -> String) -> [LintFinding] {
            spans.map { LintFinding(fromMs: $0.from, toMs: $0.to, rule: rule, message: message($0.worst), value: $0.worst, bound: bound) }
        }
    }

    static func hann(_ i: Int, _ n: Int) -> Double { 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1)) }

    static func nextPowerOfTwo(_ n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    public static func format(_ v: Double) -> String { String(printf: "%.1f", v) }

    /// What a band limit costs, in one line (nil without one, or without bursts): the bursts'
    /// power kept, least and most, in dB of the whole waveforms Meta's renderer draws.
    public static func bandLimitNote(_ device: LintDevice) -> (text: String, leastDB: Double, mostDB: Double, bursts: Int)? {
        guard let limit = device.bandLimit, let least = limit.keptShares.min(), let most = limit.keptShares.max() else { return nil }
        let (low, high) = (10 * log10(least), 10 * log10(most))
        let span = abs(high - low) < 0.005 ? String(printf: "%.2f dB", low) : String(printf: "%.2f to %.2f dB", low, high)
        let text = "\(limit.keptShares.count) burst\(limit.keptShares.count == 1 ? "" : "s") band-limited at \(JSONWriter.format(limit.hertz)) Hz: "
            + "\(span) of the power of the whole waveforms Meta's renderer draws (the harmonics above, which a voice coil makes audible)"
        return (text, low, high, limit.keptShares.count)
    }
}
