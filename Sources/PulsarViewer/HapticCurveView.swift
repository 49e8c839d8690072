import PulsarCore
import PulsarLottieRender

/// The picture of a preset without animation: its amplitude curve (filled), its frequency curve
/// (a line), its transients (bars as tall as their amplitude, coloured by their frequency) over
/// the content's duration, behind them the audio's peaks (a grey band mirrored about the middle,
/// when the preset has audio), and a playhead at the content time being heard.
///
/// x = `ms / durationMs` of the plot's width; y = value 0…1 from the plot's bottom to its top.
/// Curves are drawn between their points (linear, as the renderer interpolates them).
///
/// Thread rules: a value; `image(playheadMs:)` is pure.
public struct HapticCurveView: Sendable {
    public let pattern: PatternData
    public let durationMs: Double
    public let width: Int
    public let height: Int
    /// Everything but the playhead, drawn once.
    private let background: ARGB32Image

    public static let backgroundColor = ViewerColor(22, 24, 29)
    public static let amplitudeColor = ViewerColor(64, 196, 180)
    public static let frequencyColor = ViewerColor(240, 150, 60)
    public static let playheadColor = ViewerColor(255, 255, 255)

    public init(pattern: PatternData, durationMs: Double, width: Int, height: Int, audio: AudioPeaks? = nil) {
        self.pattern = pattern
        self.durationMs = durationMs > 0 ? durationMs : max(pattern.lastPointTime, 1)
        self.width = max(width, 1)
        self.height = max(height, 1)
        background = Self.drawStatic(pattern: pattern, durationMs: self.durationMs, width: self.width, height: self.height, audio: audio)
    }

    public static let audioColor = ViewerColor(150, 150, 160)

    /// The plot's rectangle inside the view (left, top, width, height).
    public var plot: (x: Int, y: Int, width: Int, height: Int) { Self.plotRect(width: width, height: height) }

    /// The x pixel of content time `ms` (clamped into the plot).
    public func x(atMs ms: Double) -> Double { Self.x(atMs: ms, durationMs: durationMs, plot: plot) }

    /// The view with the playhead at `ms` (nil: none).
    public func image(playheadMs ms: Double?) -> ARGB32Image {
        guard let ms else { return background }
        var painter = Painter(background)
        drawPlayhead(&painter, atMs: ms)
        return painter.image
    }

    /// Draws the view with the playhead at `ms` into `painter` (whose image has the view's size),
    /// reusing its pixels: the same picture as `image(playheadMs:)`.
    public func draw(into painter: inout Painter, playheadMs ms: Double) {
        painter.composite(background, over: Self.backgroundColor)
        drawPlayhead(&painter, atMs: ms)
    }

    private func drawPlayhead(_ painter: inout Painter, atMs ms: Double) {
        let p = plot
        let x = Int(self.x(atMs: ms).rounded())
        painter.fill(x: x - 1, y: p.y - 4, width: 2, height: p.height + 8, Self.playheadColor)
    }

    private static func plotRect(width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let margin = max(min(width, height) / 16, 4)
        let labels = height >= 120 ? 7 * (width >= 480 ? 2 : 1) + margin : 0
        return (margin, margin + labels, max(width - 2 * margin, 1), max(height - 2 * margin - labels, 1))
    }

    private static func x(atMs ms: Double, durationMs: Double, plot p: (x: Int, y: Int, width: Int, height: Int)) -> Double {
        Double(p.x) + min(max(ms / durationMs, 0), 1) * Double(p.width - 1)
    }

    private static func drawStatic(pattern: PatternData, durationMs: Double, width: Int, height: Int, audio: AudioPeaks?) -> ARGB32Image {
        var painter = Painter(width: width, height: height, fill: backgroundColor)
        let p = plotRect(width: width, height: height)
        func y(_ value: Double) -> Double { Double(p.y + p.height - 1) - min(max(value, 0), 1) * Double(p.height - 1) }
        func x(_ ms: Double) -> Double { Self.x(atMs: ms, durationMs: durationMs, plot: p) }

        // Frame and quarter lines.
        painter.fill(x: p.x, y: p.y, width: p.width, height: p.height, ViewerColor(255, 255, 255, 10))
        for q in 1..<4 {
            painter.fill(x: p.x, y: Int(y(Double(q) / 4)), width: p.width, height: 1, ViewerColor(255, 255, 255, 24))
        }
        // Audio peaks: a band mirrored about the plot's middle, one column at a time.
        if let audio {
            let middle = Double(p.y) + Double(p.height - 1) / 2
            for column in 0..<p.width {
                let from = Double(column) / Double(p.width) * durationMs, to = Double(column + 1) / Double(p.width) * durationMs
                let half = Double(audio.peak(fromMs: from, toMs: to)) * Double(p.height - 1) / 2
                guard half >= 0.5 else { continue }
                painter.fill(x: p.x + column, y: Int((middle - half).rounded()), width: 1, height: max(Int((2 * half).rounded()), 1),
                             audioColor.withAlpha(70))
            }
        }
        // Amplitude: filled below its line.
        let amplitude = pattern.continuousPattern.amplitude
        for (a, b) in zip(amplitude, amplitude.dropFirst()) where b.time > a.time {
            let x0 = Int(x(a.time).rounded()), x1 = Int(x(b.time).rounded())
            // Columns [x0, x1): each column filled once where segments meet.
            for column in x0..<max(x0 + 1, x1) {
                let t = x1 > x0 ? Double(column - x0) / Double(x1 - x0) : 0
                let top = Int(y(a.value + (b.value - a.value) * t).rounded())
                painter.fill(x: column, y: top, width: 1, height: p.y + p.height - top, amplitudeColor.withAlpha(90))
            }
            painter.line(from: (x(a.time), y(a.value)), to: (x(b.time), y(b.value)), thickness: 2, amplitudeColor)
        }
        // Frequency: a line.
        let frequency = pattern.continuousPattern.frequency
        for (a, b) in zip(frequency, frequency.dropFirst()) where b.time >= a.time {
            painter.line(from: (x(a.time), y(a.value)), to: (x(b.time), y(b.value)), thickness: 2, frequencyColor)
        }
        // Transients: bars, blue (low frequency) to yellow (high).
        for event in pattern.discretePattern {
            let f = min(max(event.frequency, 0), 1)
            let color = ViewerColor(UInt8(80 + 175 * f), UInt8(120 + 100 * f), UInt8(255 - 200 * f))
            let top = Int(y(event.amplitude).rounded())
            painter.fill(x: Int(x(event.time).rounded()) - 1, y: top, width: 3, height: p.y + p.height - top, color)
        }
        if p.y > 7 {
            let scale = width >= 480 ? 2 : 1
            painter.text("AMPLITUDE", x: p.x, y: p.y - 7 * scale - 4, scale: scale, amplitudeColor)
            painter.text("FREQUENCY", x: p.x + BitmapFont.width(of: "AMPLITUDE  ") * scale, y: p.y - 7 * scale - 4, scale: scale, frequencyColor)
            painter.text("TRANSIENTS", x: p.x + BitmapFont.width(of: "AMPLITUDE  FREQUENCY  ") * scale, y: p.y - 7 * scale - 4,
                         scale: scale, ViewerColor(200, 190, 120))
            if audio != nil {
                painter.text("AUDIO", x: p.x + BitmapFont.width(of: "AMPLITUDE  FREQUENCY  TRANSIENTS  ") * scale, y: p.y - 7 * scale - 4,
                             scale: scale, audioColor)
            }
        }
        return painter.image
    }
}
