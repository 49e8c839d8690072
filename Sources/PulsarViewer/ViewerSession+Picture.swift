import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottieRender
import PulsarPlot

/// The viewer's picture of an instant: the animation, the status bar, the timeline.
extension ViewerSession {
    /// The content time (ms) the clock says is heard at `time`, or nil before the device
    /// reported a position.
    public func contentMs(at time: MonotonicTime) -> Double? { content.player.contentTime(at: time) }

    /// The parts of the window at the surface's size.
    public func layout() -> ViewerLayout {
        ViewerLayout(width: surface.width, height: surface.height, scale: surface.pixelScale, hasAnimation: content.controller != nil,
                     hasAudio: content.player.mixer.audioFormat != nil, showsChrome: showsChrome, showsTimeline: showsTimeline)
    }

    /// The animation area at `time`, `width × height`: the animation frame the engine's clock
    /// gives for `time` rendered by rlottie (premultiplied, transparent where the animation is
    /// not). Before the clock has a position the frame of content time 0 is shown. Without an
    /// animation: a transparent image.
    public func animationArea(at time: MonotonicTime, width: Int, height: Int) throws -> ARGB32Image {
        if canvas.width != width || canvas.height != height { canvas = ARGB32Image(width: width, height: height) }
        guard let controller = content.controller, let renderer = content.renderer else { return canvas }
        let timing = controller.timing
        let frame = controller.currentFrame(at: time) ?? timing.inPoint
        try renderer.render(frame: Self.renderIndex(of: frame, timing: timing), into: &canvas, contentMode: contentMode)
        return canvas
    }

    /// The picture alone at `time`, `width × height`: the animation (as `animationArea`, premultiplied,
    /// transparent where it draws nothing) or, without one, the timeline with its playhead.
    public func pictureAlone(at time: MonotonicTime, width: Int, height: Int) throws -> ARGB32Image {
        if content.controller != nil { return try animationArea(at: time, width: width, height: height) }
        var painter = Painter(width: width, height: height, fill: ViewerColor(250, 250, 251))
        try drawTimeline(&painter, in: ViewerRect(x: 0, y: 0, width: width, height: height), at: time)
        return painter.image
    }

    /// The rlottie frame number drawn for composition frame `frame`: whole frames from `ip`,
    /// rounded down (as `pulsar frame` does).
    public static func renderIndex(of frame: LottieFrame, timing: LottieTiming) -> Int {
        timing.renderIndex(of: frame)
    }

    /// The whole window for `time` at the surface's size: the picture, the status bar, the
    /// timeline with its playhead, the help panel when asked for.
    ///
    /// The picture's pixels are reused for the next call when nothing else holds them by then.
    public func frame(at time: MonotonicTime) throws -> ARGB32Image {
        let width = surface.width, height = surface.height
        let layout = layout()
        var painter = Painter(ARGB32Image(width: 0, height: 0))
        swap(&painter.image, &frameBuffer)
        if painter.image.width != width || painter.image.height != height { painter.image = ARGB32Image(width: width, height: height) }
        if !layout.picture.isEmpty {
            let area = try animationArea(at: time, width: layout.picture.width, height: layout.picture.height)
            painter.composite(area, over: background, y: layout.picture.y)
        }
        if !layout.status.isEmpty {
            let pixels = try TextPicture.bar(rows: statusRows(at: time), width: layout.status.width, height: layout.status.height,
                                             scale: surface.pixelScale, background: Self.statusBackground)
            painter.draw(ARGB32Image(width: layout.status.width, height: layout.status.height, pixels: pixels), x: 0, y: layout.status.y)
            painter.fill(x: 0, y: layout.status.y, width: width, height: max(Int(surface.pixelScale), 1), ViewerColor(214, 217, 223))
        }
        if !layout.timeline.isEmpty { try drawTimeline(&painter, in: layout.timeline, at: time) }
        if showsHelp { try drawHelp(&painter, over: layout.picture.isEmpty ? layout.timeline : layout.picture) }
        frameBuffer = painter.image
        return painter.image
    }

    /// The status bar's ground.
    static let statusBackground = PlotColor(255, 255, 255)

    // MARK: Timeline

    /// The content time under x pixel `x` of the timeline.
    func timelineMs(atX x: Int) -> Double {
        let rect = layout().timeline
        guard var view = timelineView(), let strip = try? view.strip(width: rect.width, height: fillsTimeline ? rect.height : nil,
                                                                     scale: surface.pixelScale) else {
            return Double(x) / Double(max(surface.width - 1, 1)) * content.player.durationMs
        }
        timeline = .some(view)
        return strip.ms(atX: Double(x - rect.x))
    }

    /// Without an animation the timeline fills its area; under one it has its natural height.
    private var fillsTimeline: Bool { content.controller == nil }

    /// The content's timeline, its data computed on first use (nil when that failed: told once).
    private func timelineView() -> TimelineView? {
        if let timeline { return timeline }
        var markers: [TimelineMarker] = []
        if let controller = content.controller {
            markers = controller.animation.markers.map {
                TimelineMarker(ms: controller.timing.milliseconds(atFrame: $0.start), name: MessageText.excerpt($0.name, limit: 40))
            }
        }
        do {
            let view = TimelineView(data: try TimelineData(mixer: content.player.mixer, markers: markers))
            timeline = .some(view)
            return view
        } catch {
            timeline = .some(nil)
            onMessage?("timeline: \(MessageText.oneLine(error.description))")
            return nil
        }
    }

    /// The timeline in `rect` with the loop and the playhead at the content heard at `time`.
    private func drawTimeline(_ painter: inout Painter, in rect: ViewerRect, at time: MonotonicTime) throws {
        guard var view = timelineView() else {
            painter.fill(x: rect.x, y: rect.y, width: rect.width, height: rect.height, ViewerColor(250, 250, 251))
            return
        }
        try view.draw(&painter, in: rect, scale: surface.pixelScale, fills: fillsTimeline, playheadMs: contentMs(at: time) ?? 0,
                      looping: looping)
        timeline = .some(view)
    }

    /// The playhead's colour.
    public static let playheadColor = TimelineView.playheadColor

    // MARK: Help

    /// The keys, as the help panel lists them.
    public static let helpRows: [(String, String)] = [
        ("space", "play / pause; after the end, play again"),
        ("← →", "seek back / forward 500 ms"),
        (", .", "one frame back / forward"),
        ("click, drag", "on the timeline: seek, scrub"),
        ("l", "loop on / off"),
        ("r", "reverse (boomerang) on / off"),
        ("h", "haptics on / off"),
        ("n p", "next / previous preset"),
        ("c", "timeline on / off"),
        ("drop a file", "open it"),
        ("?", "this help on / off"),
        ("q  Esc", "quit"),
    ]

    private func drawHelp(_ painter: inout Painter, over rect: ViewerRect) throws {
        let scale = surface.pixelScale
        if helpCache?.scale != scale {
            let panel = try TextPicture.panel(title: "Keys", rows: Self.helpRows, scale: scale)
            helpCache = (scale, ARGB32Image(width: panel.width, height: panel.height, pixels: panel.pixels))
        }
        guard let image = helpCache?.image else { return }
        let area = rect.isEmpty ? ViewerRect(x: 0, y: 0, width: surface.width, height: surface.height) : rect
        painter.draw(image, x: area.x + (area.width - image.width) / 2, y: area.y + max((area.height - image.height) / 2, 0))
    }
}
