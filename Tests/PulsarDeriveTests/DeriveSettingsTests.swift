import PulsarCore
import Testing
@testable import PulsarDerive

/// Settings out of range are typed errors, decided by their rule; their one line names the
/// parameter, its value and its range.
@Suite struct DeriveSettingsTests {
    @Test("the defaults are valid at every supported rate")
    func defaults() throws {
        try DeriveSettings().validate()
        for rate in [8_000, 44_100, 48_000, 192_000] {
            try DeriveSettings().validate(sampleRate: rate)
            try DeriveSettings(method: .android).validate(sampleRate: rate)
        }
        #expect(DeriveSettings().analysisBand == 60...500)
        #expect(DeriveSettings(profile: .lra()).analysisBand == 80...500)
        #expect(abs(DeriveSettings(gainDB: -6).gain - 0.501_187) < 1e-6)
    }

    static func rule(_ settings: DeriveSettings) -> (DeriveRule?, String) {
        let error = thrown { try settings.validate() }
        return (error?.rule, error?.description ?? "")
    }

    @Test("resolution 0, negative, NaN or too high is bad-resolution",
          arguments: [0, -1, .nan, .infinity, 201] as [Double])
    func resolution(value: Double) {
        let (rule, text) = Self.rule(DeriveSettings(resolution: value))
        #expect(rule == .badResolution)
        #expect(text.hasPrefix("resolution "), "\(text)")
        #expect(text.contains("must be in 1...200 breakpoints per second [bad-resolution]"), "\(text)")
    }

    @Test("gain above 0 dB, below −24 dB or NaN is bad-gain", arguments: [0.5, 1, -24.5, -30, .nan] as [Double])
    func gain(value: Double) {
        let (rule, text) = Self.rule(DeriveSettings(gainDB: value))
        #expect(rule == .badGain)
        #expect(text.contains("gain") && text.contains("-24...0 dB"), "\(text)")
    }

    @Test("threshold NaN or outside 0...1 is bad-threshold", arguments: [.nan, -0.1, 1.5] as [Double])
    func threshold(value: Double) {
        let (rule, text) = Self.rule(DeriveSettings(threshold: value))
        #expect(rule == .badThreshold)
        #expect(text.contains("threshold") && text.contains("0...1"), "\(text)")
    }

    @Test("the one line of an error")
    func line() {
        #expect(Self.rule(DeriveSettings(resolution: 0)).1 == "resolution 0 is out of range: must be in 1...200 breakpoints per second [bad-resolution]")
        #expect(Self.rule(DeriveSettings(threshold: .nan)).1 == "threshold nan is out of range: must be in 0...1 [bad-threshold]")
    }

    @Test("the other settings: exponent, tolerance, band, part, profile")
    func others() {
        #expect(Self.rule(DeriveSettings(exponent: 0)).0 == .badExponent)
        #expect(Self.rule(DeriveSettings(tolerance: 0)).0 == .badTolerance)
        #expect(Self.rule(DeriveSettings(band: 500...500)).0 == .badBand)
        #expect(Self.rule(DeriveSettings(band: 5...500)).0 == .badBand)
        #expect(Self.rule(DeriveSettings(fromMilliseconds: -1)).0 == .badPart)
        #expect(Self.rule(DeriveSettings(fromMilliseconds: .nan)).0 == .badPart)
        #expect(Self.rule(DeriveSettings(fromMilliseconds: 100, toMilliseconds: 100)).0 == .badPart)
        #expect(Self.rule(DeriveSettings(toMilliseconds: 1e12)).0 == .badPart)
        #expect(Self.rule(DeriveSettings(profile: ActuatorProfile(name: "x", minimumHertz: 300, maximumHertz: 60))).0 == .badProfile)
        // Against the rate: the band and the profile below Nyquist.
        #expect(thrown { try DeriveSettings(band: 80...5000).validate(sampleRate: 8_000) }?.rule == .badBand)
        #expect(thrown { try DeriveSettings(profile: ActuatorProfile(name: "x", minimumHertz: 60, maximumHertz: 5000)).validate(sampleRate: 8_000) }?.rule == .badProfile)
        #expect(thrown { try DeriveSettings().validate(sampleRate: 400_000) }?.rule == .badSampleRate)
    }

    @Test("every deriver checks before computing")
    func derivers() {
        #expect(thrown { _ = try EnvelopeDeriver(settings: DeriveSettings(resolution: 0)) }?.rule == .badResolution)
        #expect(thrown { _ = try AudioDeriver.derive(samples: [0, 0], sampleRate: 48_000, settings: DeriveSettings(gainDB: 3)) }?.rule == .badGain)
        #expect(thrown { _ = try AudioDeriver.derive(contentsOf: "/nonexistent.wav", settings: DeriveSettings(threshold: .nan)) }?.rule == .badThreshold)
    }
}
