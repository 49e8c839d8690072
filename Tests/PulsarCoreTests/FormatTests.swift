import Foundation
import PulsarTestSupport
import Testing
@testable import PulsarCore

/// Pattern formats: loading the real-world corpus, the AHAP import rules, Lofelt import, and
/// round trips through every writable format.
@Suite("Formats")
struct FormatTests {
    // MARK: Helpers

    /// Decodes an inline document as `format`.
    static func decode(_ text: String, format: PatternFormat?, file: String = "inline",
                       timeUnit: TimeUnitPolicy = .automatic) throws(PatternDiagnostic) -> LoadedPattern {
        try PatternLoader(timeUnit: timeUnit).decode(Array(text.utf8), file: file, format: format)
    }

    static func decodeAHAP(_ text: String) throws(PatternDiagnostic) -> LoadedPattern {
        try decode(text, format: .ahap, file: "inline.ahap")
    }

    /// An AHAP document holding `entries` (already JSON text, comma-separated).
    static func ahap(_ entries: String...) -> String {
        #"{"Version": 1, "Pattern": ["# + entries.joined(separator: ",") + "]}"
    }

    static func continuous(time: Double, duration: Double, intensity: Double, sharpness: Double) -> String {
        #"{"Event": {"Time": \#(time), "EventType": "HapticContinuous", "EventDuration": \#(duration), "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}}"#
    }

    static func transient(time: Double, intensity: Double, sharpness: Double) -> String {
        #"{"Event": {"Time": \#(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}}"#
    }

    static func curve(_ id: String, time: Double, _ points: [(Double, Double)]) -> String {
        let list = points.map { #"{"Time": \#($0.0), "ParameterValue": \#($0.1)}"# }.joined(separator: ", ")
        return #"{"ParameterCurve": {"ParameterID": "\#(id)", "Time": \#(time), "ParameterCurveControlPoints": [\#(list)]}}"#
    }

    /// Expects `value` within `tolerance` of `expected`.
    static func near(_ value: Double, _ expected: Double, _ tolerance: Double = 1e-9,
                     _ what: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(value - expected) <= tolerance, "\(what()) \(value) != \(expected)", sourceLocation: sourceLocation)
    }

    /// The differences between two models, evaluated as functions: the amplitude and (effective)
    /// frequency curves at every point time of either model, just before it, and at the midpoints
    /// between consecutive times; transients one to one. Empty when they agree within `tolerance`.
    static func differences(_ a: PatternData, _ b: PatternData, tolerance: Double = 1e-3) -> [String] {
        var problems: [String] = []
        let ca = a.continuousPattern, cb = b.continuousPattern
        if ca.amplitude.isEmpty != cb.amplitude.isEmpty {
            problems.append("continuous part: \(ca.amplitude.count) vs \(cb.amplitude.count) amplitude points")
        } else if !ca.amplitude.isEmpty {
            var times = Set<Double>()
            for p in ca.amplitude + ca.frequency + cb.amplitude + cb.frequency { times.insert(p.time) }
            let sorted = times.sorted()
            let mids = zip(sorted, sorted.dropFirst()).map { ($0 + $1) / 2 }
            // Frequency without a curve is 0.5 (docs/signal-model.md).
            func frequency(_ c: ContinuousPattern) -> Curve {
                Curve(c.frequency.isEmpty ? [ValuePoint(time: 0, value: 0.5)] : c.frequency)
            }
            let pairs = [("amplitude", Curve(ca.amplitude), Curve(cb.amplitude)), ("frequency", frequency(ca), frequency(cb))]
            for (name, x, y) in pairs {
                var reported = 0
                for t in sorted + mids {
                    let checks = [("at", x.value(at: t), y.value(at: t)), ("before", x.valueBefore(t), y.valueBefore(t))]
                    for (kind, u, v) in checks where !(abs(u - v) <= tolerance) && reported < 3 {
                        reported += 1
                        problems.append("\(name) \(kind) \(t) ms: \(u) vs \(v)")
                    }
                }
            }
        }
        if a.discretePattern.count != b.discretePattern.count {
            problems.append("transients: \(a.discretePattern.count) vs \(b.discretePattern.count)")
        } else {
            for (i, (p, q)) in zip(a.discretePattern, b.discretePattern).enumerated()
            where !(abs(p.time - q.time) <= tolerance && abs(p.amplitude - q.amplitude) <= tolerance
                    && abs(p.frequency - q.frequency) <= tolerance) {
                problems.append("transient \(i): \(p) vs \(q)")
            }
        }
        return problems
    }

