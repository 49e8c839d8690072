import Foundation
import Testing
@testable import PulsarCore

/// The tree-free wire reader must decide exactly what the general path decides, and step aside
/// (return nil) on anything outside the canonical shape.
@Suite struct WireFastDecoderTests {
    @Test("Every corpus preset decodes to the same pattern on both paths",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusAgreement() throws {
        let files = try Corpus.files(in: "pulsar-presets", ext: "json")
        #expect(files.count == 151)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let fast = try #require(WireFastDecoder.decode(bytes, maximumPoints: 1_000_000), "\(file)")
            let general = try PatternLoader().decodeGeneral(bytes, file: file, format: .pulsarJSON)
            #expect(fast == general.pattern, "\(file)")
        }
    }

    @Test("Our own export and a compact one-line document take the fast path")
    func exportedDocuments() throws {
        let pattern = PatternData(
            continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.25), ValuePoint(time: 12.5, value: 1e-3)],
                                                 frequency: [ValuePoint(time: 0, value: 1)]),
            discretePattern: [DiscretePoint(time: 3, amplitude: 0.5, frequency: 0)])
        let text = try PatternWriter.text(for: pattern, as: .pulsarJSON)
        #expect(WireFastDecoder.decode(Array(text.utf8), maximumPoints: 100) == pattern)
        let compact = #"{"discretePattern":[{"frequency":0.5,"time":1E2,"amplitude":-0}]}"#
        #expect(WireFastDecoder.decode(Array(compact.utf8), maximumPoints: 100)?.discretePattern
                == [DiscretePoint(time: 100, amplitude: 0, frequency: 0.5)])
    }

    @Test("Anything outside the canonical shape is left to the general path", arguments: [
        #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 1, "extra": 2}]}}"#,
        #"{"continuousPattern": {"amplitude": [{"time": 0}]}}"#,
        #"{"continuousPattern": {"amplitude": [{"time": "0", "value": 1}]}}"#,
        #"{"continuousPattern": {"amplitude": [{"time": 0, "time": 1, "value": 1}]}}"#,
        #"{"continuousPattern": {"amplitude": [{"ti\u006De": 0, "value": 1}]}}"#,
        #"{"discretePattern": [{"time": NaN, "amplitude": 1, "frequency": 1}]}"#,
        #"{"discretePattern": [{"time": 1e999, "amplitude": 1, "frequency": 1}]}"#,
        #"{"discretePattern": [{"time": 01, "amplitude": 1, "frequency": 1}]}"#,
        #"{"discretePattern": [], "discretePattern": []}"#,
        #"{"discretePattern": []} x"#,
        #"{"discretePattern": [],}"#,
        #"{"line": [[], []]}"#,
        #"{}"#,
        #"[]"#,
    ])
    func fallsBack(text: String) {
        #expect(WireFastDecoder.decode(Array(text.utf8), maximumPoints: 100) == nil)
    }

    @Test("The point limit makes the fast path step aside, so the general path reports it")
    func pointLimit() throws {
        let text = #"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}, {"time": 1, "amplitude": 1, "frequency": 1}]}"#
        #expect(WireFastDecoder.decode(Array(text.utf8), maximumPoints: 1) == nil)
        var loader = PatternLoader()
        loader.validator.maximumPoints = 1
        #expect(throws: PatternDiagnostic.self) { try loader.decode(Array(text.utf8), file: "x.json", format: .pulsarJSON) }
    }
}
