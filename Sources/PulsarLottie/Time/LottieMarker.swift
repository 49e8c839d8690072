import PulsarCore

/// A named marker of a composition (`markers[]`: `cm` comment, `tm` start frame, `dr` duration
/// in frames).
///
/// Contract: `name` is `cm` as written, unless `cm` holds a JSON object with a string member
/// `name` (After Effects' "payload" markers, as lottie-web reads them): then `name` is that
/// member and `payload` the whole object. A marker without `cm` has the empty name. The frame
/// range is `tm … tm + dr` as written (it may lie outside `ip…op`).
///
/// A plain value type: safe to use from any thread.
public struct LottieMarker: Hashable, Sendable {
    /// The name markers are looked up by.
    public var name: String
    /// `cm` exactly as written (nil when absent).
    public var comment: String?
    /// `tm`: the first frame.
    public var start: LottieFrame
    /// `dr`: the length in frames (0 when absent).
    public var durationFrames: Double
    /// The object `cm` holds, when it is a JSON object; members as raw JSON text by key.
    public var payload: [String: String]?

    public init(name: String, comment: String? = nil, start: LottieFrame, durationFrames: Double,
                payload: [String: String]? = nil) {
        self.name = name
        self.comment = comment
        self.start = start
        self.durationFrames = durationFrames
        self.payload = payload
    }

    /// `tm … tm + dr`.
    public var frameRange: LottieFrameRange {
        LottieFrameRange(start: start, end: LottieFrame(start.value + durationFrames))
    }

    /// The end frame, `tm + dr`.
    public var end: LottieFrame { frameRange.end }
}
