/// One point of a continuous curve: a value (0...1) at a time in milliseconds.
///
/// A plain value type: safe to use from any thread.
public struct ValuePoint: Codable, Hashable, Sendable {
    /// Content time in milliseconds from the start of the pattern.
    public var time: Double
    /// Normalised value, 0...1.
    public var value: Double

    public init(time: Double, value: Double) {
        self.time = time
        self.value = value
    }
}
