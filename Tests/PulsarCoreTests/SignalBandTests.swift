import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// docs/signal-model.md, Measured: what reaches the actuator, measured on the rendered samples of
/// every corpus pattern — the energy above 1 kHz, and the half-cycle rule of every transient.
@Suite struct SignalBandTests {
    static let rate = SampleRate(48_000)!

    static var corpusPatterns: [String] {
        Corpus.files(in: "pulsar-presets", ext: "json") + Corpus.files(in: "pulsar-docs-presets", ext: "json")
            + Corpus.files(in: "ahap", ext: "ahap") + Corpus.files(in: "lofelt", ext: "haptic") + Corpus.files(in: "lofelt", ext: "ahap")
    }

    static func render(_ pattern: PatternData, frames: Range<Int>) throws -> [Float] {
        try PatternRenderer(pattern: pattern, sampleRate: rate).render(frames: FrameIndex(frames.lowerBound)..<FrameIndex(frames.upperBound))
    }

    @Test("Every corpus pattern has at most −40 dB of its energy above 1 kHz at 48 kHz (FFT of the render)",
          .enabled(if: Corpus.available, "corpus absent: ../shared/corpus"))
    func energyAboveOneKilohertz() throws {
        let files = Self.corpusPatterns
        #expect(files.count > 300)
        var worst = (-Double.infinity, "")
        for file in files {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let r = try PatternRenderer(pattern: pattern, sampleRate: Self.rate)
            let db = SignalMeasure.energyAbove(1000, in: r.render(frames: 0..<r.frameCount), rate: 48_000)
            #expect(db <= -40, "\(Corpus.name(file)): \(db) dB above 1 kHz")
            if db > worst.0 { worst = (db, Corpus.name(file)) }
            if file.hasSuffix("/Hail.json") {
                #expect(db <= -50, "Hail: \(db) dB")
                print("note: energy above 1 kHz, pulsar-presets/Hail.json: \(String(format: "%.1f", db)) dB")
            }
        }
        print("note: energy above 1 kHz, worst corpus file: \(worst.1) at \(String(format: "%.1f", worst.0)) dB")
    }

    /// Shortfalls of the half-cycle rule for each transient of `pattern`: in every complete
    /// half-cycle of the output inside the burst, how far its peak falls below the larger of the
    /// transient alone's and the carrier alone's peaks there.
    static func shortfalls(_ pattern: PatternData) throws -> [(time: Double, shortfall: Float)] {
        let total = Int(try PatternRenderer(pattern: pattern, sampleRate: rate).frameCount)
        let y = try render(pattern, frames: 0..<total)
        var carrier = pattern
        carrier.discretePattern = []
        let yc = try render(carrier, frames: 0..<total)
        var result: [(Double, Float)] = []
        for t in pattern.discretePattern {
            let alone = try PatternRenderer(pattern: PatternData(discretePattern: [t]), sampleRate: rate)
            // §1: the onset sample, round half away from zero of fl(fl(T·R)/1000); the burst runs
            // from there to the end of the transient alone.
            let onset = Int((t.time * 48_000 / 1000).rounded(.toNearestOrAwayFromZero))
            let burst = max(0, onset)..<min(total, Int(alone.frameCount))
            guard burst.count > 2 else { continue }
            let ya = alone.render(frames: FrameIndex(burst.lowerBound)..<FrameIndex(burst.upperBound))
            var worst: Float = 0
            for h in SignalMeasure.halfCycles(of: y, in: burst).dropFirst().dropLast() {
                let alonePeak = SignalMeasure.peak(of: ya, in: (h.lowerBound - burst.lowerBound)..<(h.upperBound - burst.lowerBound))
                let need = max(alonePeak, SignalMeasure.peak(of: yc, in: h))
                worst = max(worst, need - SignalMeasure.peak(of: y, in: h))
            }
            result.append((t.time, worst))
        }
        return result
    }

    @Test("Hail: at every transient the output never dips below the carrier alone or the transient alone",
          .enabled(if: Corpus.available, "corpus absent: ../shared/corpus"))
    func hailTransientsAdd() throws {
        let root = try #require(Corpus.root)
        let pattern = try PatternLoader().load(contentsOf: root + "/pulsar-presets/Hail.json").pattern
        let result = try Self.shortfalls(pattern)
        #expect(result.count == pattern.discretePattern.count)
        for r in result { #expect(r.shortfall <= 0.01, "Hail transient at \(r.time) ms falls short by \(r.shortfall)") }
    }

    @Test("The half-cycle rule over every corpus transient: at least 98 % hold it within 0.01",
          .enabled(if: Corpus.available, "corpus absent: ../shared/corpus"))
    func halfCycleRuleOverCorpus() throws {
        var count = 0, held = 0
        var worst: (Float, String) = (0, "")
        for file in Self.corpusPatterns {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            for r in try Self.shortfalls(pattern) {
                count += 1
                if r.shortfall <= 0.01 { held += 1 }
                if r.shortfall > worst.0 { worst = (r.shortfall, "\(Corpus.name(file)) at \(r.time) ms") }
            }
        }
        #expect(count > 2500)
        #expect(Double(held) >= 0.98 * Double(count), "\(held) of \(count) transients hold the rule")
        print("note: half-cycle rule held by \(held) of \(count) corpus transients; worst shortfall \(worst.0) (\(worst.1))")
    }
}
