import PulsarCore
import PulsarPlot

/// `pulsar drift --plot`: one picture of a run on one time axis in seconds. Per device, the
/// clock's error (against the truth on the simulated device, against the fitted line otherwise)
/// with ±1 sample and its lock-in marked, and the readings' residuals from the fitted line with
/// their p99 and any slips; below, every device's lead over a wall clock at the nominal rate —
/// the readings and the fitted line, whose slope is the ppm.
///
/// Thread rules: plain functions of values; any thread.
public enum DriftPlot {
    public static let width = 1600

    /// The picture of a run: nil when no device has enough readings to draw.
    public static func figure(_ results: [DriftResult], probes: [DriftProbe]) -> Figure? {
        let runs = zip(results, probes).compactMap { r, p in r.report.flatMap { report in p.meter.series().map { (r, report, $0) } } }
        guard !runs.isEmpty else { return nil }
        let span = max(runs.map { $0.1.seconds }.max() ?? 1, 1e-3)
        var figure = Figure(width: width, height: runs.count == 1 ? 1000 : 1500, title: title(runs.map { ($0.0, $0.1) }),
                            subtitles: runs.enumerated().flatMap { subtitles($0.element.0, $0.element.1, number: runs.count > 1 ? $0.offset + 1 : nil) }, xAxis: Axis("time", unit: "s", range: .fixed(0...span)))
        let colors: [PlotColor] = [.blue, .vermilion]
        for (index, run) in runs.enumerated() {
            let name = runs.count == 1 ? "" : "\(index + 1): "
            figure.add(clockPanel(run.1, run.2, name: name, color: colors[index]))
            figure.add(residualPanel(run.1, run.2, name: name, color: colors[index], span: span))
        }
        figure.add(leadPanel(runs.enumerated().map { ("\($0.offset + 1)", $0.element.1, $0.element.2) }, colors: colors))
        return figure
    }

    /// One device: its name and ppm; two: their ratio (each one's name and ppm head its subtitles).
    private static func title(_ runs: [(DriftResult, DriftReport)]) -> String {
        guard runs.count == 2 else {
            let (r, report) = runs[0]
            return String(printf: "pulsar drift — %@: %+.2f ppm (95 %%: %+.2f … %+.2f)", r.device, report.ppm,
                          report.ppmInterval95.low, report.ppmInterval95.high)
        }
        let ratio = DriftSession.ratio(runs[0].1, runs[1].1)
        return String(printf: "pulsar drift — device 1 against device 2: %+.2f ppm (95 %%: %+.2f … %+.2f), %.1f ms apart an hour",
                      ratio.ppm, ratio.interval95.low, ratio.interval95.high, ratio.ppm * 3.6)
    }

    /// Two lines a device: the run and the readings; the clock and the device's troubles.
    private static func subtitles(_ r: DriftResult, _ report: DriftReport, number: Int?) -> [String] {
        let readings = [String(printf: "%@%.1f s, %d readings", r.complete ? "" : "ended early after ", report.seconds, report.readings),
                     String(printf: "wall clock %.1f ms off an hour", report.wallClockDriftMsPerHour),
                     String(printf: "jitter p99 %.1f µs", report.jitterMicroseconds.p99),
                     "granularity \(report.granularityFrames.map(String.init) ?? "?") frames"]
        var parts: [String] = []
        if let truth = report.trueClockErrorSamples {
            parts.append(String(printf: "clock p99 %.2f samples from the truth (configured %+.0f ppm)", truth.p99, r.truePpm ?? 0))
        } else {
            parts.append(String(printf: "clock p99 %.2f samples from the readings", report.clockErrorSamples.p99))
        }
        parts.append(report.lockInSeconds.map { String(printf: "within a sample from %.2f s", $0) } ?? "never within a sample")
        parts.append("underruns \(r.underruns), slips \(report.slips.count), late wake-ups \(r.lateWakeups)")
        guard let number else { return [readings.joined(separator: " · "), parts.joined(separator: " · ")] }
        let head = String(printf: "%d = %@: %+.2f ppm · ", number, r.device, report.ppm)
        return [head + readings.joined(separator: " · "), "\(number): " + parts.joined(separator: " · ")]
    }

