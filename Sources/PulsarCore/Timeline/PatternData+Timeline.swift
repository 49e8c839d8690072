extension PatternData {
    /// The pattern moved later by `milliseconds` (earlier when negative; points may then have
    /// negative times, which the renderer treats as before the start). Not validated.
    public func shifted(by milliseconds: Double) -> PatternData {
        guard milliseconds != 0 else { return self }
        var p = self
        p.continuousPattern.amplitude = p.continuousPattern.amplitude.map { ValuePoint(time: $0.time + milliseconds, value: $0.value) }
        p.continuousPattern.frequency = p.continuousPattern.frequency.map { ValuePoint(time: $0.time + milliseconds, value: $0.value) }
        p.discretePattern = p.discretePattern.map { DiscretePoint(time: $0.time + milliseconds, amplitude: $0.amplitude, frequency: $0.frequency) }
        return p
    }

    /// The pattern run backwards about `axis` ms: a point at `t` moves to `2·axis − t`. Curves are
    /// mirrored (their order reversed, so steps keep their sense); transients fire at mirrored
    /// times with their normal, forward shape. Used for the backward iterations of a boomerang.
    public func mirrored(around axis: Double) -> PatternData {
        var p = self
        p.continuousPattern.amplitude = p.continuousPattern.amplitude.reversed().map { ValuePoint(time: 2 * axis - $0.time, value: $0.value) }
        p.continuousPattern.frequency = p.continuousPattern.frequency.reversed().map { ValuePoint(time: 2 * axis - $0.time, value: $0.value) }
        p.discretePattern = p.discretePattern.reversed().map { DiscretePoint(time: 2 * axis - $0.time, amplitude: $0.amplitude, frequency: $0.frequency) }
        return p
    }
}
