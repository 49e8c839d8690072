import Foundation
import Testing
@testable import PulsarCore

/// docs/signal-model.md §1's table of arithmetic: every quantity that decides a sample's place
/// (an onset, a burst's length, the pattern's length, the silence test) is computed as the table
/// says, so an implementation written from the text agrees with the renderer within 2e-5 at every
/// rate from 8 kHz to 192 kHz and every profile. The expected values here are worked out from
/// the table's roundings, not read from the renderer.
@Suite struct SpecArithmeticTests {
    /// Rates of every family (8 k multiples, 11 025 multiples, 8 125 = 125·65 where R/250 is a
    /// half-integer, and two rates of no family), and the profiles of §2.
    static let rates = [8_000, 8_125, 11_025, 12_345, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 176_400, 191_999, 192_000]
    static let profiles = ["wideband", "lra", "lra:200", "lra:235.7", "80:250"]

    @Test("N_a = round(fl(0.004·R)) equals round(R/250) at every supported rate, halves away from zero")
    func attackAtEveryRate() {
        var differing: [Int] = []
        for r in SampleRate.supported {
            let exact = (4 * r + 500) / 1000
            let shape = TransientShape(DiscretePoint(time: 0, amplitude: 1, frequency: 0.5), rate: SampleRate(r)!, profile: .wideband)
            if shape.attack != exact || Int((0.004 * Double(r)).rounded()) != exact { differing.append(r) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
    }

    @Test("A burst's length is round(fl(D·R)) with ν and D in doubles: frequency 0.39 at 48 kHz is 937 samples, not 938")
    func burstLengthInDoubles() throws {
        // §5 with §1's table: ν = fl(60 + fl(0.39 · fl(300 − 60))), D = fl(3 / ν) (inside 12…30 ms),
        // L = round(fl(D · 48000)). In real arithmetic ν = 153.6, D = 0.01953125, D·R = 937.5 → 938.
        let nu = 60 + 0.39 * (300 - 60.0)
        #expect(nu == 153.60000000000002)
        let d = 3 / nu
        #expect(d * 48_000 == 937.4999999999999)
        let p = PatternData(discretePattern: [DiscretePoint(time: 0, amplitude: 1, frequency: 0.39)])
        let r = try PatternRenderer(pattern: p, sampleRate: SampleRate(48_000)!)
        #expect(r.frameCount == 937)
        #expect(ReferenceSignal(p, rate: 48_000).frameCount == 937)
    }

    @Test("The lra band is fl(HZ·0.9)…fl(HZ·1.1) of the double written")
    func lraBand() throws {
        for hz in [170.0, 200, 235.7, 61.3] {
            let profile = try #require(ActuatorProfile(parsing: "lra:\(hz)"))
            #expect(profile.minimumHertz == hz * 0.9 && profile.maximumHertz == hz * 1.1)
        }
        // The default lra's top, 170 · 1.1, is 187 in decimal and 187.00000000000003 in doubles:
        // the band the model uses.
        #expect(ActuatorProfile.lra().maximumHertz == 187.00000000000003)
    }

    @Test("A riding transient whose phase arrives exactly between a crest and a trough steers down a quarter cycle, whatever the rounding")
    func exactTie() throws {
        // 200 Hz at 8 kHz (lra:200, frequency 0.5, N_a = 32, T_a = 4 ms, ν·T_a = 0.8): a transient
        // at rest at 20 ms sets Φ = frac(1/4 − 0.8) = 0.45; a constant 200 Hz carrier from 20 ms
        // keeps Φ(41.25 ms) = 0.45 + 200 · 0.02125 = 4.7, so φ = 0.7 and x = 1/4 − 0.7 − 0.8 = −1.25:
        // 2x + 1/2 = −2, a tie. §6 takes δ = −1/4 there, so ν' = 200 − 62.5 = 137.5 Hz and the
        // phase at the peak sample (362) is 0.7 + 0.8 − 0.25 = 1.25: a crest (δ = +1/4 would
        // have made it a trough).
        let p = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 20, value: 0), ValuePoint(time: 20, value: 0.3),
                                                                             ValuePoint(time: 60, value: 0.3)]),
                            discretePattern: [DiscretePoint(time: 20, amplitude: 0.5, frequency: 0.5),
                                              DiscretePoint(time: 41.25, amplitude: 0.5, frequency: 0.5)])
        let r = try PatternRenderer(pattern: p, sampleRate: SampleRate(8_000)!, profile: ActuatorProfile(parsing: "lra:200")!)
        let y = r.render(frames: 330..<363)
        // At the peak sample: carrier + transient, within the renderer's tolerance.
        let carrier = 0.3  // settled: the step at 20 ms is 21.25 ms behind
        #expect(abs(Double(y[32]) - carrier - 0.5) < 2e-5, "\(y[32])")
        // The rise at 137.5 Hz from φ = 0.7: the phase at sample 330 + k is 0.7 + 137.5 k / 8000.
        for k in [5, 12, 20] {
            let expected = sin(2 * Double.pi * (0.7 + 137.5 * Double(k) / 8000))
            #expect(expected * Double(y[k]) > 0, "sample \(330 + k): \(y[k]) against the sign of \(expected)")
        }
    }

    @Test("A carrier whose points all lie at 0 is no carrier: a transient after it is at rest, as with none")
    func pointsOnlyAtZero() throws {
        let alone = PatternData(discretePattern: [DiscretePoint(time: 3, amplitude: 0.7, frequency: 0.2)])
        var withPoint = alone
        withPoint.continuousPattern = ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.5)])
        let a = try PatternRenderer(pattern: alone, sampleRate: SampleRate(48_000)!)
        let b = try PatternRenderer(pattern: withPoint, sampleRate: SampleRate(48_000)!)
        #expect(a.render(frames: 0..<a.frameCount) == b.render(frames: 0..<b.frameCount))
    }

    /// Hand-made patterns that sit on the table's roundings: a burst length on a half sample, an
    /// onset on a half sample at 48 kHz, transients at the edge of the carrier's silence, an onset
    /// where a fall reaches 0, and riding transients over a chirp.
    static let edges: [PatternData] = [
        PatternData(discretePattern: [0.39, 0.1, 0.9].enumerated().map { DiscretePoint(time: 40 * Double($0.offset) + 0.03125, amplitude: 0.8, frequency: $0.element) }),
        PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 10, value: 0.4), ValuePoint(time: 50, value: 0.4)],
                                                         frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 50, value: 1)]),
                    discretePattern: [DiscretePoint(time: 12.5, amplitude: 0.6, frequency: 0.7), DiscretePoint(time: 58, amplitude: 0.5, frequency: 0.3),
                                      DiscretePoint(time: 70, amplitude: 0.9, frequency: 0.05)]),
        PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 20, value: 0),
                                                                     ValuePoint(time: 20, value: 0.3), ValuePoint(time: 33.3, value: 0.1)]),
                    discretePattern: [DiscretePoint(time: 19.99, amplitude: 0.5, frequency: 0.5), DiscretePoint(time: 41.3, amplitude: 0.5, frequency: 0.5)]),
    ]

    @Test("At every rate and profile, the renderer agrees with the transcription of the text within 2e-5",
          arguments: Self.rates)
    func everyRateAndProfile(rate: Int) throws {
        var patterns = Self.edges
        if Corpus.available {
            for name in ["Hail", "Glitch", "Heartbeat", "Anvil", "Applause", "Chirp"] {
                patterns.append(try PatternLoader().load(contentsOf: Corpus.path("pulsar-presets/\(name).json")).pattern)
            }
        }
        var worst = 0.0
        for profileName in Self.profiles {
            let band = ReferenceSignal.band(profileName)
            let profile = try #require(ActuatorProfile(parsing: profileName))
            for (k, p) in patterns.enumerated() {
                let reference = ReferenceSignal(p, rate: rate, fmin: band.fmin, fmax: band.fmax)
                let r = try PatternRenderer(pattern: p, sampleRate: SampleRate(rate)!, profile: profile)
                #expect(Int(r.frameCount) == reference.frameCount, "pattern \(k), \(profileName): length")
                let y = r.render(frames: 0..<r.frameCount)
                let deviation = zip(y, reference.samples(0..<reference.frameCount)).map { abs(Double($0) - $1) }.max() ?? 0
                #expect(deviation < 2e-5, "pattern \(k), \(profileName) at \(rate) Hz: \(deviation)")
                worst = max(worst, deviation)
            }
        }
        print("note: \(rate) Hz, \(Self.profiles.count) profiles, \(patterns.count) patterns: worst deviation \(worst)")
    }
}
