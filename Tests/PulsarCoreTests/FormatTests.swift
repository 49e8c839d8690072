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
}
