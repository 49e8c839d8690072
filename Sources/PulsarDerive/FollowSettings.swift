import Glibc
import PulsarCore

/// How `HapticFollower` turns live sound into touch (docs/derive.md, "Following live sound"): the
/// method, the band of the sound it listens to, the actuator's band it plays in, and the
/// envelope's gain, gate, attack and release. A plain value: safe from any thread.
public struct FollowSettings: Hashable, Sendable {
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// Band energy → envelope → a carrier in the actuator's band, plus a click at each onset.
        case envelope
        /// Android's HapticGenerator chain, streaming.
        case android
    }

    public var method: Method
    /// The actuator: the carrier sits at the geometric middle of its band, and nothing leaves
    /// above twice its top.
    public var profile: ActuatorProfile
    /// The part of the sound listened to, in Hz (a shaker: `30...120`, voices mostly above).
    public var band: ClosedRange<Double>
    /// Gain in dB applied to the envelope, `−24 ... 24`.
    public var gainDB: Double
    /// Sound whose band envelope is below this level (dBFS) is not felt, `−90 ... 0`.
    public var gateDB: Double
    /// The envelope's attack and release time constants, in ms.
    public var attackMilliseconds: Double
    public var releaseMilliseconds: Double
    /// Whether onsets fire clicks.
    public var transients: Bool
    /// The `android` method's parameters.
    public var generator: HapticGenerator.Parameters

    public static let gainRange: ClosedRange<Double> = -24...24
    public static let gateRange: ClosedRange<Double> = -90...0
    public static let attackRange: ClosedRange<Double> = 0.1...100
    public static let releaseRange: ClosedRange<Double> = 1...2000

    public init(method: Method = .envelope, profile: ActuatorProfile = .wideband, band: ClosedRange<Double> = 40...250,
                gainDB: Double = 0, gateDB: Double = -50, attackMilliseconds: Double = 2, releaseMilliseconds: Double = 80,
                transients: Bool = true, generator: HapticGenerator.Parameters = HapticGenerator.Parameters()) {
        self.method = method
        self.profile = profile
        self.band = band
        self.gainDB = gainDB
        self.gateDB = gateDB
        self.attackMilliseconds = attackMilliseconds
        self.releaseMilliseconds = releaseMilliseconds
        self.transients = transients
        self.generator = generator
    }

    /// The carrier's frequency: the geometric middle of the profile's band.
    public var carrierHertz: Double { (profile.minimumHertz * profile.maximumHertz).squareRoot() }

    /// Checks every setting against the sound's rate; one error naming the setting and its range.
    public func validate(sampleRate: Int) throws(DeriveError) {
        guard SampleRate.supported.contains(sampleRate) else {
            throw DeriveError(.badSampleRate, message: "sample rate \(sampleRate) Hz is out of range: must be in \(SampleRate.supported.lowerBound)...\(SampleRate.supported.upperBound) Hz")
        }
        try DeriveSettings.check(gainDB, "gain", Self.gainRange, .badGain, unit: " dB")
        try DeriveSettings.check(gateDB, "gate", Self.gateRange, .badGate, unit: " dBFS")
        try DeriveSettings.check(attackMilliseconds, "attack", Self.attackRange, .badEnvelopeTime, unit: " ms")
        try DeriveSettings.check(releaseMilliseconds, "release", Self.releaseRange, .badEnvelopeTime, unit: " ms")
        let top = 0.45 * Double(sampleRate)
        try DeriveSettings.check(band.lowerBound, "band low edge", DeriveSettings.bandLimits.lowerBound...top, .badBand, unit: " Hz")
        try DeriveSettings.check(band.upperBound, "band high edge", DeriveSettings.bandLimits.lowerBound...top, .badBand, unit: " Hz")
        guard band.lowerBound < band.upperBound else {
            throw DeriveError(.badBand, message: "band \(JSONWriter.format(band.lowerBound)):\(JSONWriter.format(band.upperBound)) Hz is empty: the low edge must be below the high edge")
        }
        let p = profile
        guard p.minimumHertz.isFinite, p.maximumHertz.isFinite, p.minimumHertz >= 1, p.minimumHertz <= p.maximumHertz else {
            throw DeriveError(.badProfile, message: "profile \(p.description): its band must satisfy 1 <= f_min <= f_max")
        }
        if let problem = p.problem(at: SampleRate(sampleRate)!) {
            throw DeriveError(.badProfile, message: "profile \(p.description): \(problem)")
        }
        guard 2 * p.maximumHertz < top else {
            throw DeriveError(.badProfile, message: "profile \(p.description): twice its top must be below 0.45 × the sample rate (\(JSONWriter.format(top)) Hz)")
        }
        if method == .android { try generator.validate(sampleRate: Double(sampleRate)) }
    }
}
