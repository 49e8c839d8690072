import PulsarCore
import PulsarLottie
import PulsarLottieRender

/// Where the pictures of a video come from: one picture per slot of the `FrameSchedule`, all
/// `width × height`, premultiplied ARGB32 (the encoder composites what is not opaque over its
/// background). `VideoExporter` asks for the slots in order, once each, on one thread.
///
/// The seam a picture other than the animation alone (a timeline strip under it, …) plugs into:
/// conform, and hand the source to `VideoExporter.export`.
public protocol VideoFrameSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// The picture of `slot` (its index, its output sample, the content time shown there).
    func picture(for slot: VideoSlot) throws -> ARGB32Image
}

/// A `VideoFrameSource` made of a closure `(slot) -> ARGB32Image`.
public final class ClosureFrameSource: VideoFrameSource {
    public let width: Int
    public let height: Int
    private let draw: (VideoSlot) throws -> ARGB32Image

    public init(width: Int, height: Int, draw: @escaping (VideoSlot) throws -> ARGB32Image) {
        self.width = width
        self.height = height
        self.draw = draw
    }

    public func picture(for slot: VideoSlot) throws -> ARGB32Image { try draw(slot) }
}

/// The animation alone (`--picture-only`): at each slot the frame the Lottie player shows at the
/// slot's content time (`LottieTiming.shownFrame`, whole frames from `ip` rounded down:
/// `LottieTiming.renderIndex`), rendered by rlottie at the canvas size in the content mode.
public final class AnimationFrameSource: VideoFrameSource {
    public let width: Int
    public let height: Int
    public let timing: LottieTiming
    private let renderer: LottieRenderer
    private let contentMode: LottieContentMode
    private var canvas: ARGB32Image

    public init(renderer: LottieRenderer, timing: LottieTiming, width: Int, height: Int, contentMode: LottieContentMode) {
        self.renderer = renderer
        self.timing = timing
        self.width = width
        self.height = height
        self.contentMode = contentMode
        canvas = ARGB32Image(width: width, height: height)
    }

    /// The rlottie frame number drawn at content time `milliseconds`.
    public func renderIndex(atMilliseconds milliseconds: Double) -> Int {
        timing.renderIndex(of: timing.shownFrame(atMilliseconds: milliseconds))
    }

    public func picture(for slot: VideoSlot) throws -> ARGB32Image {
        try renderer.render(frame: renderIndex(atMilliseconds: slot.contentMilliseconds), into: &canvas, contentMode: contentMode)
        return canvas
    }
}
