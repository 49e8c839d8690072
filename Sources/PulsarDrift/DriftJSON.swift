import PulsarCore

/// `pulsar drift --json`: one object. For one device its keys are the device's (below); for two,
/// `{"complete", "devices": [A, B], "ratioPpm", "ratioPpmInterval95"}`. A device's keys:
/// `device`, `complete`, `seconds`, `nominalRate`, `measuredRate`, `ppm`, `ppmInterval95`
/// `[low, high]`, `wallClockDriftMsPerHour`, `jitterUs` `{p50, p99, max}`, `granularityFrames`,
/// `clockErrorSamples` and `clockErrorUs` `{p50, p99, max}`, `lockInSeconds`, `underruns`,
/// `lateWakeups`, `longestWakeGapMs`, `sampleRate`, `channels`, `periodFrames`, `bufferFrames`,
/// `scheduling`, `readings`, `segments` (runs between device restarts), `slips`, `slipsTotalMs` and
/// `slipEvents` (steps of the device's time line without a restart: `[{seconds, ms}]`, the first 100), and on the simulated device `truePpm` and
/// `trueClockErrorSamples`. A measure the run had too little for is `null`.
///
/// Thread rules: plain functions of values; any thread.
public enum DriftJSON {
    /// The whole document for `results` (one or two devices).
    public static func document(_ results: [DriftResult]) -> JSONValue {
        guard results.count == 2 else { return results.first.map(object) ?? .obj([:]) }
        var fields: [(key: String, value: JSONValue)] = [
            ("complete", JSONValue(.bool(results.allSatisfy(\.complete)))),
            ("devices", .arr(results.map(object))),
        ]
        if let a = results[0].report, let b = results[1].report {
            let ratio = DriftSession.ratio(a, b)
            fields.append(("ratioPpm", .num(ratio.ppm)))
            fields.append(("ratioPpmInterval95", .arr([.num(ratio.interval95.low), .num(ratio.interval95.high)])))
        } else {
            fields.append(("ratioPpm", null))
            fields.append(("ratioPpmInterval95", null))
        }
        return JSONValue(.object(fields))
    }

    /// The text written to the file: the document and a newline.
    public static func text(_ results: [DriftResult]) -> String {
        JSONWriter().write(document(results)) + "\n"
    }

    private static let null = JSONValue(.null)

    static func object(_ r: DriftResult) -> JSONValue {
        let report = r.report
        let rate = r.configuration.sampleRate.hertz
        func number(_ v: Double?) -> JSONValue { v.map { .num($0) } ?? null }
        func percentiles(_ p: Percentiles?) -> JSONValue {
            p.map { .obj(["p50": .num($0.p50), "p99": .num($0.p99), "max": .num($0.max)]) } ?? null
        }
        var fields: [(key: String, value: JSONValue)] = [
            ("device", .str(r.device)), ("complete", JSONValue(.bool(r.complete))),
            ("seconds", number(report?.seconds)), ("nominalRate", .num(Double(rate))),
            ("measuredRate", number(report?.measuredRate)), ("ppm", number(report?.ppm)),
            ("ppmInterval95", report.map { .arr([.num($0.ppmInterval95.low), .num($0.ppmInterval95.high)]) } ?? null),
            ("wallClockDriftMsPerHour", number(report?.wallClockDriftMsPerHour)),
            ("jitterUs", percentiles(report?.jitterMicroseconds)),
            ("granularityFrames", number(report?.granularityFrames.map(Double.init))),
            ("clockErrorSamples", percentiles(report?.clockErrorSamples)),
            ("clockErrorUs", percentiles(report?.clockErrorSamples.scaled(by: 1e6 / Double(rate)))),
            ("lockInSeconds", number(report?.lockInSeconds)),
            ("underruns", .num(Double(r.underruns))), ("lateWakeups", .num(Double(r.lateWakeups))),
            ("longestWakeGapMs", .num(r.longestWakeGap * 1000)),
            ("sampleRate", .num(Double(rate))), ("channels", .num(Double(r.configuration.channels))),
            ("periodFrames", .num(Double(r.configuration.periodFrames))),
            ("bufferFrames", .num(Double(r.configuration.bufferFrames))),
            ("scheduling", .str(r.scheduling)),
            ("readings", .num(Double(report?.readings ?? 0))), ("segments", .num(Double(report?.segments ?? 0))),
            ("slips", .num(Double(report?.slips.count ?? 0))),
            ("slipsTotalMs", .num((report?.slips ?? []).reduce(0) { $0 + $1.seconds } * 1000)),
            ("slipEvents", .arr((report?.slips ?? []).prefix(100).map { slip in
                .obj(["seconds": .num(slip.time.seconds(since: r.origin ?? slip.time)), "ms": .num(slip.seconds * 1000)])
            })),
        ]
        if let truePpm = r.truePpm {
            fields.append(("truePpm", .num(truePpm)))
            fields.append(("trueClockErrorSamples", percentiles(report?.trueClockErrorSamples)))
        }
        return JSONValue(.object(fields))
    }
}
