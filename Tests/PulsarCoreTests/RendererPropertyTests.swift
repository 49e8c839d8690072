import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// Random access and determinism of the renderer over every corpus pattern and over seeded
/// generated patterns, and agreement with the reference transcription of the signal model.
@Suite struct RendererPropertyTests {
    static func corpusPatterns() throws -> [String] {
        try Corpus.files(in: "pulsar-presets", ext: "json") + Corpus.files(in: "pulsar-docs-presets", ext: "json")
            + Corpus.files(in: "ahap", ext: "ahap") + Corpus.files(in: "lofelt", ext: "haptic") + Corpus.files(in: "lofelt", ext: "ahap")
    }

    /// Renders `pattern` fully (with 64 silent frames either side) and then `ranges` random ranges
    /// [a, b) alone, and records every range that differs from the same frames of the full render.
    static func checkRandomRanges(_ pattern: PatternData, _ name: String, rate: SampleRate, ranges: Int,
                                  starts extraStarts: [Int] = [], using rng: inout SplitMix64) throws {
        let r = try PatternRenderer(pattern: pattern, sampleRate: rate)
        let total = Int(r.frameCount)
        #expect(total > 0, "\(name) renders something")
        let full = r.render(frames: -64..<FrameIndex(total + 64))
        #expect(full.prefix(64).allSatisfy { $0 == 0 } && full.suffix(64).allSatisfy { $0 == 0 }, "\(name): silent outside 0..<frameCount")
        let audible = pattern.continuousPattern.amplitude.contains { $0.value > 0 } || pattern.discretePattern.contains { $0.amplitude > 0 }
        #expect(full.contains { $0 != 0 } == audible, "\(name): silent exactly when every amplitude is 0")
        var starts = (0..<ranges).map { _ in Int.random(in: -100...(total + 10), using: &rng) }
        starts += extraStarts
        for a in starts {
            let length = [1, 7, 8, 9, 255, 1023, 1024, 1025, 4096, 20_000][Int.random(in: 0..<10, using: &rng)]
            let part = r.render(frames: FrameIndex(a)..<FrameIndex(a + length))
            #expect(part.count == length)
            for (i, v) in part.enumerated() {
                let n = a + i
                let expected: Float = (n >= -64 && n < total + 64) ? full[n + 64] : 0
                if v != expected {
                    Issue.record("\(name) @\(rate): range \(a)..<\(a + length) differs at frame \(n): \(v) vs \(expected)")
                    break
                }
            }
        }
    }

    @Test("Any range [a, b) renders exactly as samples a..<b of a full render (whole corpus)",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func randomRanges() throws {
        var rng = SplitMix64(seed: 2026)
        let files = try Self.corpusPatterns()
        #expect(files.count > 300)
        for file in files {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let rate = SampleRate([44_100, 48_000, 96_000][Int.random(in: 0..<3, using: &rng)])!
            try Self.checkRandomRanges(pattern, Corpus.name(file), rate: rate, ranges: 12, using: &rng)
        }
    }

    /// A seeded random pattern: amplitude curves with ramps, holds and steps (two points at one
    /// time), frequency ramps, and transients alone, in clusters that overlap each other (closer
    /// than their 8 ms) and on top of the curve, with sums past the limiter's knee.
    static func generatedPattern(seed: UInt64) -> PatternData {
        var rng = SplitMix64(seed: seed)
        func uniform(_ range: ClosedRange<Double>) -> Double { range.lowerBound + rng.unit() * (range.upperBound - range.lowerBound) }
        func count(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
        let duration = uniform(20...2500)
        // Times on a grid of 1/8 ms half the time (ties with sample boundaries), anywhere otherwise.
        func time(_ range: ClosedRange<Double>) -> Double {
            let t = uniform(range)
            return rng.unit() < 0.5 ? (t * 8).rounded() / 8 : t
        }
        var amplitude: [ValuePoint] = []
        for _ in 0..<count(0...10) { amplitude.append(ValuePoint(time: time(0...duration), value: rng.unit() < 0.2 ? 0 : uniform(0...1))) }
        amplitude.sort { $0.time < $1.time }
        // Steps: a second point at an existing point's time, with another value.
        for _ in 0..<count(0...2) where !amplitude.isEmpty {
            let i = count(0...(amplitude.count - 1))
            amplitude.insert(ValuePoint(time: amplitude[i].time, value: uniform(0...1)), at: i + 1)
        }
        var frequency: [ValuePoint] = []
        for _ in 0..<count(0...6) { frequency.append(ValuePoint(time: time(0...duration), value: uniform(0...1))) }
        frequency.sort { $0.time < $1.time }
        var transients: [DiscretePoint] = []
        for _ in 0..<count(0...8) {
            let centre = time(0...duration)
            // A cluster: transients closer together than one transient lasts.
            for _ in 0..<count(1...4) {
                transients.append(DiscretePoint(time: max(0, centre + time(0...12) - 2), amplitude: uniform(0...1), frequency: uniform(0...1)))
            }
        }
        transients.sort { $0.time < $1.time }
        var pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: amplitude, frequency: frequency),
                                  discretePattern: transients)
        if pattern.isEmpty {
            pattern.discretePattern = [DiscretePoint(time: time(0...duration), amplitude: 1, frequency: 0.5)]
        }
        return pattern
    }

    /// The fixed seeds of the generated patterns: the property runs the same way everywhere,
    /// with or without the corpus.
    static let generatedSeeds: [UInt64] = Array(1...60) + [2026, 48_000, 0xDEAD_BEEF]

    @Test("Any range [a, b) renders exactly as samples a..<b of a full render (seeded generated patterns: curves, steps, transients, overlaps)",
          arguments: [8_000, 44_100, 48_000, 96_000, 192_000])
    func randomRangesOnGeneratedPatterns(rate hz: Int) throws {
        let rate = try #require(SampleRate(hz))
        var rng = SplitMix64(seed: UInt64(hz))
        for seed in Self.generatedSeeds {
            let pattern = Self.generatedPattern(seed: seed)
            // Besides random starts, ranges starting just before, at and after every breakpoint.
            var times = pattern.continuousPattern.amplitude.map(\.time) + pattern.continuousPattern.frequency.map(\.time)
            for t in pattern.discretePattern.map(\.time) { times += [t, t + 4, t + 8] }
            var starts: [Int] = []
            for t in times.prefix(12) {
                let n = Int((t * Double(hz) / 1000).rounded())
                starts += [n - 1, n, n + 1]
            }
            try Self.checkRandomRanges(pattern, "generated pattern \(seed)", rate: rate, ranges: 8, starts: starts, using: &rng)
        }
    }

    @Test("Same input, same bits, on every run and from fresh renderers",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func determinism() throws {
        for file in try Corpus.files(in: "pulsar-presets", ext: "json").prefix(20) {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let a = try PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!)
            let b = try PatternRenderer(pattern: pattern, sampleRate: SampleRate(48_000)!)
            #expect(a.render(frames: 0..<a.frameCount) == b.render(frames: 0..<b.frameCount), "\(file)")
        }
    }

    @Test("Every corpus preset matches the reference transcription within 2e-5",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusAgainstReference() throws {
        var worst = 0.0
        for file in try Corpus.files(in: "pulsar-presets", ext: "json") + Corpus.files(in: "pulsar-docs-presets", ext: "json") {
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
