import PulsarCore

/// The figures of a drift run as a person reads them (`pulsar drift` prints them).
///
/// Thread rules: plain functions of values; any thread.
public enum DriftSummary {
    /// The whole text, without a final newline: every device's lines (`lines`), then for two
    /// devices their ratio (`ratioLine`). `machineSeconds`: how long the run took on the machine.
    public static func text(_ results: [DriftResult], simulatedTime: Bool, machineSeconds: Double) -> String {
        var out = results.flatMap { lines($0, simulatedTime: simulatedTime, machineSeconds: machineSeconds) }
        if let ratio = ratioLine(results) { out.append(ratio) }
        return out.joined(separator: "\n")
    }

    /// Two devices' rate ratio, when both were measured.
    public static func ratioLine(_ results: [DriftResult]) -> String? {
        guard results.count == 2, let a = results[0].report, let b = results[1].report else { return nil }
        let ratio = DriftSession.ratio(a, b)
        return String(printf: "ratio     %@ against %@: %+.2f ppm (95 %%: %+.2f … %+.2f): %.1f ms apart after an hour",
                      results[0].device, results[1].device, ratio.ppm, ratio.interval95.low, ratio.interval95.high,
                      ratio.ppm * 3.6)
    }

    /// One device's figures, a line each: the run, the rate, the wall clock, the jitter, the
    /// clock, the truth (simulated), the slips, the device.
    public static func lines(_ r: DriftResult, simulatedTime: Bool, machineSeconds: Double) -> [String] {
        let c = r.configuration
        let rate = Double(c.sampleRate.hertz)
        var out: [String] = []
        let when = simulatedTime ? String(printf: " (simulated time: %.1f s of machine time)", machineSeconds) : ""
        guard let report = r.report else {
            out.append("\(r.device): too few position readings to measure\(when)\(r.complete ? "" : " (the run ended early)")")
            return out
        }
        out.append(String(printf: "%@: %.1f s, %d readings%@%@", r.device, report.seconds, report.readings, when,
                          r.complete ? "" : " — the run ended early"))
        out.append(String(printf: "  rate      %.3f Hz against %.0f nominal: %+.2f ppm (95 %%: %+.2f … %+.2f)",
                          report.measuredRate, report.nominalRate, report.ppm, report.ppmInterval95.low, report.ppmInterval95.high))
        out.append(String(printf: "  wall      a wall clock would be %.1f ms off after an hour", report.wallClockDriftMsPerHour))
        let j = report.jitterMicroseconds
        out.append(String(printf: "  jitter    p50 %.1f µs, p99 %.1f µs, max %.1f µs from the fitted line; granularity %@",
                          j.p50, j.p99, j.max, report.granularityFrames.map { "\($0) frame\($0 == 1 ? "" : "s")" } ?? "unknown"))
        let e = report.clockErrorSamples, us = 1e6 / rate
        let lock = report.lockInSeconds.map { String(printf: "within one sample from %.2f s", $0) } ?? "never stayed within one sample"
        out.append(String(printf: "  clock     against the readings p50 %.2f, p99 %.2f, max %.2f samples (%.1f / %.1f / %.1f µs); %@",
                          e.p50, e.p99, e.max, e.p50 * us, e.p99 * us, e.max * us, lock))
        if let truePpm = r.truePpm, let t = report.trueClockErrorSamples {
            out.append(String(printf: "  truth     configured %+.2f ppm (measured %+.3f off); clock against the frame heard p50 %.3f, p99 %.3f, max %.3f samples",
                              truePpm, report.ppm - truePpm, t.p50, t.p99, t.max))
        }
        if !report.slips.isEmpty {
            let total = report.slips.reduce(0) { $0 + $1.seconds } * 1000
            let largest = report.slips.map { abs($0.seconds) }.max()! * 1000
            out.append(String(printf: "  slips     %d step%@ in the device's time line without a restart (a sound server held up): %.2f ms in all, the largest %.2f ms; the rate is fitted between them",
                              report.slips.count, report.slips.count == 1 ? "" : "s", total, largest))
        }
        out.append(String(printf: "  device    %d Hz, %d channels, period %d, buffer %d frames; %@; underruns %d; late wake-ups %d (longest gap %.1f ms)",
                          c.sampleRate.hertz, c.channels, c.periodFrames, c.bufferFrames, r.scheduling, r.underruns,
                          r.lateWakeups, r.longestWakeGap * 1000))
        return out
    }
}
