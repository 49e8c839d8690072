import Glibc

/// The picture of a `TimelineData` as a strip (the viewer's, under its picture; the video's):
/// a row of named marker ticks, then lanes on one time axis — "pattern" (the amplitude curve
/// filled, the frequency parameter as a line, the transients as stems as tall as their
/// amplitude), "haptic" (the haptic render's min/max per pixel column), "audio" (the audio's,
/// when there is audio) — and a row of time ticks in seconds. Drawn with cairo in DejaVu Sans,
/// in `pulsar plot`'s colours; everything scales with `scale` (device pixels per point).
///
/// What moves — the playhead, the loop's shading — is not in it: `x(atMs:)` says where to draw it.
///
/// Thread rules: a value; `render()` draws on the calling thread (not the real-time one).
public struct TimelineStrip: Sendable {
    public let data: TimelineData
    public let width: Int
    public let height: Int
    public let scale: Double

    /// The strip's colours.
    public enum Colors {
        public static let background = PlotColor(250, 250, 251)
        public static let lane = PlotColor(240, 241, 244)
        public static let playhead = PlotColor(20, 22, 26)
        public static let loop = PlotColor(86, 180, 233, 48)
    }

    /// How much taller than their own height the lanes are drawn (1: the natural height).
    private let laneFactor: Double

    /// A strip `width` wide, of its natural height (`height(hasAudio:scale:)`) or, given
    /// `height`, that tall: the lanes share what the marker and time rows leave, in proportion.
    public init(data: TimelineData, width: Int, height: Int? = nil, scale: Double = 1) {
        self.data = data
        self.scale = max(scale, 0.5)
        self.width = max(width, 1)
        let natural = Self.height(hasAudio: data.audio != nil, scale: self.scale)
        let fixed = (Self.markerRow + Self.timeRow + Self.gap * (data.audio != nil ? 4 : 3)) * self.scale
        let lanes = Double(natural) - fixed
        self.height = max(height ?? natural, Int(fixed.rounded(.up)) + 3)
        laneFactor = max((Double(self.height) - fixed) / lanes, 0.05)
    }

    /// The strip's height in pixels: marker row, lanes, time row.
    public static func height(hasAudio: Bool, scale: Double) -> Int {
        let rows = markerRow + patternLane + hapticLane + (hasAudio ? audioLane : 0) + timeRow + gap * (hasAudio ? 4 : 3)
        return Int((rows * max(scale, 0.5)).rounded(.up))
    }

    // Heights in points.
    private static let markerRow = 18.0, patternLane = 58.0, hapticLane = 40.0, audioLane = 30.0, timeRow = 16.0, gap = 3.0
    private static let inset = 12.0, fontSize = 10.5

    /// The x pixel of content time `ms`, clamped into the lanes.
    public func x(atMs ms: Double) -> Double {
        let left = Self.inset * scale, right = Double(width) - Self.inset * scale
        let f = data.durationMs > 0 ? min(max(ms / data.durationMs, 0), 1) : 0
        return left + f * max(right - left, 1)
    }

    /// The content time under x pixel `x` (clamped to `0 … durationMs`): inverse of `x(atMs:)`.
    public func ms(atX x: Double) -> Double {
        let left = Self.inset * scale, right = Double(width) - Self.inset * scale
        let f = min(max((x - left) / max(right - left, 1), 0), 1)
        return f * data.durationMs
    }

    /// Top and bottom pixel rows of the lanes (where a playhead is drawn).
    public var lanesSpan: (top: Int, bottom: Int) {
        let top = (Self.markerRow + Self.gap) * scale
        return (Int(top.rounded(.down)), Int((Double(height) - (Self.timeRow + Self.gap) * scale).rounded(.up)))
    }

    /// The strip as premultiplied ARGB32 pixels, `width × height`.
    public func render() throws(PlotError) -> [UInt32] {
        let canvas = try CairoCanvas(width: width, height: height, format: .png, sides: 1...Figure.sides.upperBound)
        canvas.fill([PlotRect(x: 0, y: 0, width: Double(width), height: Double(height))], Colors.background)
        var y = (Self.markerRow + Self.gap) * scale
        let lanes = lanes()
        let left = x(atMs: 0), right = x(atMs: data.durationMs)
        for lane in lanes {
            let name = lane.rawValue, points = lane.points
            let rect = PlotRect(x: left, y: y.rounded(), width: right - left, height: (points * laneFactor * scale).rounded())
            canvas.fill([rect], Colors.lane)
            try canvas.clipped(to: rect) { () throws(PlotError) in try drawLane(lane, in: rect, canvas) }
            let labelSize = 8.5 * scale, labelWidth = canvas.textWidth(name, size: labelSize)
            canvas.fill([PlotRect(x: rect.minX, y: rect.minY, width: (labelWidth + 6 * scale).rounded(.up), height: (12 * scale).rounded())],
                        Colors.background.withAlpha(215))
            canvas.text(name, at: PlotPoint(rect.minX + 3 * scale, rect.minY + 9 * scale), size: labelSize, color: PlotColor.secondaryInk)
            y += (points * laneFactor + Self.gap) * scale
        }
        let lanesBottom = y - Self.gap * scale
        drawMarkers(canvas, lanesTop: (Self.markerRow + Self.gap) * scale, lanesBottom: lanesBottom)
        drawTimeTicks(canvas, y: lanesBottom)
        return try canvas.pixels()
    }

    /// The lanes top to bottom: the audio's only when there is audio.
    private enum Lane: String, CaseIterable {
        case pattern, haptic, audio

        var points: Double {
            switch self {
            case .pattern: return TimelineStrip.patternLane
            case .haptic: return TimelineStrip.hapticLane
            case .audio: return TimelineStrip.audioLane
            }
        }
    }

