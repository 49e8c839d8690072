import Foundation
import Testing
@testable import PulsarCore

/// This project's actuator config format (`Actuator`, docs/actuators.md "The config format"):
/// today's profiles as files, the laws, the limits, Meta's files read as the burst model, and the
/// one-line errors.
@Suite("ActuatorFormat")
struct ActuatorFormatTests {
    private static func shipped(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/actuators/\(name).acf").path
    }

    private static func decode(_ text: String) throws(ActuatorDiagnostic) -> Actuator.Loaded {
        try Actuator.decode(Array(text.utf8), file: "a.acf", name: "a")
    }

    /// The error decoding `text` raises; nil (and an issue) when it decodes.
    private static func error(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ActuatorDiagnostic? {
        do {
            _ = try decode(text)
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test("wideband.acf and lra.acf are today's profiles, field for field: the same band bits, gain, name, and the √ laws")
    func profilesAsFiles() throws {
        let wide = try Actuator.load(path: Self.shipped("wideband"))
        #expect(wide.warnings.isEmpty)
        #expect(wide.actuator.model == .envelope(.wideband))
        #expect(wide.actuator.amplitudeLaw == .sqrt && wide.actuator.frequencyLaw == .sqrt)
        #expect(wide.actuator.limits == Actuator.Limits(separationMs: 20))
        let lra = try Actuator.load(path: Self.shipped("lra")).actuator
        // fl(170 · 1.1) = 187.00000000000003: the band derived from resonance_hz, not written.
        #expect(lra.model == .envelope(.lra()) && lra.profile.maximumHertz == 170 * 1.1 && lra.resonanceHertz == 170)
        #expect(lra.limits == Actuator.Limits(riseMs: 15, separationMs: 20, sustainedRMS: 0.5, sustainedWindowMs: 2000))
        #expect(lra.name == "lra" && lra.source == Self.shipped("lra"))
    }

    @Test("Meta's files read as the burst model with linear laws, the same config MetaActuatorConfig reads; the project's burst files carry their limits")
    func metaFilesAreBurst() throws {
        for name in ["meta-console", "meta-quest", "dualsense", "bass-shaker"] {
            let a = try Actuator.load(path: Self.shipped(name))
            #expect(a.warnings.isEmpty, "\(name): \(a.warnings)")
            #expect(a.actuator.burstConfig == (try MetaActuatorConfig.decode(try Data(contentsOf: URL(fileURLWithPath: Self.shipped(name)))
                .map { $0 }).config) || name == "dualsense" || name == "bass-shaker")
            #expect(a.actuator.amplitudeLaw == .linear && a.actuator.frequencyLaw == .linear)
        }
        #expect(try Actuator.load(path: Self.shipped("bass-shaker")).actuator.limits.sustainedRMS == 0.5)
        // The burst model's profile: its carrier band at gain 1, named as --profile names it.
        let console = try Actuator.load(path: Self.shipped("meta-console")).actuator
        #expect(console.profile == ActuatorProfile(name: "20:250", minimumHertz: 20, maximumHertz: 250))
    }

    @Test("The envelope model: a band or ±10 % of resonance_hz, gain 1 unless given; laws and limits read; emphasis ignored with a warning")
    func envelopeModel() throws {
        let a = try Self.decode("{model: 'envelope', continuous: {frequency_min: 40, frequency_max: 120, gain: 2}, laws: {amplitude: 'linear'}}")
        #expect(a.actuator.model == .envelope(ActuatorProfile(name: "40:120", minimumHertz: 40, maximumHertz: 120, gain: 2)))
        #expect(a.actuator.amplitudeLaw == .linear && a.actuator.frequencyLaw == .sqrt)
        let r = try Self.decode("{model: 'envelope', resonance_hz: 235, emphasis: {}}")
        #expect(r.actuator.profile.minimumHertz == 235 * 0.9 && r.actuator.profile.maximumHertz == 235 * 1.1 && r.actuator.profile.gain == 1)
        #expect(r.warnings.map(\.rule) == [.unknownField] && r.warnings[0].description.contains("$.emphasis: ignored by the envelope model"))
        let b = try Self.decode("{continuous: {gain: 1, emphasis_ducking: 0.5, frequency_min: 20, frequency_max: 250}, laws: {frequency: 'sqrt'},"
                                + "emphasis: {gain: 1, fade_out_percent: 0, frequency_min: {output_frequency: 55, duration_ms: 27, shape: 'sine'},"
                                + "frequency_max: {output_frequency: 130, duration_ms: 20, shape: 'square'}}}")
        #expect(b.actuator.burstConfig != nil && b.actuator.amplitudeLaw == .linear && b.actuator.frequencyLaw == .sqrt)
    }

