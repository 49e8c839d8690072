import Glibc
import PulsarCore
import PulsarPlot

/// One thing a device cannot do with a pattern: where, which rule, and the figure against its bound.
struct LintFinding: Sendable, Equatable {
    var fromMs: Double
    var toMs: Double
    var rule: String
    var message: String
    /// The figure (dB, ms) and its bound, for `--json`.
    var value: Double
    var bound: Double
}

/// What `pulsar lint` checks a design against (docs/actuators.md, "Lint"): the device's band and
/// how long it takes to play one transient; the rendered haptic channel of the design on it.
struct LintDevice {
    var name: String
    var minimumHertz: Double
    var maximumHertz: Double
    /// The transients (ms), how long each sounds on this device (ms) and at what frequency (Hz).
    var transients: [(ms: Double, lengthMs: Double, hertz: Double)]
    /// The haptic channel as this device is driven, and its rate.
    var samples: [Float]
    var rate: Int
    /// A config that band-limits its bursts: the limit, and the share of each burst's power the
    /// limit keeps (by `BurstWaveform.keptShare`) — what drawing them whole would add.
    var bandLimit: (hertz: Double, keptShares: [Double])? = nil
    /// The device's own figures; a rule whose figure is nil is not checked.
    var limits = Actuator.Limits()
    /// The amplitude curve the device's renderer reads (ms, value), its silent ends included, and
    /// the shortest time in which that renderer moves it (the signal model's 8 ms tent; a sample for Meta's ramps).
    var amplitude: [(ms: Double, value: Double)] = []
    var shortestMoveMs = 0.0
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
enum LintRules {
    static let windowMs = 50.0, hopMs = 25.0
    static let clickBoundDB = -40.0, bandBoundDB = -10.0, quietDBFS = -60.0
    /// How far past its edges energy counts as outside the band: half an octave (a 50 ms Hann
    /// window spreads a steady tone ±40 Hz; a tone at the band's edge is not outside it).
    static let bandMargin = 2.0.squareRoot()

    static func check(_ device: LintDevice) -> [LintFinding] {
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
        var start = 0
        while start + window <= device.samples.count {
            let weighted = device.samples[start..<(start + window)].enumerated().map { i, x in Double(x) * weights[i] }
            // The level the spectrum sees: Hann-weighted, its mean square over the window's (3/8).
            let rms = (weighted.reduce(0) { $0 + $1 * $1 } / (Double(window) * 3 / 8)).squareRoot()
            let fromMs = Double(start) * 1000 / Double(device.rate)
            if rms > 0, 20 * log10(rms) > quietDBFS {
                var real = weighted + Array(repeating: 0, count: fft.size - window)
                var imag = [Double](repeating: 0, count: fft.size)
                fft.transform(real: &real, imag: &imag)
                var total = 0.0, high = 0.0, outside = 0.0
                for k in 1...(fft.size / 2) {
                    let e = real[k] * real[k] + imag[k] * imag[k], hz = Double(k) * binHz
                    total += e
                    if hz > 1000 { high += e }
                    if (hz < lowEdge && lowEdge > resolution) || hz > device.maximumHertz * bandMargin { outside += e }
                }
                if total > 0 {
                    clicks.note(db: 10 * log10(max(high / total, 1e-30)), fromMs: fromMs, toMs: fromMs + windowMs)
                    band.note(db: 10 * log10(max(outside / total, 1e-30)), fromMs: fromMs, toMs: fromMs + windowMs)
                }
            }
            start += hop
        }
        return clicks.findings { "\(format($0)) dB of the energy above 1 kHz (bound \(format(clickBoundDB)) dB): clicks, not touch" }
            + band.findings { "\(format($0)) dB of the energy over half an octave outside \(format(device.minimumHertz))–\(format(device.maximumHertz)) Hz (bound \(format(bandBoundDB)) dB): drive the actuator does not follow" }
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

    static func format(_ v: Double) -> String { String(printf: "%.1f", v) }

    /// What a band limit costs, in one line (nil without one, or without bursts): the bursts'
    /// power kept, least and most, in dB of the whole waveforms Meta's renderer draws.
    static func bandLimitNote(_ device: LintDevice) -> (text: String, leastDB: Double, mostDB: Double, bursts: Int)? {
        guard let limit = device.bandLimit, let least = limit.keptShares.min(), let most = limit.keptShares.max() else { return nil }
        let (low, high) = (10 * log10(least), 10 * log10(most))
        let span = abs(high - low) < 0.005 ? String(printf: "%.2f dB", low) : String(printf: "%.2f to %.2f dB", low, high)
        let text = "\(limit.keptShares.count) burst\(limit.keptShares.count == 1 ? "" : "s") band-limited at \(JSONWriter.format(limit.hertz)) Hz: "
            + "\(span) of the power of the whole waveforms Meta's renderer draws (the harmonics above, which a voice coil makes audible)"
        return (text, low, high, limit.keptShares.count)
    }
}
