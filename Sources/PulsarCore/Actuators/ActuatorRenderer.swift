/// One pattern rendered for one actuator (docs/actuators.md): the signal model's renderer for an
/// `envelope` actuator, Meta's for a `burst` one. Every front end that turns a pattern into a
/// haptic channel — the mixer, and through it render, play, view and video — holds one.
///
/// A plain value built off the real-time path; `render` allocates nothing.
public enum ActuatorRenderer: Sendable {
    case envelope(PatternRenderer)
    /// Meta's render, then multiplied by `gain` (the profile's, a voice's live gain) and clipped
    /// to ±1 when that is not 1.
    case burst(MetaHapticRenderer, gain: Double)

    /// A renderer of `pattern` for `actuator` at `rate`. A burst actuator reads `clip` (a
    /// `.haptic` file's values as written) through its laws when there is one, else the clip
    /// `pattern` maps to; `profile` is the signal model's band and gain (its gain also scales a
    /// burst render).
    public init(pattern: PatternData, clip: LofeltClip?, actuator: Actuator?, profile: ActuatorProfile,
                sampleRate: SampleRate) throws(PatternRenderer.SetupError) {
        if let actuator, let config = actuator.burstConfig {
            let read = actuator.clip(pattern: pattern, lofeltClip: clip, through: config)
            self = .burst(MetaHapticRenderer(clip: read, config: config, sampleRate: sampleRate), gain: profile.gain)
        } else {
            self = .envelope(try PatternRenderer(pattern: pattern, sampleRate: sampleRate, profile: profile))
        }
    }

    /// Frames of the render.
    public var frameCount: FrameIndex {
        switch self {
        case .envelope(let r): return r.frameCount
        case .burst(let r, _): return r.frameCount
        }
    }

    /// Fills `buffer` with the frames from `frame` on; returns how many samples were limited
    /// (envelope) or clipped (burst). Real-time safe.
    @discardableResult
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, from frame: FrameIndex) -> Int {
        switch self {
        case .envelope(let r): return r.render(into: buffer, from: frame)
        case .burst(let r, let gain):
            var clipped = r.render(into: buffer, from: frame)
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

extension Actuator {
    /// What the burst model renders: `lofeltClip` (a `.haptic` file's values) through the laws
    /// when there is one, else the clip `pattern` maps to.
    public func clip(pattern: PatternData, lofeltClip: LofeltClip?, through config: MetaActuatorConfig) -> LofeltClip {
        guard let clip = lofeltClip else { return LofeltClip(pattern: pattern, emphasis: config.emphasis) }
        return amplitudeLaw == .linear && frequencyLaw == .linear ? clip : clip.mapped(amplitude: amplitudeLaw, frequency: frequencyLaw)
    }
}
