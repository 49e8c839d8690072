import Foundation
import PulsarCore
import PulsarDerive

/// The `DeriveError` `body` throws, or nil when it throws none (or another error).
func thrown(_ body: () throws -> Void) -> DeriveError? {
    do {
        try body()
        return nil
    } catch {
        return error as? DeriveError
    }
}

/// Sounds made in the tests from a seeded generator, with the facts the derivation must find in
/// them: onset times, an amplitude envelope. Written here from their definitions, sharing no code
/// with the analysis.
enum TestSignals {
    /// A drum-and-pluck track over a pad and background noise, and its onset times (seconds).
    struct Track {
        var samples: [Float]
        var onsets: [Double]
        var kinds: [Kind]
    }

    enum Kind: String, CaseIterable { case kick, snare, pluck }

    /// Uniform in −1 … 1.
    static func noise(_ random: inout SplitMix64) -> Double { 2 * random.unit() - 1 }

    /// Noise low-passed at 8 kHz (one pole), RMS 1/√3 at any rate: the same sound at 44.1 and
    /// 192 kHz.
    struct SoftNoise {
        var state = 0.0
        let a: Double, scale: Double

        init(rate: Int) {
            a = 1 - exp(-2 * Double.pi * 8000 / Double(rate))
            scale = ((2 - a) / a).squareRoot()
        }

        mutating func next(_ random: inout SplitMix64) -> Double {
            state += a * (TestSignals.noise(&random) - state)
            return scale * state
        }
    }

    /// A kick: a sine swept down from 150 to 50 Hz (time constant 30 ms), decaying over 150 ms.
    static func kick(at t: Double) -> Double {
        let phase = 2 * Double.pi * (50 * t + 100 * 0.03 * (1 - exp(-t / 0.03)))
        return sin(phase) * exp(-t / 0.15)
    }

    /// A snare's tone: 190 Hz, decaying over 50 ms (its noise is drawn by the caller).
    static func snareTone(at t: Double) -> Double { 0.4 * sin(2 * Double.pi * 190 * t) * exp(-t / 0.05) }

    /// A pluck: six harmonics of `f0` with amplitudes 1/h, each decaying faster than the one below.
    static func pluck(at t: Double, f0: Double) -> Double {
        var sum = 0.0
        for h in 1...6 {
            sum += sin(2 * Double.pi * Double(h) * f0 * t) / Double(h) * exp(-t * (3 + 2 * Double(h)))
        }
        return 0.6 * sum
    }

    /// `seconds` of sound at `rate`: hits every 110–400 ms from 0.25 s (a kick, a snare or a pluck
    /// at random, −10 … −2 dB), tails overlapping, over a three-note pad fading in over 1 s and
    /// noise (below 8 kHz) at −46 dBFS RMS.
    static func track(rate: Int, seconds: Double, seed: UInt64) -> Track {
        var random = SplitMix64(seed: seed)
        let n = Int(seconds * Double(rate))
        var x = [Double](repeating: 0, count: n)
        var onsets: [Double] = []
        var kinds: [Kind] = []
        var t = 0.25
        while t < seconds - 0.5 {
            onsets.append(t)
            kinds.append(Kind.allCases[Int(random.next() % 3)])
            t += 0.11 + 0.29 * random.unit()
        }
        let roots = [196.0, 262, 330, 392, 440]
        var snareNoise = SoftNoise(rate: rate), floorNoise = SoftNoise(rate: rate)
        for (onset, kind) in zip(onsets, kinds) {
            let level = pow(10, (-10 + 8 * random.unit()) / 20)
            let start = Int((onset * Double(rate)).rounded(.up))
            let length = Int(0.6 * Double(rate))
            let f0 = roots[Int(random.next() % UInt64(roots.count))]
            for i in 0..<length where start + i < n {
                let u = (Double(start + i) / Double(rate)) - onset
                let v: Double
                switch kind {
                case .kick: v = kick(at: u)
                case .snare: v = 0.8 * snareNoise.next(&random) * exp(-u / 0.06) + snareTone(at: u)
                case .pluck: v = pluck(at: u, f0: f0)
                }
                x[start + i] += level * v
            }
        }
        for i in 0..<n {
            let u = Double(i) / Double(rate)
            let fade = min(1, u)
            let pad = (sin(2 * Double.pi * 220 * u) + sin(2 * Double.pi * 277.2 * u) + sin(2 * Double.pi * 329.6 * u))
                * (1 + 0.2 * sin(2 * Double.pi * 0.3 * u))
            x[i] += 0.04 * fade * pad + 0.005 * floorNoise.next(&random) * 3.0.squareRoot()
        }
        let peak = x.map(abs).max() ?? 1
        let scale = peak > 0.95 ? 0.95 / peak : 1
        return Track(samples: x.map { Float($0 * scale) }, onsets: onsets, kinds: kinds)
    }

