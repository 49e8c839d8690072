import Glibc
import PulsarCore

/// The rules that need the device's own figures (`Actuator.Limits`, docs/actuators.md "Lint");
/// each is checked only when the actuator states its figure:
///
/// - `transients-close`: two transients closer than `separation_ms` (and not already merged on
///   the device): felt as one.
/// - `transient-short`: a transient that sounds shorter than `rise_ms` on the device: it is over
///   before the actuator is in full motion, so it is felt weaker than designed. Runs less than
///   250 ms apart make one span, its figure the shortest.
/// - `response`: the amplitude the device is driven with moves by at least `responseShare` (of
///   full scale) in less than `rise_ms` — a step or a ramp the actuator does not follow. Its
///   time is the curve's, or the renderer's shortest move when that is longer (the signal model's
///   8 ms tent). Moves less than 10 ms apart make one span, its figure the fastest.
/// - `transient-shape` (needs no figure): a transient the device plays as less than one cycle of
///   its frequency (no waveform to feel, a click), or at a frequency more than half an octave
///   outside its band — an emphasis the config cannot shape. Runs less than 250 ms apart make one
///   span, its figure the fewest cycles (or the farthest frequency).
/// - `sustained-drive`: the render's RMS over any `sustained_window_ms` (hop a quarter of it)
///   above `sustained_rms`.
extension LintRules {
    /// The smallest amplitude move `response` judges.
    static let responseShare = 0.3

    static func limitRules(_ device: LintDevice) -> [LintFinding] {
        transientsClose(device) + transientsShort(device) + transientShape(device) + response(device) + sustainedDrive(device)
    }

    static func transientsClose(_ device: LintDevice) -> [LintFinding] {
        guard let bound = device.limits.separationMs else { return [] }
        let sorted = device.transients.sorted { $0.ms < $1.ms }
        return zip(sorted, sorted.dropFirst()).compactMap { a, b in
            let gap = b.ms - a.ms
            guard gap < bound, gap >= a.lengthMs else { return nil }
            return LintFinding(fromMs: a.ms, toMs: b.ms, rule: "transients-close",
                               message: "transients \(format(gap)) ms apart (bound \(format(bound)) ms): felt as one",
                               value: gap, bound: bound)
        }
    }

    static func transientsShort(_ device: LintDevice) -> [LintFinding] {
        guard let rise = device.limits.riseMs else { return [] }
        var spans: [(from: Double, to: Double, shortest: Double, count: Int)] = []
        for t in device.transients.sorted(by: { $0.ms < $1.ms }) where t.lengthMs < rise {
            if let last = spans.last, t.ms - last.to < 250 {
                spans[spans.count - 1] = (last.from, t.ms, min(last.shortest, t.lengthMs), last.count + 1)
            } else {
                spans.append((t.ms, t.ms, t.lengthMs, 1))
            }
        }
        return spans.map { s in
            let what = s.count == 1 ? "a transient of \(format(s.shortest)) ms" : "\(s.count) transients, the shortest \(format(s.shortest)) ms,"
            return LintFinding(fromMs: s.from, toMs: s.to, rule: "transient-short",
                               message: "\(what) on a device that takes \(format(rise)) ms to rise: felt weaker than designed",
                               value: s.shortest, bound: rise)
        }
    }

