/// How a `.haptic` clip's normalised amplitude or frequency value `v` (0…1) becomes the value a
/// renderer reads (docs/actuators.md, "Laws"): as written, or its square root (Lofelt's iOS
/// player's perceptual mapping, this project's import). Values outside 0…1 are left as they
/// are, for the validator to name.
public enum ActuatorLaw: String, Hashable, Sendable, CaseIterable {
    case linear
    case sqrt

    @inline(__always)
    public func apply(_ v: Double) -> Double {
        self == .sqrt && (0...1).contains(v) ? v.squareRoot() : v
    }
}

extension LofeltClip {
    /// The clip with `amplitude` applied to its amplitudes and its emphases' amplitudes and
    /// `frequency` to its frequency envelope. An emphasis's frequency stays as written: it picks
    /// the burst's frequency, length and shape.
    public func mapped(amplitude: ActuatorLaw, frequency: ActuatorLaw) -> LofeltClip {
        var clip = self
        for i in clip.amplitude.indices {
            clip.amplitude[i].amplitude = amplitude.apply(clip.amplitude[i].amplitude)
            if let e = clip.amplitude[i].emphasis {
                clip.amplitude[i].emphasis = Emphasis(amplitude: amplitude.apply(e.amplitude), frequency: e.frequency)
            }
        }
        for i in clip.frequency.indices { clip.frequency[i].frequency = frequency.apply(clip.frequency[i].frequency) }
        return clip
    }

    /// The clip as the signal model's pattern, through the laws (docs/formats.md, `.haptic`):
    /// times in ms; an amplitude `law(a)`, 20 % lower at a point that carries an emphasis (when
    /// `a` is in 0…1); a frequency `law(f)`; each emphasis a transient of amplitude `law(e)` and
    /// the emphasis's own frequency; two emphases at one time one transient, the stronger (the
    /// earlier at a tie). With `sqrt` for both this is the import `LofeltCodec` makes.
    public func pattern(amplitude: ActuatorLaw, frequency: ActuatorLaw) -> PatternData {
        var pattern = PatternData()
        for point in self.amplitude {
            let time = point.time * 1000
            let ducked = point.emphasis != nil && (0...1).contains(point.amplitude)
            pattern.continuousPattern.amplitude.append(
                ValuePoint(time: time, value: amplitude.apply(point.amplitude) * (ducked ? 1 - LofeltCodec.emphasisDuck : 1)))
            guard let e = point.emphasis else { continue }
            let transient = DiscretePoint(time: time, amplitude: amplitude.apply(e.amplitude), frequency: e.frequency)
            if let last = pattern.discretePattern.last, last.time == time {
                if transient.amplitude > last.amplitude { pattern.discretePattern[pattern.discretePattern.count - 1] = transient }
                continue
            }
            pattern.discretePattern.append(transient)
        }
        pattern.continuousPattern.frequency = self.frequency.map { ValuePoint(time: $0.time * 1000, value: frequency.apply($0.frequency)) }
        return pattern
    }
}
