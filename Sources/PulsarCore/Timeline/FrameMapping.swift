/// Every conversion between the frame domains (`StreamFrame`, `TimelineFrame`, `ContentFrame`):
/// stream ↔ timeline through a `TimelineAnchor`, timeline ↔ content through a
/// `PlaybackTimeline`. Nothing else converts one domain into another; code that needs the
/// content heard at a stream frame goes through both, in this file's terms.
///
/// All of it is plain arithmetic on values: safe from any thread, real-time safe.

/// Stream ↔ timeline: timeline frame `timeline` sounds at stream frame `stream`, and while the
/// transport plays the two advance one for one.
public struct TimelineAnchor: Hashable, Sendable {
    public var stream: StreamFrame
    public var timeline: TimelineFrame

    @inlinable
    public init(stream: StreamFrame, timeline: TimelineFrame) {
        self.stream = stream
        self.timeline = timeline
    }

    /// The timeline frame sounding at stream frame `frame`: `timeline + (frame − stream)`.
    @inlinable @inline(__always)
    public func timelineFrame(atStreamFrame frame: StreamFrame) -> TimelineFrame {
        timeline + (frame - stream)
    }

    /// The stream frame at which timeline frame `frame` sounds (the inverse), saturating at
    /// `StreamFrame.max` for `TimelineFrame.max`.
    @inlinable
    public func streamFrame(atTimelineFrame frame: TimelineFrame) -> StreamFrame {
        let (sum, overflow) = stream.index.addingReportingOverflow(frame - timeline)
        return overflow ? .max : StreamFrame(sum)
    }

    /// The fractional timeline position at fractional stream position `s` (the clock's view).
    public func timelinePosition(atStreamPosition s: Double) -> Double {
        Double(timeline.index) + (s - Double(stream.index))
    }
}

extension PlaybackTimeline {
    /// Where timeline frame `frame` falls: its iteration, whether that iteration runs backwards,
    /// and its offset from the iteration's first frame. Frames outside the timeline clamp to it.
    public func position(of frame: TimelineFrame) -> (iteration: Int, backwards: Bool, offset: FrameIndex) {
        let clamped = min(max(frame.index, 0), frameCount - 1)
        let iteration = Int(clamped / segmentLength)
        return (iteration, runsBackwards(iteration: iteration), clamped % segmentLength)
    }

    /// The content frame heard at timeline frame `frame`: forward iterations run
    /// `segmentStart ..< segmentEnd`, backward ones `segmentEnd − 1` down to `segmentStart`.
    public func contentFrame(at frame: TimelineFrame) -> ContentFrame {
        let p = position(of: frame)
        return p.backwards ? segmentEnd - 1 - p.offset : segmentStart + p.offset
    }

    /// The timeline frame at which iteration `iteration` (clamped into `0 ..< loopCount`) plays
    /// content frame `content` (clamped into the segment), in that iteration's direction: the
    /// inverse of `contentFrame(at:)`.
    public func timelineFrame(of content: ContentFrame, inIteration iteration: Int) -> TimelineFrame {
        let k = min(max(iteration, 0), loopCount - 1)
        let c = content.clamped(to: segmentStart...(segmentEnd - 1))
        let offset = runsBackwards(iteration: k) ? (segmentEnd - 1) - c : c - segmentStart
        return TimelineFrame(FrameIndex(k) * segmentLength + offset)
    }

    /// Where this timeline continues what `old` plays at its timeline frame `frame`, when the
    /// loop settings, the direction or the segment change under a playing transport: the same
    /// iteration (the last one if there are fewer now) and the same content frame (clamped into
    /// this segment), in the direction this timeline gives that iteration.
    public func frame(continuing frame: TimelineFrame, of old: PlaybackTimeline) -> TimelineFrame {
        timelineFrame(of: old.contentFrame(at: frame), inIteration: old.position(of: frame).iteration)
    }

    /// Fractional timeline position → fractional content position, continuous across a frame:
    /// forward iterations run from the segment start, backward ones from its end downwards.
    public func contentPosition(atTimelinePosition p: Double) -> Double {
        let length = Double(segmentLength)
        let clamped = min(max(p, 0), Double(frameCount))
        var iteration = Int(clamped / length)
        var offset = clamped - Double(iteration) * length
        if iteration >= loopCount {  // exactly at the end
            iteration = loopCount - 1
            offset = length
        }
        let backwards = runsBackwards(iteration: iteration)
        return backwards ? Double(segmentEnd.index) - offset : Double(segmentStart.index) + offset
    }
}

extension SampleRate {
    /// Content time `ms` → the nearest content frame, `round(ms · rate / 1000)` (saturating).
    public func contentFrame(atMilliseconds ms: Double) -> ContentFrame {
        ContentFrame(nearestFrame(atMilliseconds: ms))
    }

    /// Content frame → content time in ms.
    public func milliseconds(at frame: ContentFrame) -> Double {
        milliseconds(atFrame: frame.index)
    }
}