    static func transientShape(_ device: LintDevice) -> [LintFinding] {
        let low = device.minimumHertz / bandMargin, high = device.maximumHertz * bandMargin
        // The band's centre on a log scale: the farthest frequency is the most octaves from it.
        let centre = (device.minimumHertz * device.maximumHertz).squareRoot()
        var short: [(from: Double, to: Double, worst: Double, count: Int)] = []
        var outside: [(from: Double, to: Double, worst: Double, count: Int)] = []
        func note(_ spans: inout [(from: Double, to: Double, worst: Double, count: Int)], _ ms: Double, _ figure: Double, worse: (Double, Double) -> Double) {
            if let last = spans.last, ms - last.to < 250 {
                spans[spans.count - 1] = (last.from, ms, worse(last.worst, figure), last.count + 1)
            } else {
                spans.append((ms, ms, figure, 1))
            }
        }
        for t in device.transients.sorted(by: { $0.ms < $1.ms }) {
            let cycles = t.lengthMs * t.hertz / 1000
            if cycles < 1 { note(&short, t.ms, cycles, worse: min) }
            if t.hertz < low || t.hertz > high { note(&outside, t.ms, t.hertz, worse: { abs(log2($0 / centre)) > abs(log2($1 / centre)) ? $0 : $1 }) }
        }
        let band = "\(format(device.minimumHertz))–\(format(device.maximumHertz)) Hz"
        return short.map { s in
            LintFinding(fromMs: s.from, toMs: s.to, rule: "transient-shape",
                        message: (s.count == 1 ? "a transient of " : "\(s.count) transients, the fewest ") + String(printf: "%.2f", s.worst)
                            + " cycles on this device: less than one, no shape to feel (a click)",
                        value: s.worst, bound: 1)
        } + outside.map { s in
            LintFinding(fromMs: s.from, toMs: s.to, rule: "transient-shape",
                        message: "\(s.count == 1 ? "a transient" : "\(s.count) transients") at \(format(s.worst)) Hz, over half an octave outside \(band): drive the actuator does not follow",
                        value: s.worst, bound: s.worst < low ? low : high)
        }
    }

    static func response(_ device: LintDevice) -> [LintFinding] {
        guard let rise = device.limits.riseMs else { return [] }
        let curve = device.amplitude
        var spans: [(from: Double, to: Double, fastest: Double, move: Double)] = []
        for (a, b) in zip(curve, curve.dropFirst()) {
            let move = b.value - a.value
            let ms = max(b.ms - a.ms, device.shortestMoveMs)
            guard abs(move) >= responseShare, ms < rise else { continue }
            if let last = spans.last, a.ms - last.to < 10 {
                spans[spans.count - 1] = (last.from, b.ms, min(last.fastest, ms), abs(move) > abs(last.move) ? move : last.move)
            } else {
                spans.append((a.ms, b.ms, ms, move))
            }
        }
        return spans.map { s in
            let way = s.move > 0 ? "rises" : "falls"
            return LintFinding(fromMs: s.from, toMs: s.to, rule: "response",
                               message: "the amplitude \(way) by \(String(printf: "%.2f", abs(s.move))) in \(s.fastest < 1 ? String(printf: "%.2f", s.fastest) : format(s.fastest)) ms; the device takes \(format(rise)) ms: it does not follow",
                               value: s.fastest, bound: rise)
        }
    }

    static func sustainedDrive(_ device: LintDevice) -> [LintFinding] {
        guard let ceiling = device.limits.sustainedRMS else { return [] }
        let windowMs = device.limits.sustainedWindowMs
        let window = max(1, Int(Double(device.rate) * windowMs / 1000)), hop = max(1, window / 4)
        guard device.samples.count >= window else { return [] }
        // Running sums of squares: the RMS of any window in O(1).
        var sums = [Double](repeating: 0, count: device.samples.count + 1)
        for (i, x) in device.samples.enumerated() { sums[i + 1] = sums[i] + Double(x) * Double(x) }
        let boundDB = 20 * log10(ceiling)
        var spans = Spans(rule: "sustained-drive", bound: boundDB)
        var start = 0
        while start + window <= device.samples.count {
            let rms = ((sums[start + window] - sums[start]) / Double(window)).squareRoot()
            let fromMs = Double(start) * 1000 / Double(device.rate)
            if rms > 0 { spans.note(db: 20 * log10(rms), fromMs: fromMs, toMs: fromMs + windowMs) }
            start += hop
        }
        return spans.findings {
            "RMS \(format($0)) dBFS over \(format(windowMs)) ms (ceiling \(format(boundDB)) dBFS, \(String(printf: "%.2f", ceiling)) of full scale): more than the device takes for long"
        }
    }
}