    /// A known amplitude envelope: a sum of raised-cosine swells (0.3–1.2 s long) over a slow
    /// floor, in 0.04 … 1, at time `t` seconds; the swells drawn from `seed`.
    struct Envelope {
        var swells: [(centre: Double, width: Double, height: Double)]

        init(seconds: Double, seed: UInt64) {
            var random = SplitMix64(seed: seed)
            swells = []
            var t = 0.2
            while t < seconds - 0.3 {
                let width = 0.3 + 0.9 * random.unit()
                swells.append((t + width / 2, width, 0.3 + 0.7 * random.unit()))
                t += width * (0.4 + 0.8 * random.unit())
            }
        }

        func value(at t: Double) -> Double {
            var v = 0.08 + 0.04 * sin(2 * Double.pi * 0.2 * t)
            for s in swells where abs(t - s.centre) < s.width / 2 {
                v += s.height * 0.5 * (1 + cos(2 * Double.pi * (t - s.centre) / s.width))
            }
            return min(v, 1)
        }
    }

    /// `envelope` on a sine carrier at `hertz`, scaled to a peak of `level`.
    static func modulated(_ envelope: Envelope, hertz: Double, rate: Int, seconds: Double, level: Double) -> [Float] {
        let n = Int(seconds * Double(rate))
        return (0..<n).map { i in
            let t = Double(i) / Double(rate)
            return Float(level * envelope.value(at: t) * sin(2 * Double.pi * hertz * t))
        }
    }

    /// Onset matching: each true onset takes the nearest unmatched detection within `tolerance`
    /// seconds, in time order.
    struct Match {
        var truePositives: Int
        var detections: Int
        var truths: Int
        var errors: [Double]

        static let none = Match(truePositives: 0, detections: 0, truths: 0, errors: [])

        /// Adds another file's matches to these.
        mutating func add(_ m: Match) {
            truePositives += m.truePositives
            detections += m.detections
            truths += m.truths
            errors += m.errors
        }

        var precision: Double { detections == 0 ? 0 : Double(truePositives) / Double(detections) }
        var recall: Double { truths == 0 ? 0 : Double(truePositives) / Double(truths) }
        var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
        var medianError: Double {
            let sorted = errors.sorted()
            return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        }
        var medianAbsoluteError: Double {
            let sorted = errors.map(abs).sorted()
            return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        }
    }

    static func match(detected: [Double], truth: [Double], tolerance: Double) -> Match {
        var used = [Bool](repeating: false, count: detected.count)
        var errors: [Double] = []
        for t in truth {
            var best: Int?
            for (i, d) in detected.enumerated() where !used[i] && abs(d - t) <= tolerance {
                if best == nil || abs(d - t) < abs(detected[best!] - t) { best = i }
            }
            if let best {
                used[best] = true
                errors.append(detected[best] - t)
            }
        }
        return Match(truePositives: errors.count, detections: detected.count, truths: truth.count, errors: errors)
    }
}
