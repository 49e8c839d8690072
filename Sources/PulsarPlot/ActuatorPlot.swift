import PulsarCore
import PulsarLint

/// `pulsar plot PATTERN --actuator A`: the pattern as the config's renderer reads it, the
/// config's band in Hz, the haptic channel it draws, and what `pulsar lint` finds there, each
/// finding a shaded span named by its rule (docs/actuators.md, "Lint").
public struct ActuatorPlot {
    public let lint: LintAnalysis.ActuatorLint
    public let width: Int
    public let height: Int
    /// The span drawn, ms.
    public let span: ClosedRange<Double>

    public static let findingColor = PlotColor.vermilion

    public init(lint: LintAnalysis.ActuatorLint, width: Int, height: Int, span: ClosedRange<Double>) {
        self.lint = lint
        self.width = width
        self.height = height
        self.span = span
    }

    public func figure() -> Figure {
        let device = lint.device
        let findings = LintRules.check(device)
        var figure = Figure(width: width, height: height, title: "\(lint.input) through \(device.name)",
                            subtitles: [summary(findings)], xAxis: Axis("time", unit: "ms", range: .fixed(span)))
        _ = figure.add(patternPanel())
        _ = figure.add(frequencyPanel())
        _ = figure.add(outputPanel(findings))
        return figure
    }

    private func summary(_ findings: [LintFinding]) -> String {
        let d = lint.device
        let rules = Dictionary(grouping: findings, by: \.rule).map { "\($0.value.count) \($0.key)" }.sorted()
        return "band \(JSONWriter.format(d.minimumHertz))–\(JSONWriter.format(d.maximumHertz)) Hz · "
            + (findings.isEmpty ? "no lint finding" : "lint: " + rules.joined(separator: ", "))
    }

    /// The clip's amplitude and frequency (0…1) and its emphases as stems.
    private func patternPanel() -> Panel {
        var panel = Panel(title: "pattern as the device's renderer reads it", yAxis: Axis("value (0…1)", range: .fixed(PresetPlot.valueSpan)), weight: 1.2)
        panel.add(.line(Polyline(points: lint.amplitude.map { PlotPoint($0.ms, $0.value) }, color: PresetPlot.Palette.amplitude,
                                 label: "amplitude", fill: PresetPlot.Palette.amplitude.withAlpha(40))))
        if !lint.frequency.isEmpty {
            panel.add(.line(Polyline(points: lint.frequency.map { PlotPoint($0.ms, $0.value) }, color: PresetPlot.Palette.frequency,
                                     label: "frequency (0…1)")))
        }
        let emphases = lint.transients.map { PlotPoint($0.ms, $0.amplitude) }
        if !emphases.isEmpty {
            panel.add(.marks(Marks(points: emphases, color: PresetPlot.Palette.transient, stemBaseline: 0, label: "emphases (amplitude)")))
        }
        return panel
    }

    /// The band's edges, the carrier's frequency and each burst's, in Hz.
    private func frequencyPanel() -> Panel {
        let low = lint.device.minimumHertz, high = max(lint.highestHertz, lint.device.maximumHertz)
        let margin = max((high - low) * 0.12, 5)
        var panel = Panel(title: "frequency in Hz (band of \(lint.device.name))", yAxis: Axis("frequency", unit: "Hz", range: .fixed((low - margin)...(high + margin))),
                          weight: 0.8)
        for edge in [lint.device.minimumHertz, lint.device.maximumHertz] {
            panel.add(.horizontal(ReferenceLine(edge, color: PresetPlot.Palette.band, dash: [3, 3], label: "\(JSONWriter.format(edge)) Hz")))
        }
        let carrier = lint.frequency.isEmpty
            ? [PlotPoint(span.lowerBound, lint.carrierHertz(0.5)), PlotPoint(span.upperBound, lint.carrierHertz(0.5))]
            : lint.frequency.map { PlotPoint($0.ms, lint.carrierHertz($0.value)) }
        panel.add(.line(Polyline(points: carrier, color: PresetPlot.Palette.frequency, label: "carrier frequency")))
        let bursts = lint.transients.map { PlotPoint($0.ms, lint.transientHertz($0.frequency)) }
        if !bursts.isEmpty {
            panel.add(.marks(Marks(points: bursts, color: PresetPlot.Palette.transient, size: 6, label: lint.actuator.burstConfig == nil ? "transient frequency" : "burst frequency")))
        }
        return panel
    }

    /// The render (min/max per column) under the findings' spans, each named by its rule.
    private func outputPanel(_ findings: [LintFinding]) -> Panel {
        var panel = Panel(title: "haptic channel through \(lint.device.name), lint findings shaded", yAxis: Axis("sample", range: .fixed(PresetPlot.sampleSpan)))
        for (i, f) in findings.enumerated() {
            // A span at least a pixel wide, so a one-sample step shows.
            let pad = max(0, (span.upperBound - span.lowerBound) / Double(width) - (f.toMs - f.fromMs)) / 2
            panel.add(.line(Polyline(points: [PlotPoint(f.fromMs - pad, 1.05), PlotPoint(f.toMs + pad, 1.05)], color: Self.findingColor.withAlpha(90),
                                     width: 1, label: i == 0 ? "lint findings" : nil, fill: Self.findingColor.withAlpha(50), fillBaseline: -1.05)))
        }
        // Each span's rule at its start, along the top (texts that would overlap are left out).
        for f in findings where span.contains(f.fromMs) {
            panel.add(.vertical(ReferenceLine(f.fromMs, color: Self.findingColor, width: 1, dash: [2, 2], label: f.rule)))
        }
        let rate = Double(lint.device.rate)
        let first = max(0, Int((span.lowerBound * rate / 1000).rounded(.down))), last = min(lint.device.samples.count, Int((span.upperBound * rate / 1000).rounded(.up)))
        var envelope = Envelope(span: span, columns: width, color: PresetPlot.Palette.haptic, label: "output, min/max per pixel")
        if first < last {
            lint.device.samples[first..<last].withUnsafeBufferPointer {
                envelope.add($0, firstX: Double(first) * 1000 / rate, xStep: 1000 / rate)
            }
        }
        panel.add(.envelope(envelope))
        return panel
    }
}
