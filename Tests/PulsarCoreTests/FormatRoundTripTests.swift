import Foundation
import PulsarTestSupport
import Testing
@testable import PulsarCore

/// Round trips through every writable format (the "Formats" suite, continued).
extension FormatTests {
    @Test("every corpus AHAP survives AHAP export and re-import",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func ahapRoundTrip() throws {
        let files = try Corpus.files(in: "ahap", ext: "ahap") + Corpus.files(in: "lofelt/golden", ext: "ahap")
        #expect(files.count == 35)
        for file in files {
            let model1 = try PatternLoader().load(contentsOf: file).pattern
            let text = try PatternWriter.text(for: model1, as: .ahap)
            let model2 = try PatternLoader().decode(Array(text.utf8), file: "exported.ahap", format: .ahap).pattern
            let problems = Self.differences(model1, model2)
            #expect(problems.isEmpty, "\(Corpus.name(file)): \(problems.prefix(6).joined(separator: "; "))")
        }
    }

    // MARK: Steps and held ends through AHAP

    @Test("a step inside a control curve keeps its left value")
    func stepAtControlPointIsLost() throws {
        // Intensity ramps 0 → 1 over [0, 50 ms), then steps down to 0.
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 0.1, intensity: 1, sharpness: 0.5),
            Self.curve("HapticIntensityControl", time: 0, [(0, 0), (0.05, 1), (0.05, 0), (0.1, 0)])))
        let a = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(a.value(at: 75), 0, 1e-12, "after the step")
        Self.near(a.value(at: 25), 0.5, 1e-9, "half way up the ramp")
        Self.near(a.valueBefore(50), 1, 1e-9, "the step's left value")
    }

    @Test("a step at a control curve's first point takes the later value (right-continuous)")
    func stepAtCurveStart() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 0.1, intensity: 1, sharpness: 0.5),
            Self.curve("HapticIntensityControl", time: 0, [(0, 0), (0, 1), (0.1, 1)])))
        let a = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(a.value(at: 0), 1, 1e-9)
        Self.near(a.value(at: 50), 1, 1e-9)
        Self.near(a.valueBefore(100), 1, 1e-9)
    }

    @Test("AHAP export keeps a curve's held first value before its first point")
    func exportBeforeFirstPoint() throws {
        // The model holds 0.5 on [0, 100 ms) (ends held); the export's event starts at 0, so its
        // control curves must hold the first value from 0 too (a neutral control would give 1).
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 100, value: 0.5), ValuePoint(time: 200, value: 0.5)],
            frequency: [ValuePoint(time: 100, value: 0.25), ValuePoint(time: 200, value: 0.25)]))
        let text = try PatternWriter.text(for: pattern, as: .ahap)
        let back = try PatternLoader().decode(Array(text.utf8), file: "x.ahap", format: .ahap).pattern
        Self.near(Curve(back.continuousPattern.amplitude).value(at: 150), 0.5, 1e-9, "inside the curve")
        Self.near(Curve(back.continuousPattern.amplitude).value(at: 50), 0.5, 1e-9, "amplitude before 100 ms")
        Self.near(Curve(back.continuousPattern.frequency).value(at: 50), 0.25, 1e-9, "frequency before 100 ms")
    }

    @Test("a model with a step survives AHAP export and re-import")
    func exportStep() throws {
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 100, value: 1), ValuePoint(time: 100, value: 0.2),
                        ValuePoint(time: 200, value: 0.2)],
            frequency: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 200, value: 0.5)]))
        let text = try PatternWriter.text(for: pattern, as: .ahap)
        let back = try PatternLoader().decode(Array(text.utf8), file: "x.ahap", format: .ahap).pattern
        #expect(Self.differences(pattern, back).isEmpty, "\(Self.differences(pattern, back))")
    }

    @Test("every Pulsar preset survives model → AHAP → model",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func presetAHAPRoundTrip() throws {
        for file in try Corpus.files(in: "pulsar-presets", ext: "json") {
            let model1 = try PatternLoader().load(contentsOf: file).pattern
            let text = try PatternWriter.text(for: model1, as: .ahap)
            let model2 = try PatternLoader().decode(Array(text.utf8), file: "exported.ahap", format: .ahap).pattern
            let problems = Self.differences(model1, model2)
            #expect(problems.isEmpty, "\(Corpus.name(file)): \(problems.prefix(6).joined(separator: "; "))")
        }
    }

    @Test("every Pulsar preset survives wire → wire and wire → raw → wire exactly",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func pulsarJSONRoundTrip() throws {
        for file in try Corpus.files(in: "pulsar-presets", ext: "json") {
            let name = Corpus.name(file)
            let original = try PatternLoader().load(contentsOf: file).pattern
            let wire = try PatternWriter.text(for: original, as: .pulsarJSON)
            let fromWire = try PatternLoader().decode(Array(wire.utf8), file: "w.json", format: .pulsarJSON)
            #expect(fromWire.format == .pulsarJSON)
            #expect(fromWire.pattern == original, "\(name): wire → wire")
            let raw = try PatternWriter.text(for: original, as: .pulsarRaw)
            let fromRaw = try PatternLoader().decode(Array(raw.utf8), file: "r.json", format: .pulsarJSON)
            #expect(fromRaw.format == .pulsarRaw, "\(name): raw sniffed")
            #expect(fromRaw.pattern == original, "\(name): wire → raw")
            let wireAgain = try PatternWriter.text(for: fromRaw.pattern, as: .pulsarJSON)
            #expect(wireAgain == wire, "\(name): wire → raw → wire text")
            let final = try PatternLoader().decode(Array(wireAgain.utf8), file: "w2.json", format: .pulsarJSON).pattern
            #expect(final == original, "\(name): wire → raw → wire")
        }
    }

    @Test("the model comparison notices a changed value, time or transient")
    func comparisonCanFail() {
        let base = PatternData(
            continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 100, value: 1)],
                                                 frequency: [ValuePoint(time: 0, value: 0.5)]),
            discretePattern: [DiscretePoint(time: 50, amplitude: 1, frequency: 0.5)])
        #expect(Self.differences(base, base).isEmpty)
        var moved = base
        moved.continuousPattern.amplitude[1].time = 110
        #expect(!Self.differences(base, moved).isEmpty)
        var step = base
        step.continuousPattern.amplitude.insert(ValuePoint(time: 100, value: 0.5), at: 1)
        #expect(!Self.differences(base, step).isEmpty, "a step changes the value just before it")
        var freq = base
        freq.continuousPattern.frequency = []
        #expect(Self.differences(base, freq).isEmpty, "no frequency curve means 0.5")
        freq.continuousPattern.frequency = [ValuePoint(time: 0, value: 0.502)]
        #expect(!Self.differences(base, freq).isEmpty)
        var transient = base
        transient.discretePattern[0].amplitude = 0.99
        #expect(!Self.differences(base, transient).isEmpty)
        transient.discretePattern = []
        #expect(!Self.differences(base, transient).isEmpty)
    }

    @Test("AHAP export of a small pattern re-imports to the same curves and transients")
    func ahapExportSmall() throws {
        let pattern = PatternData(
            continuousPattern: ContinuousPattern(
                amplitude: (0...40).map { ValuePoint(time: Double($0) * 10, value: Double($0 % 5) / 4) },
                frequency: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 400, value: 0.9)]),
            discretePattern: [DiscretePoint(time: 0, amplitude: 1, frequency: 0.25), DiscretePoint(time: 123.5, amplitude: 0.5, frequency: 1)])
        let text = try PatternWriter.text(for: pattern, as: .ahap)
        let doc = try JSONParser().parse(Array(text.utf8))
        let entries = try #require(doc["Pattern"]?.array)
        let curves = entries.compactMap { $0["ParameterCurve"] }
        #expect(curves.allSatisfy { ($0["ParameterCurveControlPoints"]?.array?.count ?? 99) <= 16 }, "Core Haptics' limit")
        #expect(curves.filter { $0["ParameterID"]?.string == "HapticIntensityControl" }.count == 3, "41 points in 16-point curves sharing ends")
        let back = try PatternLoader().decode(Array(text.utf8), file: "x.ahap", format: .ahap).pattern
        #expect(Self.differences(pattern, back).isEmpty, "\(Self.differences(pattern, back))")
        #expect(throws: PatternWriter.UnsupportedFormat.self) { try PatternWriter.text(for: pattern, as: .lofelt) }
    }
}