    // MARK: Corpus

    @Test("the corpus is present with its folders", .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusPresence() throws {
        #expect(try Corpus.files(in: "pulsar-presets", ext: "json").count == 151)
        #expect(try Corpus.files(in: "pulsar-docs-presets", ext: "json").count == 6)
        #expect(try Corpus.files(in: "ahap", ext: "ahap").count == 21)
        #expect(try Corpus.files(in: "lofelt", ext: "haptic").count == 137)
        #expect(try Corpus.files(in: "lofelt/golden", ext: "ahap").count == 14)
        #expect(SharedCorpus.files(in: "no-such-folder", ext: "json").isEmpty)
        let presets = try Corpus.files(in: "pulsar-presets", ext: "json")
        #expect(presets == presets.sorted())
        #expect(presets.allSatisfy { $0.hasPrefix("/") && $0.hasSuffix(".json") })
        // Recursive: the AHAP files are in subfolders of ahap/apple.
        #expect(try Corpus.files(in: "ahap", ext: "ahap").allSatisfy { $0.contains("/ahap/apple/") })
    }

    @Test("every Pulsar preset loads without error or warning, in milliseconds",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func pulsarPresets() throws {
        let files = try Corpus.files(in: "pulsar-presets", ext: "json")
        #expect(files.count == 151)
        for file in files {
            let loaded: LoadedPattern
            do { loaded = try PatternLoader().load(contentsOf: file) } catch {
                Issue.record("\(error)"); continue
            }
            #expect(loaded.format == .pulsarJSON, "\(Corpus.name(file))")
            #expect(loaded.warnings.isEmpty, "\(Corpus.name(file)): \(loaded.warnings)")
            #expect(loaded.scaledFromSeconds == false, "\(Corpus.name(file))")
            #expect(loaded.pattern.pointCount > 0, "\(Corpus.name(file))")
        }
    }

    @Test("the documentation presets are read as seconds and scaled to milliseconds",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func docsPresets() throws {
        let files = try Corpus.files(in: "pulsar-docs-presets", ext: "json").filter { $0.hasSuffix("/pattern.json") }
        #expect(files.count == 6)
        for file in files {
            let loaded: LoadedPattern
            do { loaded = try PatternLoader().load(contentsOf: file) } catch {
                Issue.record("\(error)"); continue
            }
            #expect(loaded.scaledFromSeconds, "\(Corpus.name(file))")
            #expect(loaded.warnings.contains { $0.rule == .secondsAsMilliseconds && $0.severity == .warning },
                    "\(Corpus.name(file)): \(loaded.warnings)")
            #expect(loaded.pattern.lastPointTime > 100, "\(Corpus.name(file)): times in ms")
        }
        let root = try #require(Corpus.root, "../shared/corpus is absent (required under CI=true)")
        let first = try PatternLoader().load(contentsOf: root + "/pulsar-docs-presets/1/pattern.json")
        #expect(first.format == .pulsarJSON)
        let times = first.pattern.discretePattern.map(\.time)
        try #require(times.count == 5)
        for (t, expected) in zip(times, [0, 149, 301, 501, 650.0]) { Self.near(t, expected, 1e-9, "docs/1 transient") }
        #expect(first.pattern.discretePattern[1].amplitude == 0.675)
        // The raw {x, y} form is recognised too, and scaled the same way.
        let third = try PatternLoader().load(contentsOf: root + "/pulsar-docs-presets/3/pattern.json")
        #expect(third.format == .pulsarRaw)
        #expect(third.scaledFromSeconds)
        Self.near(third.pattern.continuousPattern.amplitude[1].time, 300, 1e-9, "docs/3 amplitude[1]")
        // With --time-unit ms the same file keeps its numbers.
        let kept = try PatternLoader(timeUnit: .milliseconds).load(contentsOf: root + "/pulsar-docs-presets/1/pattern.json")
        #expect(!kept.scaledFromSeconds)
        #expect(kept.pattern.discretePattern[1].time == 0.149)
    }

    @Test("every corpus AHAP loads without error",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusAHAP() throws {
        let files = try Corpus.files(in: "ahap", ext: "ahap")
        #expect(files.count == 21)
        for file in files {
            do {
                let loaded = try PatternLoader().load(contentsOf: file)
                #expect(loaded.format == .ahap, "\(Corpus.name(file))")
                #expect(!loaded.scaledFromSeconds)
                #expect(loaded.warnings.allSatisfy { $0.severity == .warning })
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("every Lofelt clip and golden AHAP loads without error",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusLofelt() throws {
        let haptics = try Corpus.files(in: "lofelt", ext: "haptic")
        let goldenAHAP = try Corpus.files(in: "lofelt/golden", ext: "ahap")
        #expect(haptics.count == 137)
        #expect(goldenAHAP.count == 14)
        for file in haptics + goldenAHAP {
            do {
                let loaded = try PatternLoader().load(contentsOf: file)
                #expect(loaded.format == (file.hasSuffix(".haptic") ? .lofelt : .ahap), "\(Corpus.name(file))")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("the Lofelt Studio export is read with absolute control-point times",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func studioExport() throws {
        let root = try #require(Corpus.root, "../shared/corpus is absent (required under CI=true)")
        let loaded = try PatternLoader().load(contentsOf: root + "/lofelt/golden/studio_export.ahap")
        #expect(loaded.pattern.continuousPattern.amplitude.count > 16)
        // Whether its curves all start at 0 (then nothing to decide) or not, times never go backwards.
        let times = loaded.pattern.continuousPattern.amplitude.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        Self.near(times.last!, 9804.943310657597, 1e-6, "ends at EventDuration")
    }

    // MARK: Lofelt

    @Test("Lofelt: times seconds → ms, values √ (as Lofelt's iOS player), the carrier ducked 20 % at an emphasis, which becomes a transient")
    func lofeltEmphasis() throws {
        let text = #"""
        {"version": {"major": 1, "minor": 0, "patch": 0},
         "signals": {"continuous": {"envelopes": {
           "amplitude": [{"time": 0, "amplitude": 0.2},
                         {"time": 0.25, "amplitude": 0.9, "emphasis": {"amplitude": 1, "frequency": 0.7}},
                         {"time": 1.5, "amplitude": 0.1}],
           "frequency": [{"time": 0, "frequency": 0.3}, {"time": 1.5, "frequency": 0.8}]}}}}
        """#
        let loaded = try Self.decode(text, format: .lofelt, file: "clip.haptic")
        #expect(loaded.format == .lofelt)
        #expect(!loaded.scaledFromSeconds)
        let p = loaded.pattern
        #expect(p.continuousPattern.amplitude.map(\.time) == [0, 250, 1500])
        // √0.2, √0.9 · 0.8 (the duck under the emphasis), √0.1.
        for (point, value) in zip(p.continuousPattern.amplitude, [0.447213595, 0.758946638, 0.316227766]) {
            Self.near(point.value, value, 1e-9)
        }
        #expect(p.continuousPattern.frequency.map(\.time) == [0, 1500])
        Self.near(p.continuousPattern.frequency[0].value, 0.547722558, 1e-9)   // √0.3
        Self.near(p.continuousPattern.frequency[1].value, 0.894427191, 1e-9)   // √0.8
        // The emphasis: amplitude √1, frequency as it stands.
        #expect(p.discretePattern == [DiscretePoint(time: 250, amplitude: 1, frequency: 0.7)])
        // Sniffed by content when no format is given.
        #expect(try Self.decode(text, format: nil).format == .lofelt)
    }

    @Test("Lofelt emphasis errors point into the emphasis object")
    func lofeltEmphasisError() throws {
        let text = #"{"signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5, "emphasis": {"amplitude": 2, "frequency": 0.5}}, {"time": 1, "amplitude": 0}]}}}}"#
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try Self.decode(text, format: .lofelt, file: "e.haptic") })
        #expect(error.rule == .valueOutOfRange)
        #expect(error.path == "$.signals.continuous.envelopes.amplitude[0].emphasis.amplitude")
    }

    @Test("every golden .haptic plays as the AHAP Lofelt's own converter made of it: curves and transients within 1e-3",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func lofeltAgainstItsConverter() throws {
        let root = try #require(Corpus.root, "../shared/corpus is absent (required under CI=true)")
        let pairs = ["2_points", "3_points", "16_points", "17_points", "long_clip"]
        for name in pairs {
            let clip = try PatternLoader().load(contentsOf: "\(root)/lofelt/golden/\(name).haptic").pattern
            let converted = try PatternLoader().load(contentsOf: "\(root)/lofelt/golden/\(name).ahap").pattern
            let problems = Self.differences(clip, converted)
            #expect(problems.isEmpty, "\(name): \(problems.prefix(6).joined(separator: "; "))")
        }
    }

    @Test("every corpus .haptic: one transient per emphasis, envelope times x 1000",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusLofeltEmphasis() throws {
        var emphasized = 0, merged = 0
        for file in try Corpus.files(in: "lofelt", ext: "haptic") {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            let doc = try JSONParser().parse(bytes)
            let envelope = try #require(doc["signals"]?["continuous"]?["envelopes"]?["amplitude"]?.array, "\(file)")
            let expectedTimes = envelope.map { $0["time"]!.number! * 1000 }
            var emphasisTimes: [Double] = []
            for point in envelope where point["emphasis"] != nil {
                let t = point["time"]!.number! * 1000
                // Emphases on both points of a step merge into one transient (docs/formats.md).
                if emphasisTimes.last == t { merged += 1 } else { emphasisTimes.append(t) }
            }
            emphasized += emphasisTimes.count
            let loaded = try PatternLoader().load(contentsOf: file)
            #expect(loaded.pattern.continuousPattern.amplitude.map(\.time) == expectedTimes, "\(Corpus.name(file))")
            #expect(loaded.pattern.discretePattern.map(\.time) == emphasisTimes, "\(Corpus.name(file))")
        }
        #expect(emphasized > 0, "the corpus has clips with emphasis")
        #expect(merged > 0, "the corpus has emphases on both points of a step (Rain1)")
    }

    // MARK: AHAP rules

    @Test("HapticIntensityControl multiplies the event intensity")
    func intensityControlMultiplies() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 0.8, sharpness: 0.3),
            Self.curve("HapticIntensityControl", time: 0, [(0, 0.5), (1, 1.0)])))
        let amplitude = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(amplitude.value(at: 0), 0.4, 1e-12, "0.8 x 0.5")
        Self.near(amplitude.value(at: 500), 0.6, 1e-12, "0.8 x 0.75")
        Self.near(amplitude.valueBefore(1000), 0.8, 1e-12, "0.8 x 1")
        #expect(loaded.pattern.continuousPattern.amplitude.first?.time == 0)
        #expect(loaded.pattern.continuousPattern.amplitude.last?.time == 1000)
        // Sharpness untouched by the intensity control.
        let frequency = Curve(loaded.pattern.continuousPattern.frequency)
        Self.near(frequency.value(at: 500), 0.3, 1e-12, "sharpness")
    }

    @Test("HapticSharpnessControl adds to the event sharpness")
    func sharpnessControlAdds() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 0.5, sharpness: 0.3),
            Self.curve("HapticSharpnessControl", time: 0, [(0, 0.2), (1, -0.1)])))
        let frequency = Curve(loaded.pattern.continuousPattern.frequency)
        Self.near(frequency.value(at: 0), 0.5, 1e-12, "0.3 + 0.2")
        Self.near(frequency.value(at: 500), 0.35, 1e-12, "0.3 + 0.05")
        Self.near(frequency.valueBefore(1000), 0.2, 1e-12, "0.3 - 0.1")
        let amplitude = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(amplitude.value(at: 500), 0.5, 1e-12, "intensity untouched")
    }

    @Test("sums past 0...1 are clamped, with the crossing inserted as a breakpoint")
    func clampingInsertsBreakpoints() throws {
        // 0.8 + (0 ... 0.4) crosses 1 at 0.5 s; 0.2 + (0 ... -0.4) crosses 0 at 0.5 s.
        let up = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 1, sharpness: 0.8),
            Self.curve("HapticSharpnessControl", time: 0, [(0, 0), (1, 0.4)])))
        let upPoints = up.pattern.continuousPattern.frequency
        #expect(upPoints.allSatisfy { (0...1).contains($0.value) })
        let crossing = try #require(upPoints.first { abs($0.time - 500) < 1e-6 }, "breakpoint at 500 ms: \(upPoints)")
        Self.near(crossing.value, 1, 1e-9)
        let f = Curve(upPoints)
        Self.near(f.value(at: 250), 0.9, 1e-9, "below the bound: linear")
        Self.near(f.value(at: 750), 1.0, 1e-9, "above the bound: clamped")
        Self.near(f.valueBefore(1000), 1.0, 1e-9)

        let down = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 1, sharpness: 0.2),
            Self.curve("HapticSharpnessControl", time: 0, [(0, 0), (1, -0.4)])))
        let g = Curve(down.pattern.continuousPattern.frequency)
        #expect(down.pattern.continuousPattern.frequency.contains { abs($0.time - 500) < 1e-6 && abs($0.value) < 1e-9 })
        Self.near(g.value(at: 250), 0.1, 1e-9)
        Self.near(g.value(at: 750), 0, 1e-9)
    }

    @Test("parameter values outside their range are clamped with a warning")
    func clampedParametersWarn() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 1.5, sharpness: -0.2),
            Self.curve("HapticIntensityControl", time: 0, [(0, 2), (1, 0.5)]),
            Self.transient(time: 0.5, intensity: 3, sharpness: 0.5)))
        let warning = try #require(loaded.warnings.first { $0.rule == .clamped })
        #expect(warning.severity == .warning)
        #expect(warning.message.hasPrefix("4 "), "intensity, sharpness, one control point, one transient: \(warning.message)")
        let a = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(a.value(at: 0), 1, 1e-12, "1 x 1")
        Self.near(a.valueBefore(1000), 0.5, 1e-12, "1 x 0.5")
        Self.near(Curve(loaded.pattern.continuousPattern.frequency).value(at: 500), 0, 1e-12)
        #expect(loaded.pattern.discretePattern == [DiscretePoint(time: 500, amplitude: 1, frequency: 0.5)])
        // In range: no clamp warning.
        let clean = try Self.decodeAHAP(Self.ahap(Self.continuous(time: 0, duration: 1, intensity: 1, sharpness: 0)))
        #expect(!clean.warnings.contains { $0.rule == .clamped })
    }

    @Test("control-point times are relative to the curve's Time (Apple)")
    func relativeCurveTimes() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 2, intensity: 1, sharpness: 0.5),
            Self.curve("HapticIntensityControl", time: 0.5, [(0, 0), (0.5, 1)]),
            Self.curve("HapticIntensityControl", time: 1.5, [(0, 0.2)])))
        #expect(!loaded.warnings.contains { $0.rule == .absoluteCurveTimes })
        let a = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(a.value(at: 250), 1, 1e-12, "before the first curve: neutral intensity")
        Self.near(a.value(at: 500), 0, 1e-12, "curve starts at 0.5 s")
        Self.near(a.value(at: 750), 0.5, 1e-12, "0.5 + 0.25 s: half way")
        Self.near(a.value(at: 1000), 1, 1e-12)
        Self.near(a.valueBefore(1500), 1, 1e-12, "held until the next curve")
        Self.near(a.value(at: 1500), 0.2, 1e-12, "the next curve takes over")
        Self.near(a.valueBefore(2000), 0.2, 1e-12)
    }

    @Test("control-point times are absolute when every curve with a Time starts at that time (Lofelt Studio)")
    func absoluteCurveTimes() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 2, intensity: 1, sharpness: 0.5),
            Self.curve("HapticIntensityControl", time: 0.5, [(0.5, 0), (1, 1)]),
            Self.curve("HapticSharpnessControl", time: 1, [(1, 0.25), (2, 0.25)])))
        let warning = try #require(loaded.warnings.first { $0.rule == .absoluteCurveTimes })
        #expect(warning.severity == .warning)
        let a = Curve(loaded.pattern.continuousPattern.amplitude)
        Self.near(a.value(at: 750), 0.5, 1e-12, "absolute: half way between 0.5 s and 1 s")
        Self.near(a.value(at: 1000), 1, 1e-12)
        let f = Curve(loaded.pattern.continuousPattern.frequency)
        Self.near(f.value(at: 1500), 0.75, 1e-12, "0.5 + 0.25 from 1 s on")
        Self.near(f.value(at: 500), 0.5, 1e-12)

        // One curve that does not start at its Time makes the whole file relative.
        let mixed = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 3, intensity: 1, sharpness: 0.5),
            Self.curve("HapticIntensityControl", time: 0.5, [(0.5, 0), (1, 1)]),
            Self.curve("HapticSharpnessControl", time: 1, [(0, 0.25), (1, 0.25)])))
        #expect(!mixed.warnings.contains { $0.rule == .absoluteCurveTimes })
        let m = Curve(mixed.pattern.continuousPattern.amplitude)
        Self.near(m.value(at: 750), 0, 1e-12, "relative: the first point is at 1 s, held before")
        Self.near(m.value(at: 1250), 0.5, 1e-12, "half way between 1 s and 1.5 s")
        Self.near(m.value(at: 1750), 1, 1e-12)
    }

    @Test("parameter curves do not touch transients")
    func curvesDoNotAffectTransients() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 1, sharpness: 0.5),
            Self.curve("HapticIntensityControl", time: 0, [(0, 0.1), (1, 0.1)]),
            Self.curve("HapticSharpnessControl", time: 0, [(0, 0.3), (1, 0.3)]),
            Self.transient(time: 0.5, intensity: 0.8, sharpness: 0.6),
            Self.transient(time: 0.25, intensity: 0.4, sharpness: 0.1)))
        #expect(loaded.pattern.discretePattern == [DiscretePoint(time: 250, amplitude: 0.4, frequency: 0.1),
                                                   DiscretePoint(time: 500, amplitude: 0.8, frequency: 0.6)],
                "sorted by time, values as written")
        Self.near(Curve(loaded.pattern.continuousPattern.amplitude).value(at: 500), 0.1, 1e-12, "the curve does shape the continuous part")
        // A transient without parameters gets intensity 1 and sharpness 0.5.
        let bare = try Self.decodeAHAP(#"{"Pattern": [{"Event": {"Time": 0.1, "EventType": "HapticTransient"}}]}"#)
        #expect(bare.pattern.discretePattern == [DiscretePoint(time: 100, amplitude: 1, frequency: 0.5)])
        #expect(bare.pattern.continuousPattern.isEmpty)
    }

    @Test("where continuous events overlap the stronger one wins")
    func overlappingEvents() throws {
        let loaded = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 1, intensity: 0.3, sharpness: 0.1),
            Self.continuous(time: 0.4, duration: 0.2, intensity: 0.9, sharpness: 0.7)))
        let a = Curve(loaded.pattern.continuousPattern.amplitude)
        let f = Curve(loaded.pattern.continuousPattern.frequency)
        Self.near(a.value(at: 200), 0.3, 1e-12)
        Self.near(a.value(at: 500), 0.9, 1e-12)
        Self.near(f.value(at: 500), 0.7, 1e-12)
        Self.near(a.value(at: 800), 0.3, 1e-12)
        Self.near(f.value(at: 800), 0.1, 1e-12)
        // Gaps between events are silent.
        let gap = try Self.decodeAHAP(Self.ahap(
            Self.continuous(time: 0, duration: 0.2, intensity: 0.5, sharpness: 0.5),
            Self.continuous(time: 0.5, duration: 0.2, intensity: 0.6, sharpness: 0.5)))
        let g = Curve(gap.pattern.continuousPattern.amplitude)
        Self.near(g.value(at: 100), 0.5, 1e-12)
        Self.near(g.value(at: 300), 0, 1e-12)
        Self.near(g.value(at: 600), 0.6, 1e-12)
    }

    @Test("20 000 unknown members, one per line: each warning names its own line")
    func manyWarningsPlaced() throws {
        var text = #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.5}, {"time": 100, "value": 0.5}], "frequency": [{"time": 0, "value": 0.5}]}"#
        for k in 0..<20_000 { text += ",\n\"extra\(k)\": \(k)" }
        text += "\n}"
        let loaded = try Self.decode(text, format: .pulsarJSON, file: "many.json")
        let ignored = loaded.warnings.filter { $0.rule == .ignored }
        #expect(ignored.count == 20_000)
        for (k, w) in ignored.enumerated() where k % 997 == 0 || k == 19_999 {
            #expect(w.line == k + 2 && w.path == "$.extra\(k)", "\(w.description)")
        }
    }

    @Test("unknown entries, AudioCustom events and foreign parameters are ignored with warnings")
    func ignoredEntries() throws {
        let text = #"""
        {"Version": 1, "Extra": true, "Pattern": [
          {"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav",
                     "EventParameters": [{"ParameterID": "AudioVolume", "ParameterValue": 0.5}]}},
          {"ParameterCurves": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": []}},
          {"Event": {"Time": 0.1, "EventType": "HapticTransient",
                     "EventParameters": [{"ParameterID": "HapticAttackTime", "ParameterValue": 0.5}]}},
          {"ParameterCurve": {"ParameterID": "AudioVolumeControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}]}}
        ]}
        """#
        let loaded = try Self.decodeAHAP(text)
        #expect(loaded.pattern.discretePattern == [DiscretePoint(time: 100, amplitude: 1, frequency: 0.5)])
        #expect(loaded.pattern.continuousPattern.isEmpty)
        let ignored = loaded.warnings.filter { $0.rule == .ignored }
        let paths = Set(ignored.map(\.path))
        #expect(paths.contains("$.Extra"), "\(paths)")
        #expect(paths.contains("$.Pattern[0].Event"), "AudioCustom: \(paths)")
        #expect(paths.contains("$.Pattern[1].ParameterCurves"), "unknown entry: \(paths)")
        #expect(paths.contains("$.Pattern[2].Event.EventParameters[0]"), "HapticAttackTime: \(paths)")
        #expect(paths.contains("$.Pattern[3].ParameterCurve"), "AudioVolumeControl: \(paths)")
        #expect(!paths.contains("$.Pattern[0].Event.EventParameters[0]"), "audio parameters are not reported one by one")
        #expect(ignored.allSatisfy { $0.severity == .warning && $0.file == "inline.ahap" && $0.line != nil })
        #expect(ignored.first { $0.path == "$.Pattern[0].Event" }?.message.contains("AudioCustom") == true)
    }

    @Test("a continuous event needs EventDuration")
    func eventDurationRequired() throws {
        let text = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous"}}]}"#
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try Self.decodeAHAP(text) })
        #expect(error.rule == .missingField)
        #expect(error.path == "$.Pattern[0].Event")
        #expect(error.message.contains("EventDuration"))
        #expect(error.line == 1 && error.column == 24)
        // A negative duration is an error, a zero one a warning.
        let negative = Self.ahap(#"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": -1}}"#)
        #expect(throws: PatternDiagnostic.self) { try Self.decodeAHAP(negative) }
        let zero = try Self.decodeAHAP(Self.ahap(
            #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0}}"#,
            Self.transient(time: 0, intensity: 1, sharpness: 1)))
        #expect(zero.warnings.contains { $0.rule == .ignored && $0.path == "$.Pattern[0].Event" })
    }

    @Test("two AHAP transients or two Lofelt emphases at one time merge into the stronger, with a warning")
    func mergedDuplicates() throws {
        let ahap = try Self.decodeAHAP(Self.ahap(
            Self.transient(time: 0.1, intensity: 0.3, sharpness: 0.1),
            Self.transient(time: 0.1, intensity: 0.9, sharpness: 0.8),
            Self.transient(time: 0.1, intensity: 0.5, sharpness: 0.2)))
        #expect(ahap.pattern.discretePattern == [DiscretePoint(time: 100, amplitude: 0.9, frequency: 0.8)])
        #expect(ahap.warnings.contains { $0.rule == .duplicateTime && $0.severity == .warning })
        let haptic = #"""
        {"signals": {"continuous": {"envelopes": {"amplitude": [
          {"time": 0, "amplitude": 0},
          {"time": 0.5, "amplitude": 1, "emphasis": {"amplitude": 0.4, "frequency": 0.1}},
          {"time": 0.5, "amplitude": 0, "emphasis": {"amplitude": 0.6, "frequency": 0.9}},
          {"time": 1, "amplitude": 0}]}}}}
        """#
        let lofelt = try Self.decode(haptic, format: .lofelt, file: "step.haptic")
        #expect(lofelt.pattern.discretePattern == [DiscretePoint(time: 500, amplitude: 0.6.squareRoot(), frequency: 0.9)])
        let warning = try #require(lofelt.warnings.first { $0.rule == .duplicateTime })
        #expect(warning.path == "$.signals.continuous.envelopes.amplitude[2].emphasis")
    }

    @Test("Apple's trailing commas are accepted in AHAP but not in Pulsar JSON")
    func ahapTrailingCommas() throws {
        let ahap = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient",},},],}"#
        #expect(try Self.decodeAHAP(ahap).pattern.discretePattern.count == 1)
        let json = #"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1},]}"#
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try Self.decode(json, format: .pulsarJSON) })
        #expect(error.rule == .malformedJSON)
    }

    // MARK: Round trips

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
