import PulsarLottieRender
import PulsarPlot

/// A timeline drawn into a picture: the still strip (`TimelineStrip`, drawn once per size and
/// kept), and over it what moves — the loop's span shaded, the playhead at a content time. The
/// viewer's window and the video's frames draw it alike.
///
/// Thread rules: a value; use one from one thread.
public struct TimelineView {
    public let data: TimelineData
    private var cache: (strip: TimelineStrip, image: ARGB32Image)?

    /// The playhead's colour.
    public static let playheadColor = ViewerColor(214, 39, 40)
    /// The loop's shading over the lanes.
    public static let loopColor = ViewerColor(86, 180, 233, 40)

    public init(data: TimelineData) { self.data = data }

    /// The strip for a `width`-wide area: of its natural height, or (`height`) filling that.
    public mutating func strip(width: Int, height: Int?, scale: Double) throws(PlotError) -> TimelineStrip {
        if let cached = cache, cached.strip.width == width, cached.strip.scale == max(scale, 0.5),
           height == nil || cached.strip.height == height { return cached.strip }
        let strip = TimelineStrip(data: data, width: width, height: height, scale: scale)
        cache = (strip, ARGB32Image(width: strip.width, height: strip.height, pixels: try strip.render()))
        return strip
    }

    /// Draws the strip at `rect`'s top-left (filling `rect` when `fills`), the loop shaded when
    /// `looping`, and the playhead at `playheadMs`: a line `2 · scale` pixels wide (at least 2)
    /// whose left column is `round(x(ms)) − width / 2`, from 2 pixels below the strip's top to
    /// the lanes' bottom.
    public mutating func draw(_ painter: inout Painter, in rect: ViewerRect, scale: Double, fills: Bool,
                              playheadMs: Double, looping: Bool) throws(PlotError) {
        let strip = try strip(width: rect.width, height: fills ? rect.height : nil, scale: scale)
        guard let image = cache?.image else { return }
        painter.draw(image, x: rect.x, y: rect.y)
        let lanes = strip.lanesSpan
        if looping {
            let x0 = Int(strip.x(atMs: 0).rounded()), x1 = Int(strip.x(atMs: data.durationMs).rounded())
            painter.fill(x: rect.x + x0, y: rect.y + lanes.top, width: x1 - x0, height: lanes.bottom - lanes.top, Self.loopColor)
        }
        let thickness = max(Int((2 * scale).rounded()), 2)
        let x = Int(strip.x(atMs: playheadMs).rounded()) - thickness / 2
        painter.fill(x: rect.x + x, y: rect.y + 2, width: thickness, height: lanes.bottom - 2, Self.playheadColor)
    }
}
