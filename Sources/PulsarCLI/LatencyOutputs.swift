import Glibc
import PulsarCommandLine
import PulsarCore
import PulsarDrift
import PulsarPlot

/// What `pulsar latency` writes: the summary, `--json` and `--plot`, each whole or not at all.
enum LatencyOutputs {
    static func write(_ report: LatencyReport, run: LatencyRun, options: LatencyOptions) throws(CommandFailure) {
        if let path = options.jsonPath {
            do {
                try OutputFile.write(Array(json(report).utf8), to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: cannot write \(error)")
            }
        }
        if let path = options.plotPath {
            guard report.series.contains(where: { $0.clock != nil }) else {
                if !options.quiet { Console.error("\(LatencyCommand.command): warning: no trigger was measured; \(path) not written") }
                return
            }
            do {
                try figure(report).write(to: path)
            } catch {
                throw CommandFailure(.ioError, "pulsar: error: \(error)")
            }
        }
    }

    static func json(_ r: LatencyReport) -> String {
        func summary(_ s: LatencySummary?) -> JSONValue {
            guard let s else { return JSONValue(.null) }
            return .obj(["min": round3(s.min), "p50": round3(s.p50), "p99": round3(s.p99), "max": round3(s.max), "count": .num(Double(s.count))])
        }
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

    private static func round3(_ v: Double) -> JSONValue { .num((v * 1000).rounded() / 1000) }

    static func summary(_ r: LatencyReport) -> String {
        func line(_ s: LatencySummary?) -> String {
            guard let s else { return "nothing measured" }
            return String(printf: "min %.2f ms, p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d clicks)", s.min, s.p50, s.p99, s.max, s.count)
        }
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

    /// Each click's latency over the run: by the clock, and by the capture when there is one.
    static func figure(_ r: LatencyReport) -> Figure {
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
                      subtitles: [summary(r).split(separator: "\n").dropFirst().map { $0.trimmedOfBlanks }.joined(separator: " · ")],
                      xAxis: Axis("time", unit: "s", range: .fixed(0...span)), panels: [panel])
    }
}
