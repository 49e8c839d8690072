import Foundation
import PulsarCore

/// Sounds for the onset detector whose true onsets are known by construction, drawn from a
/// seeded `SplitMix64` and written from their definitions, sharing no code with the analysis.
/// (The tests of PulsarDerive score the analysis on it; the benchmark `derive-throughput` scores aubio.)
///
/// Every set is a few seconds of mono sound, peak-normalised to 0.9 and then scaled by `gainDB`.
/// A true onset is the first sample of a new sound: a hit, a pluck, the start of a bow stroke or
/// of a syllable (its plosive burst when it has one). A sound that begins at the file's first
/// sample, or fades in from it, is not an onset.
public enum OnsetMaterial {
    public enum Set: String, CaseIterable, Sendable {
        case truncated, cymbals, underPad, plucked, bowed, speech
    }

    public struct Sound {
        public var samples: [Float]
        public var onsets: [Double]
        /// What made each onset ("kick", "hat", …), in the order of `onsets`.
        public var kinds: [String]
    }

    public static func make(_ set: Set, rate: Int, seed: UInt64, gainDB: Double = 0) -> Sound {
        var b = Builder(rate: rate, seconds: 6, seed: seed &* 7919 &+ UInt64(set.rawValue.count))
        switch set {
        case .truncated: b.truncatedDrums()
        case .cymbals: b.cymbals()
        case .underPad: b.drumsUnderPad()
        case .plucked: b.plucked()
        case .bowed: b.bowed()
        case .speech: b.speech()
        }
        return b.finished(gainDB: gainDB)
    }

    /// A 2nd-order section (RBJ cookbook), 64-bit, direct form I.
    struct Filter {
        var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

        init(_ kind: String, hertz: Double, q: Double, rate: Int) {
            let w = 2 * Double.pi * hertz / Double(rate), alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
            switch kind {
            case "hp": (b0, b1, b2) = ((1 + c) / 2, -(1 + c), (1 + c) / 2)
            case "lp": (b0, b1, b2) = ((1 - c) / 2, 1 - c, (1 - c) / 2)
            default: (b0, b1, b2) = (alpha, 0, -alpha)   // band-pass, 0 dB at the centre
            }
            (b0, b1, b2, a1, a2) = (b0 / a0, b1 / a0, b2 / a0, -2 * c / a0, (1 - alpha) / a0)
        }

        mutating func run(_ x: Double) -> Double {
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            (x2, x1, y2, y1) = (x1, x, y1, y)
            return y
        }
    }

    struct Builder {
        let rate: Int, r: Double, n: Int
        var x: [Double]
        var onsets: [Double] = []
        var kinds: [String] = []
        var random: SplitMix64

        init(rate: Int, seconds: Double, seed: UInt64) {
            self.rate = rate
            r = Double(rate)
            n = Int(seconds * r)
            x = [Double](repeating: 0, count: n)
            random = SplitMix64(seed: seed)
        }

        mutating func unit() -> Double { random.unit() }
        mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * random.unit() }
        mutating func noise() -> Double { 2 * random.unit() - 1 }
        mutating func decibels(_ lo: Double, _ hi: Double) -> Double { pow(10, uniform(lo, hi) / 20) }

        /// An onset at `t` seconds (on a whole sample); returns its first sample.
        mutating func onset(_ t: Double, _ kind: String) -> Int {
            let start = Int((t * r).rounded(.up))
            onsets.append(Double(start) / r)
            kinds.append(kind)
            return start
        }

        /// Adds `length` samples of `voice(u)` (u in seconds from `start`) times `level`.
        mutating func add(at start: Int, seconds: Double, level: Double, _ voice: (inout Builder, Double) -> Double) {
            for i in 0..<Int(seconds * r) where start + i < n {
                let v = voice(&self, Double(i) / r)
                x[start + i] += level * v
            }
        }

        /// White noise (uniform) at `dB` RMS over the whole sound.
        mutating func floorNoise(dB: Double) {
            let a = pow(10, dB / 20) * 3.0.squareRoot()
            for i in 0..<n { x[i] += a * noise() }
        }

        /// Hit times from `first` seconds, `lo`…`hi` seconds apart, to 0.4 s before the end.
        mutating func times(from first: Double, gap lo: Double, _ hi: Double) -> [Double] {
            var t = first, out: [Double] = []
            while t < Double(n) / r - 0.4 {
                out.append(t)
                t += uniform(lo, hi)
            }
            return out
        }

        /// The sound peak-normalised to 0.9, then scaled by `gainDB`.
        func finished(gainDB: Double) -> Sound {
            let peak = x.map(abs).max() ?? 0
            let scale = peak > 0 ? 0.9 / peak * pow(10, gainDB / 20) : 0
            return Sound(samples: x.map { Float($0 * scale) }, onsets: onsets, kinds: kinds)
        }
    }
}
