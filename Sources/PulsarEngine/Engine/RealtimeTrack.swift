#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// A `.realtime` voice's course: the content positions the app gave (`HapticVoice.setContentTime`)
/// at their effective frames, and the transients they fired — everything its haptics at any
/// stream frame depend on (`RealtimeSynthesis`, docs/signal-model.md §11).
///
/// A position `p` taking effect at stream frame `a` is reached linearly from where the voice was
/// at `a`, over the stream time since the previous position, clamped into `shortestRamp` …
/// `longestRamp` frames (4 … 50 ms at 48 kHz): positions from a display tick become a smooth
/// course one tick behind. The first position is taken at once. Each transient whose time the
/// move crosses, either way, sounds from the frame where the course crosses it — unless the
/// move is longer than `jumpMilliseconds` of content, a jump (a seek, a loop wrapping), which
/// fires nothing. The carrier's phase at `a` is carried over from the course before, and within
/// a ramp it is summed sample by sample from the ramp's start, so any render of a frame, in any
/// block, live or replayed, gives the same bits.
///
/// Thread rules: a value owned by one thread; `apply`, `render` and `forget` allocate nothing
/// while segments and bursts fit the capacities given at `init` (the real-time thread's), `init`
/// allocates.
@_spi(Internals) public struct RealtimeTrack: Sendable {
    /// One position's course: from `from` ms at `anchor` to `to` ms `ramp` frames later, then held.
    struct Segment: Hashable, Sendable {
        var anchor: StreamFrame
        var from: Double
        var to: Double
        var ramp: FrameIndex
        /// The carrier's phase, in cycles within [0, 1), at `anchor` and at the ramp's end.
        var phase: Double
        var rampEndPhase: Double

        /// The content position at `frame` (≥ anchor).
        @inline(__always)
        func position(at frame: StreamFrame) -> Double {
            let k = frame - anchor
            guard ramp > 0, k < ramp else { return to }
            return from + (to - from) * (Double(k) / Double(ramp))
        }
    }

    /// A transient sounding from `onset`.
    struct Burst: Hashable, Sendable {
        var onset: StreamFrame
        var transient: Int
    }

    /// A move of more content than this in one position is a jump: nothing in between fires.
    static let jumpMilliseconds = 250.0
    /// Bounds of a ramp between positions: 4 ms and 50 ms at 48 kHz.
    static let shortestRamp: FrameIndex = 192
    static let longestRamp: FrameIndex = 2_400

    let synthesis: RealtimeSynthesis
    /// The longest burst of the pattern, in frames.
    private let longestBurst: FrameIndex
    private(set) var segments: [Segment] = []
    private(set) var bursts: [Burst] = []
    let capacity: Int

    init(synthesis: RealtimeSynthesis, capacity: Int = 256) {
        self.synthesis = synthesis
        self.capacity = capacity
        longestBurst = FrameIndex(synthesis.transients.map(\.length).max() ?? 0)
        segments.reserveCapacity(min(capacity, 1024))
        bursts.reserveCapacity(min(capacity, 1024))
    }

    private var rate: Double { Double(synthesis.sampleRate.hertz) }

