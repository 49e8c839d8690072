/// One pattern rendered for one actuator (docs/actuators.md): the signal model's renderer for an
/// `envelope` actuator, Meta's for a `burst` one. Every front end that turns a pattern into a
/// haptic channel — the mixer, and through it render, play, view and video — holds one.
///
/// A plain value built off the real-time path; `render` allocates nothing.
public enum ActuatorRenderer: Sendable {
    case envelope(PatternRenderer)
    /// Meta's render, then multiplied by `gain` (the profile's, a voice's live gain) and clipped
    /// to ±1 when that is not 1; pattern frame `p` is its frame `p + shift` (0 but for a mirrored
    /// clip moved to start at or after 0 s).
    case burst(MetaHapticRenderer, gain: Double, shift: FrameIndex)

    /// A renderer of `pattern` for `actuator` at `rate`. A burst actuator reads `clip` (a
    /// `.haptic` file's values as written) through its laws when there is one, else the clip
    /// `pattern` maps to; `profile` is the signal model's band and gain (its gain also scales a
    /// burst render).
    public init(pattern: PatternData, clip: LofeltClip?, actuator: Actuator?, profile: ActuatorProfile,
                sampleRate: SampleRate) throws(PatternRenderer.SetupError) {
        if let actuator, let config = actuator.burstConfig {
            let read = actuator.clip(pattern: pattern, lofeltClip: clip, through: config)
            self = .burst(MetaHapticRenderer(clip: read, config: config, sampleRate: sampleRate), gain: profile.gain, shift: 0)
        } else {
            self = .envelope(try PatternRenderer(pattern: pattern, sampleRate: sampleRate, profile: profile))
        }
    }

    /// Frames of the render.
    public var frameCount: FrameIndex {
        switch self {
        case .envelope(let r): return r.frameCount
        case .burst(let r, _, let shift): return r.frameCount - shift
        }
    }

    /// Fills `buffer` with the frames from `frame` on; returns how many samples were limited
    /// (envelope) or clipped (burst). Real-time safe.
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex) -> Int {
        switch self {
        case .envelope(let r): return r.render(into: buffer, from: frame)
        case .burst(let r, let gain, let shift):
            var clipped = r.render(into: buffer, from: frame + shift)
            guard gain != 1 else { return clipped }
            let g = Float(gain)
            for i in buffer.indices {
                let x = buffer[i] * g
                if x > 1 { buffer[i] = 1; clipped += 1 } else if x < -1 { buffer[i] = -1; clipped += 1 } else { buffer[i] = x }
            }
            return clipped
        }
    }

    /// Frames `range` as an array.
    public func render(frames range: Range<FrameIndex>) -> [Float] {
        var out = [Float](repeating: 0, count: Int(range.count))
        out.withUnsafeMutableBufferPointer { _ = render(into: $0, from: range.lowerBound) }
        return out
    }

    /// The exact phase of the carrier at `frame` (`PatternRenderer.phaseTurns`); 0 for a burst
    /// actuator, whose carrier a voice's oscillator does not take over.
    public func phaseTurns(at frame: FrameIndex) -> UInt64 {
        if case .envelope(let r) = self { return r.phaseTurns(at: frame) }
        return 0
    }

    /// A render with the frequency moved live (`PatternRenderer.renderModulated`). A burst
    /// actuator's render is its own: it is rendered as it is, the phase left.
    public func renderModulated(into out: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex,
                                offsets: UnsafePointer<Float>, phase: inout UInt64) {
        switch self {
        case .envelope(let r): r.renderModulated(into: out, from: frame, offsets: offsets, phase: &phase)
        case .burst: render(into: out, from: frame)
        }
    }
}

extension ActuatorRenderer {
    /// The backward renderer of a burst actuator (docs/actuators.md, "Backwards"): `clip` as
    /// Meta's renderer plays it forwards, mirrored about `axis` seconds of pattern time.
    public init(mirroring clip: LofeltClip, around axis: Double, config: MetaActuatorConfig, gain: Double, sampleRate: SampleRate) {
        let (mirrored, shift) = clip.mirrored(around: axis, rate: Double(sampleRate.hertz))
        self = .burst(MetaHapticRenderer(clip: mirrored, config: config, sampleRate: sampleRate), gain: gain, shift: shift)
    }
}

extension LofeltClip {
    /// The clip mirrored about `axis` seconds (docs/actuators.md, "Backwards"): each point at
    /// `2·axis − t`, in reverse order, an emphasis on its point; moved later by `shift` whole
    /// samples (the least that puts every time at or after 0); started by two silent points at 0
    /// and at its first time when that is after 0 (so that it is silent until then); and its
    /// frequency's first value held from 0.
    func mirrored(around axis: Double, rate: Double) -> (clip: LofeltClip, shift: FrameIndex) {
        let times = amplitude.map(\.time) + frequency.map(\.time)
        let earliest = times.map { 2 * axis - $0 }.min() ?? 0
        let shift = earliest < 0 ? FrameIndex((-earliest * rate).rounded(.up)) : 0
        let moved = Double(shift) / rate
        var points = amplitude.reversed().map { AmplitudePoint(time: 2 * axis - $0.time + moved, amplitude: $0.amplitude, emphasis: $0.emphasis) }
        if let first = points.first, first.time > 0 {
            points.insert(contentsOf: [AmplitudePoint(time: 0, amplitude: 0), AmplitudePoint(time: first.time, amplitude: 0)], at: 0)
        }
        var curve = frequency.reversed().map { FrequencyPoint(time: 2 * axis - $0.time + moved, frequency: $0.frequency) }
        if let first = curve.first, first.time > 0 { curve.insert(FrequencyPoint(time: 0, frequency: first.frequency), at: 0) }
        return (LofeltClip(amplitude: points, frequency: curve), shift)
    }
}

extension Actuator {
    /// What the burst model renders: `lofeltClip` (a `.haptic` file's values) through the laws
    /// when there is one, else the clip `pattern` maps to.
    public func clip(pattern: PatternData, lofeltClip: LofeltClip?, through config: MetaActuatorConfig) -> LofeltClip {
        guard let clip = lofeltClip else { return LofeltClip(pattern: pattern, emphasis: config.emphasis) }
        return amplitudeLaw == .linear && frequencyLaw == .linear ? clip : clip.mapped(amplitude: amplitudeLaw, frequency: frequencyLaw)
    }
}