    @Test("Bad configs: one line naming the file, line:column, key path and rule")
    func errors() throws {
        let cases: [(String, ActuatorRule, String)] = [
            ("{model: 'motor'}", .unknownModel, "a.acf:1:9: $.model: \"motor\" is not a model: envelope or burst [unknown-model]"),
            ("{model: 'envelope', resonance_hz: 170, laws: {amplitude: 'cubic'}}", .unknownLaw,
             "a.acf:1:58: $.laws.amplitude: \"cubic\" is not a law: linear or sqrt [unknown-law]"),
            ("{model: 'envelope', continuous: {gain: 1}}", .missingField, "$.continuous.frequency_min: missing required field \"frequency_min\" (or a top-level \"resonance_hz\""),
            ("{model: 'envelope', continuous: {frequency_min: 60}}", .missingField, "$.continuous.frequency_max: missing required field"),
            ("{model: 'envelope', resonance_hz: 170, continuous: {gain: 0}}", .valueOutOfRange, "$.continuous.gain: 0 must be more than 0"),
            ("{model: 'envelope', resonance_hz: 170, continuous: {gain: 17}}", .valueOutOfRange, "$.continuous.gain: 17 must be in 0...16"),
            ("{model: 'envelope', continuous: {frequency_min: 300, frequency_max: 60}}", .valueOutOfRange, "60 Hz is below frequency_min (300 Hz)"),
            ("{model: 'envelope', resonance_hz: 170, limits: {rise_ms: 0}}", .valueOutOfRange, "$.limits.rise_ms: 0 must be more than 0"),
            ("{model: 'envelope', resonance_hz: 170, limits: {sustained_rms: 1.5}}", .valueOutOfRange, "$.limits.sustained_rms: 1.5 must be in 0...1"),
            ("{model: 'envelope', resonance_hz: 170, limits: {sustained_window_ms: 5}}", .valueOutOfRange, "$.limits.sustained_window_ms: 5 must be in 10...600000"),
            ("{model: 3}", .wrongType, "$.model: expected a string, found number"),
            ("{model: 'burst'}", .missingField, "$.continuous: missing required field \"continuous\""),
        ]
        for (text, rule, message) in cases {
            let e = try #require(Self.error(text), "\(text)")
            #expect(e.rule == rule, "\(text): \(e)")
            #expect(e.description.contains(message) && !e.description.contains("\n"), "\(text): \(e)")
        }
        let unknown = try Self.decode("{model: 'envelope', resonance_hz: 170, limits: {rise: 3}, colour: 'red'}")
        #expect(unknown.warnings.compactMap(\.jsonPath).sorted() == ["$.colour", "$.limits.rise"])
    }

    @Test("The laws on a clip: sqrt maps amplitudes, emphasis amplitudes and frequencies to their roots, linear leaves them; emphasis frequencies stay")
    func lawsOnAClip() {
        let clip = LofeltClip(amplitude: [.init(time: 0, amplitude: 0.25), .init(time: 0.1, amplitude: 0.64, emphasis: .init(amplitude: 0.36, frequency: 0.49)),
                                          .init(time: 0.2, amplitude: 0)],
                              frequency: [.init(time: 0, frequency: 0.81)])
        let root = clip.mapped(amplitude: .sqrt, frequency: .sqrt)
        #expect(root.amplitude.map(\.amplitude) == [0.5, 0.8, 0] && root.amplitude[1].emphasis == .init(amplitude: 0.6, frequency: 0.49))
        #expect(root.frequency.map(\.frequency) == [0.9])
        #expect(clip.mapped(amplitude: .linear, frequency: .linear) == clip)
        // As the signal model's pattern: the point under the emphasis 20 % lower, the transient at its time.
        let linear = clip.pattern(amplitude: .linear, frequency: .linear)
        #expect(linear.continuousPattern.amplitude.map(\.value) == [0.25, 0.64 * (1 - 0.2), 0])
        #expect(linear.continuousPattern.amplitude.map(\.time) == [0, 100, 200])
        #expect(linear.discretePattern == [DiscretePoint(time: 100, amplitude: 0.36, frequency: 0.49)])
        #expect(linear.continuousPattern.frequency == [ValuePoint(time: 0, value: 0.81)])
        #expect(ActuatorLaw.sqrt.apply(1.5) == 1.5 && ActuatorLaw.sqrt.apply(-0.25) == -0.25)
    }

    @Test("With the √ laws a clip's pattern is the loader's import, point for point, on every corpus .haptic",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func sqrtLawIsTheImport() throws {
        let files = try Corpus.files(in: "lofelt", ext: "haptic")
        #expect(files.count > 100)
        for file in files {
            let loaded = try PatternLoader().load(contentsOf: file)
            let clip = try #require(loaded.lofeltClip)
            #expect(clip.pattern(amplitude: .sqrt, frequency: .sqrt) == loaded.pattern, "\(Corpus.name(file))")
        }
    }
}
