/// A Pulsar pattern (from Pulsar JSON, AHAP or any format the loader reads) as the breakpoints an
/// actuator config's renderer reads (docs/actuators.md, "Other formats through an ACF"): the
/// curves' points as written, in seconds; each transient an emphasis on an amplitude point at its
/// time, on the curve's value there; the clip starting at 0 and lasting until the curves end or
/// the last emphasis has sounded, whichever is later.
extension LofeltClip {
    /// `pattern` as a clip whose emphases sound through `emphasis` (for the clip's length).
    public init(pattern: PatternData, emphasis: MetaActuatorConfig.Emphasis) {
        let curve = pattern.continuousPattern
        // The carrier sounds on [0, T_end): T_end the latest point of either curve (signal-model §4.1).
        let end = curve.amplitude.isEmpty ? 0 : max(curve.amplitude.last!.time, curve.frequency.last?.time ?? 0)
        var points: [AmplitudePoint] = []
        if end > 0 {
            points.append(AmplitudePoint(time: 0, amplitude: Self.value(of: curve.amplitude, at: 0)))
            for p in curve.amplitude where p.time > 0 && p.time < end { points.append(AmplitudePoint(time: p.time / 1000, amplitude: p.value)) }
            points.append(AmplitudePoint(time: end / 1000, amplitude: curve.amplitude.last!.value))
            points.append(AmplitudePoint(time: end / 1000, amplitude: 0))
        } else {
            points.append(AmplitudePoint(time: 0, amplitude: 0))
        }
        var length = end
        for t in pattern.discretePattern {
            let on = t.time < end ? Self.value(of: curve.amplitude, at: t.time) : 0
            let e = Emphasis(amplitude: t.amplitude, frequency: t.frequency)
            // On the last point at that time (the later wins at a step), else a new one there.
            if let i = points.lastIndex(where: { $0.time == t.time / 1000 }), t.time < end || points[i].amplitude == 0 {
                points[i].emphasis = e
            } else {
                let i = points.firstIndex { $0.time > t.time / 1000 } ?? points.count
                points.insert(AmplitudePoint(time: t.time / 1000, amplitude: on, emphasis: e), at: i)
            }
            length = max(length, t.time + emphasis.burst(at: t.frequency).durationMs)
        }
        if length > (points.last?.time ?? 0) * 1000 { points.append(AmplitudePoint(time: length / 1000, amplitude: 0)) }
        var frequency = curve.frequency.map { FrequencyPoint(time: $0.time / 1000, frequency: $0.value) }
        if let first = frequency.first, first.time > 0 { frequency.insert(FrequencyPoint(time: 0, frequency: first.frequency), at: 0) }
        self.init(amplitude: points, frequency: frequency)
    }

    /// A curve's value at `ms`: its ends held, linear between points, the later point at a step.
    static func value(of curve: [ValuePoint], at ms: Double) -> Double {
        guard let first = curve.first, let last = curve.last else { return 0 }
        if ms < first.time { return first.value }
        if ms >= last.time { return last.value }
        let j = curve.lastIndex { $0.time <= ms }!
        let (a, b) = (curve[j], curve[j + 1])
        return b.time > a.time ? a.value + (b.value - a.value) * (ms - a.time) / (b.time - a.time) : b.value
    }
}
