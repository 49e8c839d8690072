import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// Random access and determinism of the renderer over every corpus pattern, and agreement with the
/// reference transcription of the signal model.
@Suite struct RendererPropertyTests {
    static var corpusPatterns: [String] {
        Corpus.files(in: "pulsar-presets", ext: "json") + Corpus.files(in: "pulsar-docs-presets", ext: "json")
            + Corpus.files(in: "ahap", ext: "ahap") + Corpus.files(in: "lofelt", ext: "haptic") + Corpus.files(in: "lofelt", ext: "ahap")
    }

    @Test("Any range [a, b) renders exactly as samples a..<b of a full render (whole corpus)",
          .enabled(if: Corpus.root != nil, "corpus absent: ../shared/corpus"))
    func randomRanges() throws {
        var rng = SplitMix64(seed: 2026)
        let files = Self.corpusPatterns
        #expect(files.count > 300)
        for file in files {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let rate = SampleRate([44_100, 48_000, 96_000][Int.random(in: 0..<3, using: &rng)])!
            let r = try PatternRenderer(pattern: pattern, sampleRate: rate)
            let total = Int(r.frameCount)
            #expect(total > 0, "\(file) renders something")
            let full = r.render(frames: -64..<FrameIndex(total + 64))
            #expect(full.prefix(64).allSatisfy { $0 == 0 } && full.suffix(64).allSatisfy { $0 == 0 }, "\(file): silent outside 0..<frameCount")
            let audible = pattern.continuousPattern.amplitude.contains { $0.value > 0 } || pattern.discretePattern.contains { $0.amplitude > 0 }
            #expect(full.contains { $0 != 0 } == audible, "\(file): silent exactly when every amplitude is 0")
            for _ in 0..<12 {
                let a = Int.random(in: -100...(total + 10), using: &rng)
                let length = [1, 7, 8, 9, 255, 1023, 1024, 1025, 4096, 20_000][Int.random(in: 0..<10, using: &rng)]
                let part = r.render(frames: FrameIndex(a)..<FrameIndex(a + length))
                for (i, v) in part.enumerated() {
                    let n = a + i
                    let expected: Float = (n >= -64 && n < total + 64) ? full[n + 64] : 0
                    if v != expected {
                        Issue.record("\(file) @\(rate): range \(a)..<\(a + length) differs at frame \(n): \(v) vs \(expected)")
                        break
                    }
                }
            }
        }
    }

    @Test("Same input, same bits, on every run and from fresh renderers",
          .enabled(if: Corpus.root != nil, "corpus absent: ../shared/corpus"))
    func determinism() throws {
        for file in Corpus.files(in: "pulsar-presets", ext: "json").prefix(20) {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let a = try PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!)
            let b = try PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!)
            #expect(a.render(frames: 0..<a.frameCount) == b.render(frames: 0..<b.frameCount), "\(file)")
        }
    }

    @Test("Every corpus preset matches the reference transcription within 2e-5",
          .enabled(if: Corpus.root != nil, "corpus absent: ../shared/corpus"))
    func corpusAgainstReference() throws {
        var worst = 0.0
        for file in Corpus.files(in: "pulsar-presets", ext: "json") + Corpus.files(in: "pulsar-docs-presets", ext: "json") {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let reference = ReferenceSignal(pattern, rate: 48_000)
            let r = try PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!)
            #expect(Int(r.frameCount) == reference.frameCount, "\(file): length")
            let y = r.render(frames: 0..<r.frameCount)
            let expected = reference.samples(0..<reference.frameCount)
            let deviation = zip(y, expected).map { abs(Double($0) - $1) }.max() ?? 0
            #expect(deviation < 2e-5, "\(file): max deviation \(deviation)")
            worst = max(worst, deviation)
        }
        print("note: worst deviation from the reference over the presets: \(worst)")
    }
}
