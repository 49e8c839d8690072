/// How content is laid out along the output stream: a segment `[from, to)` of the content,
/// played `loopCount` times (`PlaybackTimeline.endless`: without end). The first iteration runs
/// backwards when `startsBackwards`; with `reverse` (boomerang) the direction flips at every
/// iteration, so iteration `k` runs backwards when `startsBackwards != (reverse && k is odd)`.
/// Pure frame arithmetic, shared by the offline renderer and the real-time engine.
///
/// Frames: the segment is in `ContentFrame`s, positions along the timeline are `TimelineFrame`s
/// (0: the first frame of the first iteration), counts are `FrameIndex`. A forward iteration
/// runs content frames `segmentStart ..< segmentEnd`, a backward one `segmentEnd − 1` down to
/// `segmentStart`; the conversions are in `FrameMapping.swift`.
///
/// A plain value type: safe from any thread, real-time safe.
public struct PlaybackTimeline: Hashable, Sendable {
    /// First content frame of the segment (inclusive).
    public let segmentStart: ContentFrame
    /// Content frame where the segment ends (exclusive).
    public let segmentEnd: ContentFrame
    /// Iterations; at least 1, `endless` for a loop without end.
    public let loopCount: Int

    /// The loop count of a loop without end (its frame count saturates at `FrameIndex.max`).
    public static let endless = Int.max

    /// True for a loop without end.
    public var isEndless: Bool { loopCount == Self.endless }
    /// Boomerang: every iteration runs the other way from the one before it.
    public let reverse: Bool
    /// The first iteration runs backwards (from `segmentEnd − 1` down to `segmentStart`).
    public let startsBackwards: Bool

    public enum Problem: Error, CustomStringConvertible, Sendable {
        case emptySegment(from: ContentFrame, to: ContentFrame)
        case badLoopCount(Int)

        public var description: String {
            switch self {
            case let .emptySegment(from, to): return "the segment [\(from.index), \(to.index)) frames is empty"
            case let .badLoopCount(n): return "the loop count must be at least 1, not \(n)"
            }
        }
    }

    public init(segmentStart: ContentFrame, segmentEnd: ContentFrame, loopCount: Int = 1, reverse: Bool = false,
                startsBackwards: Bool = false) throws(Problem) {
        guard segmentEnd > segmentStart else { throw .emptySegment(from: segmentStart, to: segmentEnd) }
        guard loopCount >= 1 else { throw .badLoopCount(loopCount) }
        self.segmentStart = segmentStart
        self.segmentEnd = segmentEnd
        self.loopCount = loopCount
        self.reverse = reverse
        self.startsBackwards = startsBackwards
    }

    /// Frames in one iteration.
    public var segmentLength: FrameIndex { segmentEnd - segmentStart }

    /// Frames of the whole timeline (`FrameIndex.max` for an endless loop).
    public var frameCount: FrameIndex {
        let (product, overflow) = segmentLength.multipliedReportingOverflow(by: FrameIndex(loopCount))
        return overflow ? FrameIndex.max : product
    }

    /// The timeline frame just after the last one (`TimelineFrame.max` for an endless loop).
    public var end: TimelineFrame { TimelineFrame(frameCount) }

    /// Whether iteration `iteration` (0-based) runs backwards:
    /// `startsBackwards != (reverse && iteration is odd)`.
    public func runsBackwards(iteration: Int) -> Bool {
        startsBackwards != (reverse && iteration % 2 == 1)
    }
}
