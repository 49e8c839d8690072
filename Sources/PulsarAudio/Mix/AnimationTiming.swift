import PulsarCore

/// The timing of a Lottie animation (`fr`, `ip`, `op` at its top level), enough for the duration
/// precedence; the full animation model comes with the Lottie module.
public struct AnimationTiming: Hashable, Sendable {
    public var frameRate: Double
    public var inPoint: Double
    public var outPoint: Double

    /// `(op − ip) / fr` in milliseconds (`ip` inclusive, `op` exclusive).
    public var durationMilliseconds: Double { (outPoint - inPoint) / frameRate * 1000 }

    /// Reads `fr`, `ip`, `op` from Lottie JSON bytes; nil when they are missing or unusable
    /// (a dotLottie ZIP, bad JSON, `fr <= 0`, `op <= ip`).
    public init?(lottieJSON bytes: [UInt8]) {
        guard let doc = try? JSONParser().parse(bytes),
              let fr = doc["fr"]?.number, let ip = doc["ip"]?.number, let op = doc["op"]?.number,
              fr > 0, op > ip else { return nil }
        frameRate = fr
        inPoint = ip
        outPoint = op
    }
}
