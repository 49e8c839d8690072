import Foundation
import PulsarTestSupport
import Testing
@testable import PulsarCore

/// Lofelt `.haptic` import (the "Formats" suite, continued): Studio exports, emphasis, and the
/// golden conversions.
extension FormatTests {
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
}
