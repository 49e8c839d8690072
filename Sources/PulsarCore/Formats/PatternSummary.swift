/// Facts about a pattern for `pulsar info`: counts, timing and value ranges.
///
/// A plain value type: safe to use from any thread.
public struct PatternSummary: Sendable {
    public var amplitudePoints: Int
    public var frequencyPoints: Int
    public var transients: Int
    /// Latest point time, ms.
    public var lastPointTime: Double
    /// End of the continuous part (`T_end`), ms; 0 without one.
    public var continuousEnd: Double
    public var amplitudeRange: ClosedRange<Double>?
    public var frequencyRange: ClosedRange<Double>?
    public var transientAmplitudeRange: ClosedRange<Double>?
    public var transientFrequencyRange: ClosedRange<Double>?

    public init(_ pattern: PatternData) {
        let c = pattern.continuousPattern
        amplitudePoints = c.amplitude.count
        frequencyPoints = c.frequency.count
        transients = pattern.discretePattern.count
        lastPointTime = pattern.lastPointTime
        continuousEnd = c.amplitude.isEmpty ? 0 : max(c.amplitude.last!.time, c.frequency.last?.time ?? 0)
        amplitudeRange = Self.range(c.amplitude.map(\.value))
        frequencyRange = Self.range(c.frequency.map(\.value))
        transientAmplitudeRange = Self.range(pattern.discretePattern.map(\.amplitude))
        transientFrequencyRange = Self.range(pattern.discretePattern.map(\.frequency))
    }

    static func range(_ values: [Double]) -> ClosedRange<Double>? {
        guard let lo = values.min(), let hi = values.max() else { return nil }
        return lo...hi
    }
}