    /// The latest segment anchored at or before `frame` (segments are in anchor order).
    private func segmentIndex(at frame: StreamFrame) -> Int? {
        var lo = 0, hi = segments.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if segments[mid].anchor <= frame { lo = mid + 1 } else { hi = mid }
        }
        return lo == 0 ? nil : lo - 1
    }

    /// The first burst that may still sound at `frame`: bursts are in onset order (each move's
    /// crossings come along its ramp, and a later move starts later), and none lasts longer
    /// than `longestBurst`.
    private func firstBurst(soundingAt frame: StreamFrame) -> Int {
        let earliest = frame - longestBurst
        var lo = 0, hi = bursts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if bursts[mid].onset < earliest { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The content position at `frame` (nil before the first position).
    func position(at frame: StreamFrame) -> Double? {
        segmentIndex(at: frame).map { segments[$0].position(at: frame) }
    }

    /// The carrier's phase in cycles at `frame` within segment `s` (≥ its anchor).
    private func phase(at frame: StreamFrame, in s: Segment) -> Double {
        if s.ramp > 0, frame - s.anchor <= s.ramp {
            var phase = s.phase
            var g = s.anchor
            while g < frame {
                phase = Self.advance(phase, hertz: synthesis.carrierHertz(atMilliseconds: s.position(at: g)), rate: rate)
                g += 1
            }
            return phase
        }
        let held = Double(frame - s.anchor - s.ramp) * synthesis.carrierHertz(atMilliseconds: s.to) / rate
        let phase = s.rampEndPhase + held
        return phase - phase.rounded(.down)
    }

    @inline(__always)
    private static func advance(_ phase: Double, hertz: Double, rate: Double) -> Double {
        let next = phase + hertz / rate
        return next - next.rounded(.down)
    }

    /// Takes content position `ms` at stream frame `frame`: a ramp from where the voice is there,
    /// replacing the course from `frame` on and the bursts after it (a rewound tail never
    /// sounded), and the transients the move crosses.
    mutating func apply(positionMs ms: Double, at frame: StreamFrame) {
        while let last = segments.last, last.anchor >= frame { segments.removeLast() }
        // A burst at `frame` itself stays: the course before reached its time there.
        while let last = bursts.last, last.onset > frame { bursts.removeLast() }
        let target = ms.isFinite ? ms : 0
        guard let previous = segments.last else {
            append(Segment(anchor: frame, from: target, to: target, ramp: 0, phase: 0, rampEndPhase: 0))
            return
        }
        let from = previous.position(at: frame)
        let ramp = min(max(frame - previous.anchor, Self.shortestRamp), Self.longestRamp)
        var segment = Segment(anchor: frame, from: from, to: target, ramp: ramp, phase: phase(at: frame, in: previous), rampEndPhase: 0)
        segment.rampEndPhase = phase(at: frame + ramp, in: segment)
        if abs(target - from) <= Self.jumpMilliseconds {
            synthesis.forEachCrossed(from: from, to: target) { i in
                let t = synthesis.transients[i].milliseconds
                let k = FrameIndex((Double(ramp) * (t - from) / (target - from)).rounded(.up))
                appendBurst(Burst(onset: frame + min(max(k, 0), ramp), transient: i))
            }
        }
        append(segment)
    }

    private mutating func append(_ segment: Segment) {
        if segments.count >= capacity { segments.removeFirst() }
        segments.append(segment)
    }

    private mutating func appendBurst(_ burst: Burst) {
        if bursts.count >= capacity { bursts.removeFirst() }
        bursts.append(burst)
    }

    /// Drops what no frame from `frame` on needs: segments before the one sounding there,
    /// bursts over by then.
    mutating func forget(before frame: StreamFrame) {
        var keep = 0
        while keep + 1 < segments.count, segments[keep + 1].anchor <= frame { keep += 1 }
        if keep > 0 { segments.removeFirst(keep) }
        var i = 0
        while i < bursts.count {
            let b = bursts[i]
            if b.onset + FrameIndex(synthesis.transients[b.transient].length) <= frame { bursts.remove(at: i) } else { i += 1 }
        }
    }

    /// The haptic samples of frames `frame ..< frame + out.count`, before the gains: the carrier
    /// along the course and every burst sounding; 0 before the first position.
    func render(into out: UnsafeMutableBufferPointer<Float>, from frame: StreamFrame) {
        var f = frame
        let end = frame + FrameIndex(out.count)
        var i = 0
        while f < end {
            guard let s = segmentIndex(at: f) else {
                // Silent up to the first position.
                let first = segments.first.map { min($0.anchor, end) } ?? end
                while f < first { out[i] = 0; i += 1; f += 1 }
                continue
            }
            let segment = segments[s]
            let runEnd = s + 1 < segments.count ? min(segments[s + 1].anchor, end) : end
            var phase = phase(at: f, in: segment)
            while f < runEnd {
                let c = segment.position(at: f)
                var value = synthesis.carrierAmplitude(atMilliseconds: c) * sin(2 * Double.pi * phase)
                var j = firstBurst(soundingAt: f)
                while j < bursts.count, bursts[j].onset <= f {
                    value += synthesis.burst(bursts[j].transient, sample: Int(f - bursts[j].onset))
                    j += 1
                }
                out[i] = Float(value)
                i += 1
                f += 1
                // The next frame's phase, by the same rule as `phase(at:in:)`.
                if segment.ramp > 0, f - segment.anchor <= segment.ramp {
                    phase = Self.advance(phase, hertz: synthesis.carrierHertz(atMilliseconds: c), rate: rate)
                } else {
                    phase = self.phase(at: f, in: segment)
                }
            }
        }
    }
}
