import PulsarCore

/// The panels of a preset's figure, before the rendered signals fill them.
extension PresetPlot {
    /// The y span of the 0…1 panel: a little room around 0 and 1 so lines there stay whole.
    public static let valueSpan: ClosedRange<Double> = -0.05...1.05
    /// The y span of the waveform panels.
    public static let sampleSpan: ClosedRange<Double> = -1.05...1.05

    func patternPanel(span: ClosedRange<Double>, markers: [ReferenceLine]) -> Panel {
        let curves = preset.pattern.continuousPattern
        var panel = Panel(title: "pattern", yAxis: Axis("value (0…1)", range: .fixed(Self.valueSpan)), weight: 1.2)
        let amplitude = Self.amplitudePoints(curves)
        if !amplitude.isEmpty {
            panel.add(.line(Polyline(points: amplitude, color: Palette.amplitude, width: 2, label: "amplitude",
                                     fill: Palette.amplitude.withAlpha(40))))
        }
        if let frequency = Self.frequencyPoints(curves, span: span, map: { $0 }) {
            panel.add(.line(Polyline(points: frequency, color: Palette.frequency, width: 2, dash: curves.frequency.isEmpty ? [6, 4] : [],
                                     label: curves.frequency.isEmpty ? "frequency (none: 0.5)" : "frequency (0…1)")))
        }
        let transients = preset.pattern.discretePattern
        if !transients.isEmpty {
            panel.add(.marks(Marks(points: transients.map { PlotPoint($0.time, $0.amplitude) }, color: Palette.transient, size: 7,
                                   stemBaseline: 0, label: "transients (amplitude)")))
        }
        for line in markers { panel.add(.vertical(line)) }
        return panel
    }

    func frequencyPanel(span: ClosedRange<Double>, markers: [ReferenceLine]) -> Panel {
        let profile = options.settings.profile
        let margin = max((profile.maximumHertz - profile.minimumHertz) * 0.12, 5)
        let band = (profile.minimumHertz - margin)...(profile.maximumHertz + margin)
        var panel = Panel(title: "frequency in Hz (profile \(profile.name))", yAxis: Axis("frequency", unit: "Hz", range: .fixed(band)), weight: 0.8)
        panel.add(.horizontal(ReferenceLine(profile.minimumHertz, color: Palette.band, width: 1, dash: [3, 3],
                                            label: "\(JSONWriter.format(profile.minimumHertz)) Hz")))
        panel.add(.horizontal(ReferenceLine(profile.maximumHertz, color: Palette.band, width: 1, dash: [3, 3],
                                            label: "\(JSONWriter.format(profile.maximumHertz)) Hz")))
        let curves = preset.pattern.continuousPattern
        if let hz = Self.frequencyPoints(curves, span: span, map: profile.hertz(for:)) {
            panel.add(.line(Polyline(points: hz, color: Palette.frequency, width: 2, dash: curves.frequency.isEmpty ? [6, 4] : [],
                                     label: "carrier frequency")))
        }
        let transients = preset.pattern.discretePattern
        if !transients.isEmpty {
            panel.add(.marks(Marks(points: transients.map { PlotPoint($0.time, profile.hertz(for: $0.frequency)) }, color: Palette.transient,
                                   size: 6, label: "transient frequency")))
        }
        for line in markers { panel.add(.vertical(Self.unlabelled(line))) }
        return panel
    }

    func waveformPanel(title: String, color: PlotColor, label: String, markers: [ReferenceLine]) -> Panel {
        var panel = Panel(title: title, yAxis: Axis("sample", range: .fixed(Self.sampleSpan)))
        // The envelope's buckets are sized once the geometry is known (`filled`).
        panel.add(.envelope(Envelope(span: 0...1, columns: 1, color: color, label: label)))
        for line in markers { panel.add(.vertical(Self.unlabelled(line))) }
        return panel
    }

    func spectrumPanel(markers: [ReferenceLine]) -> Panel {
        let top = spectrumTopHertz
        var panel = Panel(title: "spectrogram of the haptic render", yAxis: Axis("frequency", unit: "Hz", range: .fixed(0...top)))
        panel.add(.heatMap(HeatMap(xSpan: 0...1, ySpan: 0...top, columns: 1, rows: 1, valueRange: Self.spectrumLevels,
                                   label: "level", unit: "dBFS", smooth: true)))
        for line in markers { panel.add(.vertical(Self.unlabelled(line))) }
        return panel
    }

    /// The levels the spectrogram's colours span.
    public static let spectrumLevels: ClosedRange<Double> = -80...0

    /// The spectrogram's highest frequency: the band's top and room above it for overtones.
    var spectrumTopHertz: Double {
        min(Double(options.settings.sampleRate.hertz) / 2, (options.settings.profile.maximumHertz * 1.6).rounded(.up))
    }

    private static func unlabelled(_ line: ReferenceLine) -> ReferenceLine {
        var copy = line
        copy.label = nil
        copy.legend = nil
        return copy
    }

    /// The amplitude curve as synthesis reads it (`A⁰`, docs/signal-model.md §4.3): its first value
    /// from 0, its points, its last value held to the end of the curves, then 0. Empty when
    /// there is no carrier.
    static func amplitudePoints(_ curves: ContinuousPattern) -> [PlotPoint] {
        let end = (curves.amplitude + curves.frequency).map(\.time).max() ?? 0
        guard let first = curves.amplitude.first, let last = curves.amplitude.last, end > 0 else { return [] }
        var points = [PlotPoint(0, 0)]
        if first.time > 0 { points.append(PlotPoint(0, first.value)) }
        points += curves.amplitude.filter { $0.time >= 0 && $0.time <= end }.map { PlotPoint($0.time, $0.value) }
        if last.time < end { points.append(PlotPoint(end, last.value)) }
        return points + [PlotPoint(end, 0)]
    }

    /// The frequency curve mapped by `map`, its ends held across `span` (§4.2); 0.5 throughout
    /// when the pattern has amplitude but no frequency points; nil when it has neither.
    static func frequencyPoints(_ curves: ContinuousPattern, span: ClosedRange<Double>, map: (Double) -> Double) -> [PlotPoint]? {
        guard let first = curves.frequency.first, let last = curves.frequency.last else {
            return curves.amplitude.isEmpty ? nil : [PlotPoint(span.lowerBound, map(0.5)), PlotPoint(span.upperBound, map(0.5))]
        }
        var points = curves.frequency.map { PlotPoint($0.time, map($0.value)) }
        if span.lowerBound < first.time { points.insert(PlotPoint(span.lowerBound, map(first.value)), at: 0) }
        if span.upperBound > last.time { points.append(PlotPoint(span.upperBound, map(last.value))) }
        return points
    }
}
