import PulsarCore
import PulsarPlot

/// What `pulsar latency` reports.
public struct LatencyReport: Sendable {
    public var device: String
    public var period: Int
    public var quantum: Int?
    public var triggers: Int
    public var refused: Int
    public var clock: LatencySummary?
    public var capture: LatencySummary?
    public var captured: Bool
    public var captureMinusClock: (min: Double, p50: Double, max: Double)?
    public var captureOverrun: Int
    public var underruns: Int
    /// Triggers whose call the machine held up (over 0.5 ms): their latency includes it.
    public var heldUp: Int
    /// Times the engine's clock saw the device's time line move (a sound server held up, its
    /// cycles late): the clock's figures near one are off until it has started over.
    public var clockTimelineMoves: Int
    /// Per trigger: seconds into the run, and its latency by the clock and by the capture.
    public var series: [(time: Double, clock: Double?, capture: Double?)]
}

extension LatencyReport {
    /// `pulsar latency --json`: one object, ending in a newline. `clockLatencyMs` (and, with a
    /// capture, `captureLatencyMs`) `{min, p50, p99, max, count}`, `captureMinusClockMs`
    /// `{min, p50, max}` and `captureOverrunFrames`; the device, period, quantum, trigger count
    /// (`count`), `refused`, `underruns`, `heldUp` and `clockTimelineMoves`. Milliseconds to
    /// three decimals; a figure nothing was measured for is `null`.
    public var json: String {
        func summary(_ s: LatencySummary?) -> JSONValue {
            guard let s else { return JSONValue(.null) }
            return .obj(["min": round3(s.min), "p50": round3(s.p50), "p99": round3(s.p99), "max": round3(s.max), "count": .num(Double(s.count))])
        }
        let r = self
        var object: [(key: String, value: JSONValue)] = [
            ("device", .str(r.device)), ("period", .num(Double(r.period))), ("quantum", r.quantum.map { .num(Double($0)) } ?? JSONValue(.null)),
            ("count", .num(Double(r.triggers))), ("refused", .num(Double(r.refused))), ("underruns", .num(Double(r.underruns))), ("heldUp", .num(Double(r.heldUp))),
            ("clockTimelineMoves", .num(Double(r.clockTimelineMoves))),
            ("clockLatencyMs", summary(r.clock)),
        ]
        if r.captured {
            object.append(("captureLatencyMs", summary(r.capture)))
            object.append(("captureMinusClockMs", r.captureMinusClock.map { .obj(["min": round3($0.min), "p50": round3($0.p50), "max": round3($0.max)]) }
                ?? JSONValue(.null)))
            object.append(("captureOverrunFrames", .num(Double(r.captureOverrun))))
        }
        return JSONWriter(indent: 2).write(JSONValue(.object(object))) + "\n"
    }

    private func round3(_ v: Double) -> JSONValue { .num((v * 1000).rounded() / 1000) }

    /// The figures as a person reads them: a line for the run, one for the clock's, and with a
    /// capture one for the capture's and one for their difference per click.
    public var summary: String {
        func line(_ s: LatencySummary?) -> String {
            guard let s else { return "nothing measured" }
            return String(printf: "min %.2f ms, p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d clicks)", s.min, s.p50, s.p99, s.max, s.count)
        }
        let r = self
        let quantum = r.quantum.map { ", quantum \($0)" } ?? ""
        var held = r.heldUp > 0 ? ", \(r.heldUp) calls held up over 0.5 ms by the machine" : ""
        if r.clockTimelineMoves > 0 { held += ", the device's time line moved \(r.clockTimelineMoves)× (a sound server held up)" }
        var lines = ["trigger latency on '\(r.device)' (period \(r.period)\(quantum)): \(r.triggers) clicks, \(r.underruns) underruns\(held)",
                     "  by the clock:   " + line(r.clock)]
        if r.captured {
            lines.append("  by the capture: " + line(r.capture))
            if let d = r.captureMinusClock {
                lines.append(String(printf: "  capture minus clock per click: min %+.2f ms, median %+.2f ms, max %+.2f ms", d.min, d.p50, d.max))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Whether any trigger was measured by the clock: a figure needs one.
    public var hasMeasurements: Bool { series.contains { $0.clock != nil } }

    /// `pulsar latency --plot`: each click's latency over the run, by the clock, and by the
    /// capture when there is one.
    public func figure() -> Figure {
        let r = self
        let span = max(r.series.map(\.time).max() ?? 1, 1e-3)
        let values = r.series.flatMap { [$0.clock, $0.capture].compactMap { $0 } }
        let top = max(values.max() ?? 1, 1) * 1.15, bottom = min(values.min() ?? 0, 0) * 1.15
        var panel = Panel(title: "latency of each click, from the call to the device's edge", yAxis: Axis("latency", unit: "ms", range: .fixed(bottom...top)))
        panel.add(.marks(Marks(points: r.series.compactMap { p in p.clock.map { PlotPoint(p.time, $0) } }, color: .blue, size: 6,
                               label: "by the device-slaved clock")))
        if r.captured {
            panel.add(.marks(Marks(points: r.series.compactMap { p in p.capture.map { PlotPoint(p.time, $0) } }, color: .vermilion, size: 4,
                                   label: "by the capture")))
        }
        if let p99 = r.clock?.p99 {
            panel.add(.horizontal(ReferenceLine(p99, color: .ink, label: String(printf: "clock p99 %.2f ms", p99))))
        }
        return Figure(width: 1600, height: 700, title: "pulsar latency: \(r.device), period \(r.period)" + (r.quantum.map { ", quantum \($0)" } ?? ""),
                      subtitles: [summary.split(separator: "\n").dropFirst().map { $0.trimmedOfBlanks }.joined(separator: " · ")],
                      xAxis: Axis("time", unit: "s", range: .fixed(0...span)), panels: [panel])
    }
}