    /// The clock against the truth (or the fitted line), ±1 sample, lock-in.
    private static func clockPanel(_ report: DriftReport, _ series: DriftSeries, name: String, color: PlotColor) -> Panel {
        let settled = report.trueClockErrorSamples?.max ?? report.clockErrorSamples.p99
        let limit = max(2, min(1.5 * settled, 50))
        let against = series.clockErrorIsAgainstTruth ? "the frame really heard (simulated)" : "the fitted line"
        var panel = Panel(title: name + "device-slaved clock minus \(against)",
                          yAxis: Axis("clock error", unit: "samples", range: .fixed(-limit...limit)), weight: 1.2)
        panel.add(.line(Polyline(points: series.clockError.map { PlotPoint($0.0, $0.1) }, color: color, width: 1,
                                 label: "clock error")))
        panel.add(.horizontal(ReferenceLine(1, color: .green, label: "+1 sample", legend: "±1 sample")))
        panel.add(.horizontal(ReferenceLine(-1, color: .green, label: "−1 sample")))
        if let lock = report.lockInSeconds {
            panel.add(.vertical(ReferenceLine(lock, color: .ink, width: 1.5, label: String(printf: "lock-in %.2f s", lock))))
        }
        return panel
    }

    /// The readings' distance from the fitted line (min/max a pixel column), their p99, slips.
    private static func residualPanel(_ report: DriftReport, _ series: DriftSeries, name: String, color: PlotColor,
                                      span: Double) -> Panel {
        let p99 = report.jitterMicroseconds.p99
        let limit = max(2.5 * p99, 25)
        var envelope = Envelope(span: 0...span, columns: width, color: color.withAlpha(190), label: "readings (min/max)")
        for (t, r) in series.residualsMicroseconds { envelope.add(r, atX: t) }
        var panel = Panel(title: name + "position readings minus the fitted line",
                          yAxis: Axis("residual", unit: "µs", range: .fixed(-limit...limit)), series: [.envelope(envelope)])
        panel.add(.horizontal(ReferenceLine(p99, color: .orange, label: String(printf: "p99 %.1f µs", p99), legend: "±p99")))
        panel.add(.horizontal(ReferenceLine(-p99, color: .orange)))
        for (t, size) in series.slips.prefix(50) {
            panel.add(.vertical(ReferenceLine(t, color: .purple, width: 1.5, label: String(printf: "slip %.2f ms", size * 1000))))
        }
        return panel
    }

    /// Each device's lead over a wall clock at the nominal rate: readings and the fitted line.
    private static func leadPanel(_ runs: [(String, DriftReport, DriftSeries)], colors: [PlotColor]) -> Panel {
        var panel = Panel(title: "ahead of a wall clock at the nominal rate (frames heard ÷ nominal rate − seconds passed)",
                          yAxis: Axis("lead", unit: "ms"), weight: 1.2)
        for (index, (device, report, series)) in runs.enumerated() {
            let prefix = runs.count == 1 ? "" : device + ": "
            panel.add(.line(Polyline(points: series.leadMilliseconds.map { PlotPoint($0.0, $0.1) },
                                     color: colors[index].withAlpha(90), width: 3, label: prefix + "readings")))
            for (k, run) in series.fittedLeadMilliseconds.enumerated() {
                let label = k == 0 ? prefix + String(printf: "fitted: %+.2f ppm, %.1f ms an hour", report.ppm, report.wallClockDriftMsPerHour) : nil
                panel.add(.line(Polyline(points: run.map { PlotPoint($0.0, $0.1) }, color: colors[index], width: 1.5, label: label)))
            }
        }
        panel.add(.horizontal(ReferenceLine(0, color: .grey, label: nil, legend: "wall clock")))
        return panel
    }
}
