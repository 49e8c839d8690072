/// One transient: an impulse of the given amplitude and frequency (both 0...1) at a time in
/// milliseconds.
///
/// A plain value type: safe to use from any thread.
public struct DiscretePoint: Codable, Hashable, Sendable {
    /// Content time in milliseconds from the start of the pattern.
    public var time: Double
    /// Peak height, 0...1.
    public var amplitude: Double
    /// Position in the actuator's band, 0...1 (see `ActuatorProfile.hertz(for:)`).
    public var frequency: Double

    public init(time: Double, amplitude: Double, frequency: Double) {
        self.time = time
        self.amplitude = amplitude
        self.frequency = frequency
    }
}
