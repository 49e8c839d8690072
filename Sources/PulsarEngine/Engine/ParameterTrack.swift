import PulsarCore

/// A live parameter's course over stream frames: a list of ramps, each starting at its anchor
/// from the value the track had there and reaching its target linearly at its `reach` frame,
/// holding it after. A change made "at once" is a ramp of `ParameterTrack.smoothingFrames`
/// (4 ms at 48 kHz): no step reaches an actuator. A curve is a ramp per point, each anchored
/// where the one before reaches its value.
///
/// A change is chained after the last ramp — anchored where that ramp reaches its value, from
/// that value — when the last ramp was made at the same frame, or is a change made at once still
/// under way: so changes sent together all take effect, in order, and none steps
/// (docs/signal-model.md §13).
///
/// The value at a frame depends only on the ramps applied, in order, at their anchors — so the
/// live engine, rewinding or not, and the replay of its log evaluate the same numbers.
///
/// Thread rules: a value owned by one thread; `apply` and `fill` allocate nothing while the
/// ramps fit the capacity given at `init` (the real-time thread's tracks), `init` allocates.
public struct ParameterTrack: Sendable {
    /// One ramp: from `from` at stream frame `anchor` to `to` at `reach` (≥ anchor), made by a
    /// change applied at `applied` (≤ anchor: later when chained); `atOnce` when that change was
    /// made at once (`Reach.smoothed`).
    package struct Ramp: Hashable, Sendable {
        var applied: StreamFrame
        var atOnce: Bool
        var anchor: StreamFrame
        var reach: StreamFrame
        var from: Double
        var to: Double

        /// The ramp's value at `frame` (≥ anchor): linear from `from` to `to`, then `to`.
        @inline(__always)
        func value(at frame: StreamFrame) -> Double {
            guard frame < reach else { return to }
            return from + (to - from) * (Double(frame - anchor) / Double(reach - anchor))
        }
    }

    /// Where a parameter change goes, as a command carries it: `value`, reached `reach`.
    public struct Target: Hashable, Sendable {
        public var value: Double
        public var reach: Reach

        public init(value: Double, reach: Reach = .smoothed) {
            self.value = value
            self.reach = reach
        }
    }

    /// When a ramp reaches its value.
    public enum Reach: Hashable, Sendable {
        /// `smoothingFrames` after the change takes effect ("at once").
        case smoothed
        /// This many frames after it takes effect.
        case after(FrameIndex)
        /// At this stream frame (a curve's point at an engine time); at once if it has passed.
        case at(StreamFrame)
    }

    /// Frames over which a change made at once ramps: 4 ms at 48 kHz.
    public static let smoothingFrames: FrameIndex = 192

    /// Ramps a voice's real-time track holds without allocating: a curve of the most points
    /// (`Limits.maximumCurvePoints`, one ramp a point, all of them ahead when it is sent) and 256
    /// changes more.
    static let voiceCapacity = Limits.maximumCurvePoints + 256

    /// The value before any ramp.
    let initial: Double
    /// Ramps by anchor (stable), the oldest that may still sound first.
    package private(set) var ramps: [Ramp]
    /// How many ramps `apply` keeps without allocating.
    let capacity: Int

    init(initial: Double, capacity: Int = 32) {
        self.initial = initial
        self.capacity = capacity
        ramps = []
        ramps.reserveCapacity(min(capacity, Self.voiceCapacity))
    }

    /// True when no more ramps fit without allocating: `apply` would drop the oldest.
    var isFull: Bool { ramps.count >= capacity }

    /// The value at stream frame `frame`.
    func value(at frame: StreamFrame) -> Double {
        let i = rampIndex(at: frame)
        return i < 0 ? initial : ramps[i].value(at: frame)
    }

    /// The index of the last ramp anchored at or before `frame` (−1: none), by bisection: a
    /// curve keeps up to `Limits.maximumCurvePoints` ramps ahead, which a walk back from the
    /// last would cross at every sample.
    @inline(__always)
    private func rampIndex(at frame: StreamFrame) -> Int {
        var low = 0, high = ramps.count  // the first ramp anchored after `frame` lies in low...high
        while low < high {
            let mid = (low + high) / 2
            if ramps[mid].anchor <= frame { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    /// The value at each frame of `frame ..< frame + count`, in order, to `body`: the same
    /// numbers as `value(at:)`, found with one bisection and a walk forward.
    @inline(__always)
    private func forEachValue(from frame: StreamFrame, count: Int, _ body: (Int, Double) -> Void) {
        var i = rampIndex(at: frame)
        for k in 0..<count {
            let f = frame + FrameIndex(k)
            while i + 1 < ramps.count, ramps[i + 1].anchor <= f { i += 1 }
            body(k, i < 0 ? initial : ramps[i].value(at: f))
        }
    }

    /// Applies `target` at stream frame `frame` and returns the ramp it makes:
    /// - ramps anchored after `frame` are replaced unless a change at `frame` made them (a
    ///   rewound tail never sounded, a curve's points still ahead, a chained ramp not yet begun);
    /// - the new ramp is chained after the last one left — anchored at its `reach`, from its
    ///   target — when that one was applied at `frame` too, or was made at once and has not
    ///   reached its value by `frame` (changes sent together all take effect, in order; none
    ///   steps, and a change made at once is held back 4 ms at most);
    /// - otherwise it is anchored at `frame`, from the value there (a ramp under way is taken
    ///   over from where it stands).
    /// Its reach counts from its anchor: `smoothingFrames` after it, `after` frames after it, or
    /// an `at` frame (the anchor when that has passed).
    @discardableResult
    mutating func apply(_ target: Target, at frame: StreamFrame) -> Ramp {
        while let last = ramps.last, last.anchor > frame, last.applied != frame { ramps.removeLast() }
        let anchor: StreamFrame, from: Double
        if let last = ramps.last, last.applied == frame || (last.atOnce && frame < last.reach) {
            anchor = last.reach
            from = last.to
        } else {
            anchor = frame
            from = value(at: frame)
        }
        let reach: StreamFrame
        switch target.reach {
        case .smoothed: reach = anchor + Self.smoothingFrames
        case .after(let frames): reach = anchor + max(frames, 0)
        case .at(let at): reach = max(at, anchor)
        }
        let ramp = Ramp(applied: frame, atOnce: target.reach == .smoothed, anchor: anchor, reach: reach, from: from, to: target.value)
        if ramps.count >= capacity, capacity > 0 { ramps.removeFirst() }
        ramps.append(ramp)
        return ramp
    }

    /// Drops ramps no frame from `frame` on needs: all but the last anchored at or before it.
    mutating func forget(before frame: StreamFrame) {
        var keep = 0
        while keep + 1 < ramps.count, ramps[keep + 1].anchor <= frame { keep += 1 }
        if keep > 0 { ramps.removeFirst(keep) }
    }

    /// True when no ramp was ever applied: the value is `initial` everywhere.
    var isUntouched: Bool { ramps.isEmpty }

    /// Adds the values at frames `frame ..< frame + buffer.count` into `buffer`.
    func add(_ buffer: UnsafeMutableBufferPointer<Float>, from frame: StreamFrame) {
        guard !isUntouched else { return }
        forEachValue(from: frame, count: buffer.count) { i, v in buffer[i] += Float(v) }
    }

    /// Writes the values at frames `frame ..< frame + buffer.count`, multiplied into `buffer`.
    func multiply(_ buffer: UnsafeMutableBufferPointer<Float>, from frame: StreamFrame) {
        forEachValue(from: frame, count: buffer.count) { i, v in buffer[i] *= Float(v) }
    }
}
