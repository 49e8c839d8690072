/// A haptic pattern exactly as Pulsar defines it: a continuous part (amplitude and frequency
/// curves) and a discrete part (transients). Times are milliseconds, values 0...1.
///
/// `Codable` produces and reads Pulsar's wire JSON
/// (`{"continuousPattern": {"amplitude": [...], "frequency": [...]}, "discretePattern": [...]}`).
/// Decoding through `Codable` does not validate; `PatternLoader` does.
/// A plain value type: safe to use from any thread.
public struct PatternData: Codable, Hashable, Sendable {
    public var continuousPattern: ContinuousPattern
    public var discretePattern: [DiscretePoint]

    public init(continuousPattern: ContinuousPattern = ContinuousPattern(), discretePattern: [DiscretePoint] = []) {
        self.continuousPattern = continuousPattern
        self.discretePattern = discretePattern
    }

    /// Total number of points in both parts.
    public var pointCount: Int {
        continuousPattern.amplitude.count + continuousPattern.frequency.count + discretePattern.count
    }

    /// True when the pattern has no point at all.
    public var isEmpty: Bool { pointCount == 0 }

    /// The latest time of any point, in milliseconds (0 for an empty pattern).
    public var lastPointTime: Double {
        var last = 0.0
        for p in continuousPattern.amplitude { last = max(last, p.time) }
        for p in continuousPattern.frequency { last = max(last, p.time) }
        for p in discretePattern { last = max(last, p.time) }
        return last
    }
}
