import PulsarPlot

/// A rectangle of the window, in drawable pixels.
public struct ViewerRect: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(width, 0)
        self.height = max(height, 0)
    }

    public var isEmpty: Bool { width == 0 || height == 0 }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < x + width && py >= y && py < y + height
    }
}

/// Where the window's parts go: the picture (the animation) on top, under it the status bar,
/// under that the timeline. Nothing is drawn over the picture but the help panel (on `?`).
///
/// Without an animation there is no picture: the status bar is on top and the timeline fills
/// the rest. In a window too short for all three, the timeline goes first, then the status
/// bar, so that the picture keeps at least a third of the height.
///
/// Pure: any thread.
public struct ViewerLayout: Sendable, Equatable {
    public let picture: ViewerRect
    public let status: ViewerRect
    public let timeline: ViewerRect

    /// The default shorter side of the picture: a small animation is scaled up to it.
    public static let minimumPictureSide = 480
    /// The picture area of a preset without animation, in points, when the window is opened.
    public static let curvesSize = (width: 960, height: 360)
    /// The status bar's rows.
    public static let statusRows = 2

    /// The parts of a `width × height` window at `scale` pixels per point. `showsChrome` false:
    /// the picture alone (no status bar, no timeline).
    public init(width: Int, height: Int, scale: Double, hasAnimation: Bool, hasAudio: Bool, showsChrome: Bool = true,
                showsTimeline: Bool = true, statusRows: Int = ViewerLayout.statusRows) {
        var statusHeight = showsChrome ? TextPicture.barHeight(rows: statusRows, scale: scale) : 0
        if !hasAnimation {
            status = ViewerRect(x: 0, y: 0, width: width, height: min(statusHeight, height))
            picture = ViewerRect(x: 0, y: 0, width: width, height: 0)
            timeline = ViewerRect(x: 0, y: status.height, width: width, height: height - status.height)
            return
        }
        var timelineHeight = showsChrome && showsTimeline ? TimelineStrip.height(hasAudio: hasAudio, scale: scale) : 0
        if height - statusHeight - timelineHeight < height / 3 { timelineHeight = 0 }
        if height - statusHeight < height / 3 { statusHeight = 0 }
        let pictureHeight = height - statusHeight - timelineHeight
        picture = ViewerRect(x: 0, y: 0, width: width, height: pictureHeight)
        status = ViewerRect(x: 0, y: pictureHeight, width: width, height: statusHeight)
        timeline = ViewerRect(x: 0, y: pictureHeight + statusHeight, width: width, height: timelineHeight)
    }

    /// The picture size (points) a viewer opens with: an animation of `animation` (w × h)
    /// scaled so its shorter side is at least `minimumPictureSide` (never shrunk), kept with the
    /// status bar and the timeline within 92 % of `screen` (w × h, when known) by scaling the
    /// picture down, aspect kept. Without an animation, the timeline's area (`curvesSize`).
    public static func defaultPictureSize(animation: (width: Int, height: Int)?, hasAudio: Bool,
                                          screen: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        let chrome = chromeHeight(hasAnimation: animation != nil, hasAudio: hasAudio)
        guard let animation, animation.width > 0, animation.height > 0 else {
            return fitted((curvesSize.width, curvesSize.height), screen: screen.map { ($0.width, $0.height - chrome) })
        }
        let w = Double(animation.width), h = Double(animation.height)
        var k = max(1, Double(minimumPictureSide) / min(w, h))
        if let screen {
            let room = (width: Double(screen.width) * 0.92, height: Double(screen.height) * 0.92 - Double(chrome))
            k = min(k, max(min(room.width / w, room.height / h), 0.1))
        }
        return (max(Int((w * k).rounded()), 1), max(Int((h * k).rounded()), 1))
    }

    /// The window (points) around a picture of `picture`: the status bar and, with an animation,
    /// the timeline's natural height added under it (`showsChrome` false: the picture alone).
    public static func windowSize(picture: (width: Int, height: Int), hasAnimation: Bool, hasAudio: Bool,
                                  showsChrome: Bool, statusRows: Int = ViewerLayout.statusRows) -> (width: Int, height: Int) {
        guard showsChrome else { return picture }
        return (picture.width, picture.height + chromeHeight(hasAnimation: hasAnimation, hasAudio: hasAudio, statusRows: statusRows))
    }

    /// The status bar's height, and the timeline's when it sits under a picture, at scale 1.
    static func chromeHeight(hasAnimation: Bool, hasAudio: Bool, statusRows: Int = ViewerLayout.statusRows) -> Int {
        TextPicture.barHeight(rows: statusRows, scale: 1) + (hasAnimation ? TimelineStrip.height(hasAudio: hasAudio, scale: 1) : 0)
    }

    private static func fitted(_ size: (Int, Int), screen: (Int, Int)?) -> (width: Int, height: Int) {
        guard let screen else { return size }
        return (min(size.0, max(Int(Double(screen.0) * 0.92), 320)), min(size.1, max(Int(Double(screen.1) * 0.92), 200)))
    }
}
