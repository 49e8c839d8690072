import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

/// docs/signal-model.md, Measured: what reaches the actuator, measured on the rendered samples of
/// every corpus pattern — the energy above 1 kHz, and the half-cycle rule of every transient.
@Suite struct SignalBandTests {
    static let rate = SampleRate(48_000)!

    static func corpusPatterns() throws -> [String] {
        try Corpus.files(in: "pulsar-presets", ext: "json") + Corpus.files(in: "pulsar-docs-presets", ext: "json")
            + Corpus.files(in: "ahap", ext: "ahap") + Corpus.files(in: "lofelt", ext: "haptic") + Corpus.files(in: "lofelt", ext: "ahap")
    }

    static func render(_ pattern: PatternData, frames: Range<Int>) throws -> [Float] {
        try PatternRenderer(pattern: pattern, sampleRate: rate).render(frames: FrameIndex(frames.lowerBound)..<FrameIndex(frames.upperBound))
    }

    @Test("Every corpus pattern has at most −40 dB of its energy above 1 kHz at 48 kHz (FFT of the render)",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func energyAboveOneKilohertz() throws {
        let files = try Self.corpusPatterns()
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

    /// How far each transient falls short of the half-cycle rule: in every complete half-cycle of
    /// the output inside its burst, the peak against the larger of the transient alone's and the
    /// carrier alone's peaks there. `whole` over the burst; `alone` over the burst against the
    /// transient alone only; `fallAlone` and `fallCarrier` from the peak sample on, against each
    /// part separately.
    struct Shortfall { var time: Double; var whole: Float; var alone: Float; var fallAlone: Float; var fallCarrier: Float }

    static func shortfalls(_ pattern: PatternData) throws -> [Shortfall] {
        let total = Int(try PatternRenderer(pattern: pattern, sampleRate: rate).frameCount)
        let y = try render(pattern, frames: 0..<total)
        var carrier = pattern
        carrier.discretePattern = []
        let yc = try render(carrier, frames: 0..<total)
        var result: [Shortfall] = []
        for t in pattern.discretePattern {
            let alone = try PatternRenderer(pattern: PatternData(discretePattern: [t]), sampleRate: rate)
            // §1: the onset sample, round half away from zero of fl(fl(T·R)/1000); the burst runs
            // from there to the end of the transient alone; the peak 4 ms (192 samples) later.
            let onset = Int((t.time * 48_000 / 1000).rounded(.toNearestOrAwayFromZero))
            let burst = max(0, onset)..<min(total, Int(alone.frameCount))
            guard burst.count > 2 else { continue }
            let ya = alone.render(frames: FrameIndex(burst.lowerBound)..<FrameIndex(burst.upperBound))
            var s = Shortfall(time: t.time, whole: 0, alone: 0, fallAlone: 0, fallCarrier: 0)
            for h in SignalMeasure.halfCycles(of: y, in: burst).dropFirst().dropLast() {
                let a = SignalMeasure.peak(of: ya, in: (h.lowerBound - burst.lowerBound)..<(h.upperBound - burst.lowerBound))
                let c = SignalMeasure.peak(of: yc, in: h), out = SignalMeasure.peak(of: y, in: h)
                s.whole = max(s.whole, max(a, c) - out)
                s.alone = max(s.alone, a - out)
                if h.lowerBound >= onset + 192 {
                    s.fallAlone = max(s.fallAlone, a - out)
                    s.fallCarrier = max(s.fallCarrier, c - out)
                }
            }
            result.append(s)
        }
        return result
    }

    @Test("Hail: at every transient the output never dips below the carrier alone or the transient alone",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func hailTransientsAdd() throws {
        let root = try #require(Corpus.root, "../shared/corpus is absent (required under CI=true)")
        let pattern = try PatternLoader().load(contentsOf: root + "/pulsar-presets/Hail.json").pattern
        let result = try Self.shortfalls(pattern)
        #expect(result.count == pattern.discretePattern.count)
        for r in result { #expect(r.whole <= 0.01, "Hail transient at \(r.time) ms falls short by \(r.whole)") }
    }

    @Test("The half-cycle rule over every corpus transient: never more than 0.03 below the transient alone, never below it after its peak; 99.5 % hold the whole rule within 0.01",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func halfCycleRuleOverCorpus() throws {
        var count = 0, whole = 0, fallCarrier = 0
        var worst: (Float, String) = (0, ""), worstFall: (Float, String) = (0, "")
        for file in try Self.corpusPatterns() {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            for r in try Self.shortfalls(pattern) {
                count += 1
                let place = "\(Corpus.name(file)) at \(r.time) ms"
                #expect(r.fallAlone <= 0.01, "\(place): after its peak the output is \(r.fallAlone) below the transient alone")
                #expect(r.alone <= 0.03, "\(place): in its rise the output is \(r.alone) below the transient alone")
                if r.whole <= 0.01 { whole += 1 }
                if r.fallCarrier <= 0.01 { fallCarrier += 1 }
                if r.whole > worst.0 { worst = (r.whole, place) }
                if r.fallCarrier > worstFall.0 { worstFall = (r.fallCarrier, place) }
            }
        }
        #expect(count > 2900)
        #expect(Double(whole) >= 0.995 * Double(count), "\(whole) of \(count) transients hold the rule over their bursts")
        #expect(count - fallCarrier <= 4, "\(count - fallCarrier) transients fall below the carrier alone after their peaks")
        #expect(worst.0 <= 0.1 && worstFall.0 <= 0.1)
        print("note: half-cycle rule held over the whole burst by \(whole) of \(count) corpus transients; worst shortfall \(worst.0) (\(worst.1))")
        print("note: after the peak: never below the transient alone; below the carrier alone for \(count - fallCarrier), worst \(worstFall.0) (\(worstFall.1))")
    }

    @Test("Every corpus transient: nothing of it before its onset sample (bit for bit), nothing at it, full height at its peak sample 4 ms later",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func onsetsAndPeaks() throws {
        var checked = 0, peaks = 0
        for file in try Self.corpusPatterns() {
            let pattern = try PatternLoader().load(contentsOf: file).pattern
            let full = try PatternRenderer(pattern: pattern, sampleRate: Self.rate)
            let onsets = pattern.discretePattern.map { Int(($0.time * 48_000 / 1000).rounded(.toNearestOrAwayFromZero)) }
            for (i, t) in pattern.discretePattern.enumerated() {
                let onset = onsets[i], place = "\(Corpus.name(file)) at \(t.time) ms"
                // The pattern with this transient and every later one removed.
                var earlier = pattern
                earlier.discretePattern = Array(pattern.discretePattern[..<i])
                let before = try PatternRenderer(pattern: earlier, sampleRate: Self.rate)
                let window = FrameIndex(max(0, onset - 256))..<FrameIndex(onset)
                #expect(full.render(frames: window) == before.render(frames: window), "\(place): changed a sample before its onset")
                let at = FrameIndex(onset)..<FrameIndex(onset + 1)
                #expect(abs(full.render(frames: at)[0] - before.render(frames: at)[0]) <= 1e-5, "\(place): sounds at its onset sample")
                checked += 1
                // Full height at the peak sample, unless a later transient starts within the rise.
                let peak = onset + 192
                guard !onsets[(i + 1)...].contains(where: { $0 <= peak }) else { continue }
                let y = full.render(frames: FrameIndex(peak)..<FrameIndex(peak + 1))[0]
                #expect(abs(y) >= Limiter.apply(Float(t.amplitude)) - 1e-5, "\(place): \(y) at its peak sample")
                peaks += 1
            }
        }
        #expect(checked > 2900 && peaks > 2500)
        print("note: onsets checked for \(checked) corpus transients, full height at the peak sample for \(peaks)")
    }
}
