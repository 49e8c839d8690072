/// The two curves of a pattern's continuous part, each linearly interpolated with its ends held.
///
/// A plain value type: safe to use from any thread.
public struct ContinuousPattern: Codable, Hashable, Sendable {
    /// Amplitude curve, values 0...1; empty means no continuous part.
    public var amplitude: [ValuePoint]
    /// Frequency curve, values 0...1 of the actuator band.
    public var frequency: [ValuePoint]

    public init(amplitude: [ValuePoint] = [], frequency: [ValuePoint] = []) {
        self.amplitude = amplitude
        self.frequency = frequency
    }

    /// True when neither curve has a point.
    public var isEmpty: Bool { amplitude.isEmpty && frequency.isEmpty }
}
