/// Index of a sample (an audio frame) counted from the first sample of a stream or render.
public typealias FrameIndex = Int64

/// A sample rate, and the named conversions between frames and content milliseconds.
/// Every frame ↔ time conversion in the project goes through these functions. They never trap:
/// a time beyond `Limits` saturates (`FrameIndex(saturating:)`); times from outside are checked
/// by `Limits` where they enter, so a saturated value never reaches a render.
///
/// A plain value type: safe to use from any thread, including the real-time path.
public struct SampleRate: Hashable, Sendable, CustomStringConvertible {
    /// Rates the renderer accepts.
    public static let supported: ClosedRange<Int> = 8_000...192_000

    /// Frames per second.
    public let hertz: Int

    /// Fails (returns nil) outside `supported`.
    public init?(_ hertz: Int) {
        guard Self.supported.contains(hertz) else { return nil }
        self.hertz = hertz
    }

    public var description: String { "\(hertz) Hz" }

    /// The time of frame `n` in milliseconds: `n / rate` seconds.
    public func milliseconds(atFrame frame: FrameIndex) -> Double {
        Double(frame) * 1000 / Double(hertz)
    }

    /// The frame nearest to a time: `round(ms · rate / 1000)`, halves away from zero
    /// (where a transient starts).
    public func nearestFrame(atMilliseconds ms: Double) -> FrameIndex {
        FrameIndex(saturating: (ms * Double(hertz) / 1000).rounded())
    }

    /// The first frame at or after a time: `ceil(ms · rate / 1000)` (where a segment starts).
    public func firstFrame(atOrAfterMilliseconds ms: Double) -> FrameIndex {
        FrameIndex(saturating: (ms * Double(hertz) / 1000).rounded(.up))
    }

    /// Whole frames in a duration, rounded to nearest.
    public func frameCount(forSeconds seconds: Double) -> FrameIndex {
        FrameIndex(saturating: (seconds * Double(hertz)).rounded())
    }
}
