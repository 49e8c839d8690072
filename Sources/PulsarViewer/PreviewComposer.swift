import PulsarCore
import PulsarLottie
import PulsarLottieRender
import PulsarPlot

/// The picture of an instant as a shared preview shows it (`pulsar video`): the viewer's window
/// without a window — the animation on top, a one-row status bar (the title, the time, the
/// frame, the marker), the timeline with its playhead at the content time. Drawn from the
/// content time alone: no player, no clock.
///
/// Thread rules: a value; use one from one thread (it keeps its pixels between calls).
public struct PreviewComposer {
    public let width: Int
    public let height: Int
    public let layout: ViewerLayout
    public let scale: Double
    private let title: String
    private let animation: LottieAnimation?
    private let renderer: LottieRenderer?
    private let contentMode: LottieContentMode
    private let looping: Bool
    private let background: ViewerColor
    private var timeline: TimelineView
    private var canvas = ARGB32Image(width: 0, height: 0)
    private var frame = ARGB32Image(width: 0, height: 0)

    /// The status bar's rows in a preview.
    public static let statusRows = 1
    /// The ground behind the animation by default (the viewer's).
    public static let background = ViewerColor(242, 242, 242)

    /// A composer of `width × height` pictures; `looping` shades the timeline's lanes.
    public init(width: Int, height: Int, timeline: TimelineData, animation: LottieAnimation?, renderer: LottieRenderer?,
                contentMode: LottieContentMode = .aspectFit, title: String, looping: Bool = false,
                background: ViewerColor = PreviewComposer.background) {
        precondition((animation == nil) == (renderer == nil), "an animation comes with its renderer")
        self.width = max(width, 1)
        self.height = max(height, 1)
        scale = Self.scale(height: self.height)
        layout = ViewerLayout(width: self.width, height: self.height, scale: scale, hasAnimation: animation != nil,
                              hasAudio: timeline.audio != nil, statusRows: Self.statusRows)
        self.title = title
        self.animation = animation
        self.renderer = renderer
        self.contentMode = contentMode
        self.looping = looping
        self.background = background
        self.timeline = TimelineView(data: timeline)
    }

    /// Text and lines scale with the picture: 1 up to 960 pixels tall, then in steps of ½.
    public static func scale(height: Int) -> Double {
        max(1, (Double(height) / 960 * 2).rounded(.down) / 2)
    }

    /// The size of a preview whose animation is `picture` (w × h; nil: none): the picture, the
    /// status row and, with an animation, the timeline under it, at scale 1.
    public static func size(picture: (width: Int, height: Int)?, hasAudio: Bool) -> (width: Int, height: Int) {
        let shown = picture ?? ViewerLayout.curvesSize
        return ViewerLayout.windowSize(picture: shown, hasAnimation: picture != nil, hasAudio: hasAudio, showsChrome: true,
                                       statusRows: statusRows)
    }

    /// The picture at content time `ms` (premultiplied, opaque).
    public mutating func picture(atMs ms: Double) throws -> ARGB32Image {
        if frame.width != width || frame.height != height { frame = ARGB32Image(width: width, height: height) }
        var painter = Painter(ARGB32Image(width: 0, height: 0))
        swap(&painter.image, &frame)
        var frameText: String?
        if let animation, let renderer, !layout.picture.isEmpty {
            let timing = animation.timing
            let index = timing.renderIndex(of: timing.shownFrame(atMilliseconds: ms))
            if canvas.width != layout.picture.width || canvas.height != layout.picture.height {
                canvas = ARGB32Image(width: layout.picture.width, height: layout.picture.height)
            }
            try renderer.render(frame: index, into: &canvas, contentMode: contentMode)
            painter.composite(canvas, over: background, y: layout.picture.y)
            let count = ViewerSession.frameCount(timing)
            frameText = "frame \(min(index + 1, count)) of \(count)"
        }
        if !layout.status.isEmpty {
            let pixels = try TextPicture.bar(rows: [statusRow(atMs: ms, frameText: frameText)], width: width,
                                             height: layout.status.height, scale: scale, background: ViewerSession.statusBackground)
            painter.draw(ARGB32Image(width: width, height: layout.status.height, pixels: pixels), x: 0, y: layout.status.y)
        }
        if !layout.timeline.isEmpty {
            try timeline.draw(&painter, in: layout.timeline, scale: scale, fills: animation == nil, playheadMs: ms, looping: looping)
        }
        frame = painter.image
        return painter.image
    }

    private func statusRow(atMs ms: Double, frameText: String?) -> [TextItem] {
        var row = [TextItem(MessageText.excerpt(title, limit: 60), bold: true),
                   TextItem("\(ViewerSession.seconds(ms)) / \(ViewerSession.seconds(timeline.data.durationMs)) s")]
        if let frameText { row.append(TextItem(frameText)) }
        if let animation, let marker = ViewerSession.markerItem(animation, holding: animation.timing.shownFrame(atMilliseconds: ms)) {
            row.append(marker)
        }
        return row
    }
}
