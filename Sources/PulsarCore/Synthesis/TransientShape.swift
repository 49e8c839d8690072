/// One transient of docs/signal-model.md §5: its onset, rise, fall and frequency, and its
/// envelope as cubics for the synthesis plan.
///
/// A plain value type: safe to use from any thread.
struct TransientShape: Sendable {
    /// The rise, in seconds (`N_a = round(0.004 · R)` samples).
    static let attackSeconds = 0.004
    // The burst's duration `D = clamp(3 / ν, 0.012, 0.030)` s: `ActuatorProfile.transientSeconds`.

    /// `n_i`.
    var onset: FrameIndex
    /// `N_a`.
    var attack: Int
    /// `L_i`.
    var length: Int
    /// `A_i`.
    var amplitude: Double
    /// `ν_i`.
    var hertz: Double

    init(_ point: DiscretePoint, rate: SampleRate, profile: ActuatorProfile) {
        let r = Double(rate.hertz)
        hertz = profile.hertz(for: point.frequency)
        amplitude = point.amplitude
        onset = rate.nearestFrame(atMilliseconds: point.time)
        attack = Int((Self.attackSeconds * r).rounded())
        let duration = profile.transientSeconds(for: point.frequency)
        length = max(attack + 1, Int((duration * r).rounded()))
    }

    var peak: FrameIndex { onset + FrameIndex(attack) }
    var end: FrameIndex { onset + FrameIndex(length) }

    /// The rise `A · S(j / N_a)` around the frame position `position` (a real sample index), as a
    /// cubic in seconds from there.
    func rise(at position: Double, rate: Double) -> Cubic {
        Cubic.smoothstep(from: 0, to: amplitude, width: Double(attack))
            .shifted(by: position - Double(onset)).scaled(by: rate)
    }

    /// The fall `A · (1 − S((j − N_a) / N_d))` around `position`, as a cubic in seconds from there.
    func fall(at position: Double, rate: Double) -> Cubic {
        Cubic.smoothstep(from: amplitude, to: 0, width: Double(length - attack))
            .shifted(by: position - Double(peak)).scaled(by: rate)
    }
}
