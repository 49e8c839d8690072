import Glibc
import PulsarCore

/// What to derive from a sound and how (docs/derive.md): the method, the actuator profile the
/// pattern's frequencies describe, the curves' resolution and error, the gain, the onset
/// threshold and the part of the sound.
///
/// `validate()` checks everything that does not depend on the sound; `validate(sampleRate:)`
/// adds what does (the band and profile against the Nyquist frequency). Every deriver calls
/// both before computing anything. A plain value type: safe to use from any thread.
public struct DeriveSettings: Hashable, Sendable {
    /// The two analyses.
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// An editable Pulsar pattern: amplitude and frequency curves and transients.
        case envelope
        /// Android's HapticGenerator chain: an audio-rate haptic channel.
        case android
    }

    public var method: Method
    /// The band the pattern's frequency values 0…1 describe (docs/signal-model.md §2).
    public var profile: ActuatorProfile
    /// Most breakpoints per second each curve keeps (over the whole part), `1 ... 200`.
    public var resolution: Double
    /// The level of the loudest frame in dB, `−24 ... 0`: 0 dB is the actuator's maximum.
    public var gainDB: Double
    /// The onset threshold, `0 ... 1`: how far an onset's normalised flux must rise above the mean
    /// of its neighbourhood.
    public var threshold: Double
    /// The power-law compression of the RMS amplitude, `0.05 ... 1`.
    public var exponent: Double
    /// The largest difference a simplified curve aims to keep from the frame values, `0.0001 ... 0.5`.
    public var tolerance: Double
    /// The analysis band in Hz, or nil for `min(80, f_min) ... max(500, f_max)`.
    public var band: ClosedRange<Double>?
    /// The part analysed: from this time (ms) ...
    public var fromMilliseconds: Double
    /// ... to this one (ms), or nil for the end of the sound.
    public var toMilliseconds: Double?
    /// The `android` method's parameters.
    public var generator: HapticGenerator.Parameters

    public static let resolutionRange: ClosedRange<Double> = 1...200
    public static let gainRange: ClosedRange<Double> = -24...0
    public static let thresholdRange: ClosedRange<Double> = 0...1
    public static let exponentRange: ClosedRange<Double> = 0.05...1
    public static let toleranceRange: ClosedRange<Double> = 0.0001...0.5
    /// Band edges allowed, in Hz; the upper one must also stay below 0.45 × the rate.
    public static let bandLimits: ClosedRange<Double> = 10...20_000

    public init(method: Method = .envelope, profile: ActuatorProfile = .wideband, resolution: Double = 100,
                gainDB: Double = 0, threshold: Double = 0.1, exponent: Double = 0.5, tolerance: Double = 0.01,
                band: ClosedRange<Double>? = nil, fromMilliseconds: Double = 0, toMilliseconds: Double? = nil,
                generator: HapticGenerator.Parameters = HapticGenerator.Parameters()) {
        self.method = method
        self.profile = profile
        self.resolution = resolution
        self.gainDB = gainDB
        self.threshold = threshold
        self.exponent = exponent
        self.tolerance = tolerance
        self.band = band
        self.fromMilliseconds = fromMilliseconds
        self.toMilliseconds = toMilliseconds
        self.generator = generator
    }

    /// The linear gain of `gainDB`: `10^(gainDB / 20)`.
    public var gain: Double { pow(10, gainDB / 20) }

    /// The analysis band: `band`, or the default widened to hold the profile's band.
    public var analysisBand: ClosedRange<Double> {
        band ?? min(80, profile.minimumHertz)...max(500, profile.maximumHertz)
    }

    /// Checks every setting that does not depend on the sound.
    public func validate() throws(DeriveError) {
        try Self.check(resolution, "resolution", Self.resolutionRange, .badResolution, unit: " breakpoints per second")
        try Self.check(gainDB, "gain", Self.gainRange, .badGain, unit: " dB (0 dB is the actuator's maximum)")
        try Self.check(threshold, "threshold", Self.thresholdRange, .badThreshold)
        try Self.check(exponent, "exponent", Self.exponentRange, .badExponent)
        try Self.check(tolerance, "tolerance", Self.toleranceRange, .badTolerance)
        if let band {
            try Self.check(band.lowerBound, "band low edge", Self.bandLimits, .badBand, unit: " Hz")
            try Self.check(band.upperBound, "band high edge", Self.bandLimits, .badBand, unit: " Hz")
            guard band.lowerBound < band.upperBound else {
                throw DeriveError(.badBand, message: "band \(JSONWriter.format(band.lowerBound))...\(JSONWriter.format(band.upperBound)) Hz is empty: the low edge must be below the high edge")
            }
        }
        let limit = Limits.maximumMilliseconds
        try Self.check(fromMilliseconds, "from", 0...limit, .badPart, unit: " ms")
        if let toMilliseconds {
            try Self.check(toMilliseconds, "to", 0...limit, .badPart, unit: " ms")
            guard toMilliseconds > fromMilliseconds else {
                throw DeriveError(.badPart, message: "to \(JSONWriter.format(toMilliseconds)) ms must be after from \(JSONWriter.format(fromMilliseconds)) ms")
            }
        }
        let p = profile
        guard p.minimumHertz.isFinite, p.maximumHertz.isFinite, p.minimumHertz >= 1, p.minimumHertz <= p.maximumHertz else {
            throw DeriveError(.badProfile, message: "profile \(p.description): its band must satisfy 1 <= f_min <= f_max")
        }
        try generator.validate()
    }

    /// Checks the settings against the sound's rate (after `validate()`): the rate itself, the
    /// profile's and the analysis band's upper edges against it.
    public func validate(sampleRate: Int) throws(DeriveError) {
        guard SampleRate.supported.contains(sampleRate) else {
            throw DeriveError(.badSampleRate, message: "sample rate \(sampleRate) Hz is out of range: must be in \(SampleRate.supported.lowerBound)...\(SampleRate.supported.upperBound) Hz")
        }
        if method == .envelope {
            if let problem = profile.problem(at: SampleRate(sampleRate)!) {
                throw DeriveError(.badProfile, message: "profile \(profile.description): \(problem)")
            }
            let band = analysisBand
            guard band.upperBound < 0.45 * Double(sampleRate) else {
                throw DeriveError(.badBand, message: "band high edge \(JSONWriter.format(band.upperBound)) Hz is out of range: must be below 0.45 × the sample rate (\(JSONWriter.format(0.45 * Double(sampleRate))) Hz)")
            }
        } else {
            try generator.validate(sampleRate: Double(sampleRate))
        }
    }

    static func check(_ value: Double, _ name: String, _ range: ClosedRange<Double>, _ rule: DeriveRule,
                      unit: String = "") throws(DeriveError) {
        guard value.isFinite, range.contains(value) else {
            throw DeriveError.setting(rule, name, value, "in \(JSONWriter.format(range.lowerBound))...\(JSONWriter.format(range.upperBound))\(unit)")
        }
    }
}
