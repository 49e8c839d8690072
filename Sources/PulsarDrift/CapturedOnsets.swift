import PulsarEngine

/// Onsets of clicks in a captured signal, found as the frames come (a capture can run for an hour
/// without being kept): a click starts where the level (the largest |sample| of a frame's
/// channels) rises above `threshold` after `quietFrames` below it; its onset is the first frame,
/// from `before` frames ahead of that to `after` frames past it, that reaches half the click's
/// peak in that span. The level is relative to the click's own peak, so a click the path scaled
/// (a gain, a mix-down) has its onset on the same frame as the unscaled one.
public struct OnsetDetector: Sendable {
    public let threshold: Float
    public let quietFrames: Int64
    public let before: Int64
    public let after: Int64
    /// Levels of frames `tailStart ..< tailStart + tail.count`: the `before` frames ahead of now,
    /// and the whole span of a click being measured.
    private var tail: [Float] = []
    private var tailStart: Int64 = 0
    private var lastLoud: Int64 = .min / 2
    private var pending: Int64?

    public init(threshold: Float = 0.05, quietFrames: Int64 = 1440, before: Int64 = 48, after: Int64 = 480) {
        self.threshold = threshold
        self.quietFrames = quietFrames
        self.before = before
        self.after = after
    }

    /// Takes the levels of frames `first ..< first + levels.count` (in order, without gaps: a
    /// gap restarts the tail); returns the onsets completed by them.
    public mutating func feed(_ levels: [Float], first: Int64) -> [Int64] {
        if tailStart + Int64(tail.count) != first {
            tail.removeAll(keepingCapacity: true)
            tailStart = first
            pending = nil
        }
        var found: [Int64] = []
        for (i, level) in levels.enumerated() {
            let frame = first + Int64(i)
            tail.append(level)
            if level > threshold {
                if pending == nil, frame - lastLoud > quietFrames { pending = frame }
                lastLoud = frame
            }
            if let start = pending, frame >= start + after {
                found.append(onset(from: start))
                pending = nil
            }
            if pending == nil, Int64(tail.count) > before {
                let drop = tail.count - Int(before)
                tail.removeFirst(drop)
                tailStart += Int64(drop)
            }
        }
        return found
    }

    /// The first frame of `start − before ..< start + after` reaching half the peak there.
    private func onset(from start: Int64) -> Int64 {
        let lo = max(start - before, tailStart), hi = min(start + after, tailStart + Int64(tail.count))
        var peak: Float = 0
        for f in lo..<hi { peak = max(peak, tail[Int(f - tailStart)]) }
        for f in lo..<hi where tail[Int(f - tailStart)] >= peak / 2 { return f }
        return start
    }

    /// The onset of a click rendered alone (`samples` interleaved, `channels` wide) counted from
    /// the render's first frame, where the voice starts: what a captured onset lies after the
    /// frame a play's effective frame names.
    public static func offset(ofRendered samples: [Float], channels: Int) -> Int64? {
        var detector = OnsetDetector(threshold: 0)
        return detector.feed(levels(samples, channels: channels) + [Float](repeating: 0, count: 1024), first: 0).first
    }

    /// Per frame, the largest |sample| of its channels.
    public static func levels(_ samples: [Float], channels: Int) -> [Float] {
        let frames = samples.count / max(channels, 1)
        return (0..<frames).map { f in
            var level: Float = 0
            for c in 0..<channels { level = max(level, abs(samples[f * channels + c])) }
            return level
        }
    }
}

/// Where a capture's frames were at the graph's edge, from its cycle readings: frames
/// `firstFrame ..< + frames` came in a cycle at `time`, `delayFrames` behind the edge.
public struct CaptureTimeline: Sendable {
    public struct Reading: Sendable {
        public var firstFrame: Int64
        public var frames: Int
        public var time: MonotonicTime
        public var delayFrames: Int64

        public init(firstFrame: Int64, frames: Int, time: MonotonicTime, delayFrames: Int64) {
            self.firstFrame = firstFrame
            self.frames = frames
            self.time = time
            self.delayFrames = delayFrames
        }
    }

    public let rate: Double
    /// The newest readings (the oldest dropped beyond `keep`), in frame order.
    private var readings: [Reading] = []
    private let keep: Int

    public init(rate: Double, keep: Int = 8192) {
        self.rate = rate
        self.keep = keep
    }

    public mutating func add(_ reading: Reading) {
        readings.append(reading)
        if readings.count > keep { readings.removeFirst(readings.count - keep / 2) }
    }

    /// When capture frame `frame` was at the graph's edge: its cycle's time, less the graph's
    /// delay, plus its place in the cycle. Nil when no kept reading holds the frame.
    public func time(ofFrame frame: Int64) -> MonotonicTime? {
        guard let reading = readings.last(where: { $0.firstFrame <= frame && frame < $0.firstFrame + Int64($0.frames) }) else { return nil }
        let seconds = Double(frame - reading.firstFrame - reading.delayFrames) / rate
        return MonotonicTime(nanoseconds: reading.time.nanoseconds + Int64((seconds * 1e9).rounded()))
    }
}