    private func lanes() -> [Lane] { data.audio != nil ? Lane.allCases : [.pattern, .haptic] }

    private func drawLane(_ lane: Lane, in rect: PlotRect, _ canvas: CairoCanvas) throws(PlotError) {
        switch lane {
        case .pattern: drawPattern(in: rect, canvas)
        case .haptic: try drawEnvelope(data.haptic, in: rect, canvas)
        case .audio: if let audio = data.audio { try drawEnvelope(audio, in: rect, canvas) }
        }
    }

    /// The 0…1 curves and the transients, 0 at the lane's bottom (less a margin), 1 at its top.
    private func drawPattern(in rect: PlotRect, _ canvas: CairoCanvas) {
        let margin = 3 * scale
        func y(_ v: Double) -> Double { rect.maxY - margin - min(max(v, 0), 1) * (rect.height - 2 * margin) }
        let amplitude = data.amplitude.map { PlotPoint(x(atMs: $0.x), y($0.y)) }
        if amplitude.count > 1 {
            let base = y(0)
            canvas.fillPolygons([amplitude + [PlotPoint(amplitude.last!.x, base), PlotPoint(amplitude[0].x, base)]],
                                PresetPlot.Palette.amplitude.withAlpha(50))
            canvas.polylines([amplitude], PresetPlot.Palette.amplitude, width: 1.5 * scale)
        }
        if let frequency = data.frequency {
            canvas.polylines([frequency.map { PlotPoint(x(atMs: $0.x), y($0.y)) }], PresetPlot.Palette.frequency, width: 1.5 * scale,
                             dash: data.frequencyIsDefault ? [4 * scale, 3 * scale] : [])
        }
        let stems = data.transients.map { p in (PlotPoint(x(atMs: p.x), y(0)), PlotPoint(x(atMs: p.x), y(p.y))) }
        canvas.segments(stems, PresetPlot.Palette.transient, width: 2 * scale)
        canvas.discs(stems.map(\.1), radius: 2.5 * scale, PresetPlot.Palette.transient)
    }

    /// Min/max per pixel column of `envelope`, −1…1 across the lane.
    private func drawEnvelope(_ envelope: Envelope, in rect: PlotRect, _ canvas: CairoCanvas) throws(PlotError) {
        let mid = rect.minY + rect.height / 2, half = rect.height / 2 - 1
        var rects: [PlotRect] = []
        let n = Double(envelope.columns)
        for column in 0..<Int(rect.width.rounded(.up)) {
            let x0 = rect.minX + Double(column)
            let a = ms(atX: x0) / data.durationMs * n, b = ms(atX: x0 + 1) / data.durationMs * n
            let first = max(Int(a.rounded(.down)), 0), last = min(max(Int(b.rounded(.up)) - 1, first), envelope.columns - 1)
            guard first <= last else { continue }
            let lo = envelope.minimum[first...last].min()!, hi = envelope.maximum[first...last].max()!
            guard lo <= hi else { continue }
            let top = (mid - min(hi, 1) * half).rounded(.down), bottom = (mid - max(lo, -1) * half).rounded(.up)
            rects.append(PlotRect(x: x0, y: top, width: 1, height: max(bottom - top, 1)))
        }
        try canvas.aliased { () throws(PlotError) in canvas.fill(rects, envelope.color) }
    }

    /// Each marker: a tick in the marker row with its name after it (left out where it would
    /// run into the next name), and a dashed line down through the lanes.
    private func drawMarkers(_ canvas: CairoCanvas, lanesTop: Double, lanesBottom: Double) {
        let size = Self.fontSize * scale
        var freeFrom = -Double.infinity
        for marker in data.markers {
            let at = x(atMs: marker.ms).rounded() + 0.5
            canvas.segments([(PlotPoint(at, 3 * scale), PlotPoint(at, lanesTop))], PresetPlot.Palette.marker, width: 2 * scale)
            canvas.segments([(PlotPoint(at, lanesTop), PlotPoint(at, lanesBottom))], PresetPlot.Palette.marker.withAlpha(170),
                            width: 1 * scale, dash: [3 * scale, 3 * scale])
            let name = marker.name.isEmpty ? "marker" : marker.name
            let textX = at + 4 * scale, textWidth = canvas.textWidth(name, size: size)
            guard textX >= freeFrom, textX + textWidth <= Double(width) - 2 * scale else { continue }
            canvas.text(name, at: PlotPoint(textX, 13 * scale), size: size, color: PresetPlot.Palette.marker.mixed(with: .black, 0.35))
            freeFrom = textX + textWidth + 6 * scale
        }
    }

    /// Ticks at nice steps of seconds under the lanes, labelled "0 s", "0.5 s", ….
    private func drawTimeTicks(_ canvas: CairoCanvas, y: Double) {
        let size = Self.fontSize * scale
        let seconds = data.durationMs / 1000
        let room = max(Double(width) / (60 * scale), 1)
        let step = Ticks.step(span: seconds, maxCount: Int(room))
        let values = Ticks.values(in: 0...seconds, step: step)
        canvas.segments(values.map { v in (PlotPoint(x(atMs: v * 1000).rounded() + 0.5, y), PlotPoint(x(atMs: v * 1000).rounded() + 0.5, y + 4 * scale)) },
                        PlotColor.secondaryInk, width: 1 * scale)
        for v in values {
            let label = Ticks.label(v, step: step) + " s"
            let at = x(atMs: v * 1000)
            let anchor: TextAnchor = v == 0 ? .leading : at + canvas.textWidth(label, size: size) / 2 > Double(width) ? .trailing : .center
            canvas.text(label, at: PlotPoint(at, y + 14 * scale), size: size, color: PlotColor.secondaryInk, anchor: anchor)
        }
    }
}
