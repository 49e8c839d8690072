import Foundation
import PulsarAudio
import PulsarCore
import PulsarTestMaterial
import PulsarDerive

/// aubio's methods and thresholds tried on every set, as on the drums.
let aubioMethods = ["specflux", "energy", "complex", "hfc", "phase", "kl", "mkl", "specdiff"]
let aubioThresholds = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 2]

/// Onset accuracy on the test suite's onset sets (`OnsetMaterial`, the same seeds 1–3 as
/// `OnsetSetTests`), each file written as 16-bit WAV at `rate`: ours from the file at the default
/// threshold, and aubio's best method at its best threshold for the set (its other settings at
/// their defaults). Table rows.
func materialRows(rate: Int, directory: String, aubio haveAubio: Bool) throws -> [String] {
    var rows: [String] = []
    for set in OnsetMaterial.Set.allCases {
        var files: [(path: String, truth: [Double])] = []
        for seed in [1, 2, 3] as [UInt64] {
            let sound = OnsetMaterial.make(set, rate: rate, seed: seed)
            let path = directory + "/\(set.rawValue)-\(seed)-\(rate).wav"
            _ = try WAVExporter(format: .s16).export(sound.samples, to: path, sampleRate: SampleRate(rate)!, channels: 1)
            files.append((path, sound.onsets))
        }
        func line(_ who: String, _ found: [[Double]]) -> Double {
            let s = pooled(found, files.map(\.truth))
            rows.append("| \(set.rawValue), \(rate) Hz | \(who) | \(s.found) of \(s.truths) | \(fmt(s.precision, 3)) | \(fmt(s.recall, 3)) | **\(fmt(s.f1, 3))** |")
            return s.f1
        }
        let ours = try files.map { file -> [Double] in
            guard case .pattern(let p) = try AudioDeriver.derive(contentsOf: file.path, settings: DeriveSettings()) else { fatalError() }
            return p.pattern.discretePattern.map { $0.time / 1000 }
        }
        _ = line("pulsar derive (envelope), threshold 0.1", ours)
        guard haveAubio else { continue }
        var best: (label: String, found: [[Double]], f1: Double) = ("", [], -1)
        for method in aubioMethods {
            for threshold in aubioThresholds {
                let found = try files.map { try aubioOnsets($0.path, method: method, threshold: threshold) }
                let f1 = pooled(found, files.map(\.truth)).f1
                if f1 > best.f1 { best = ("aubioonset -O \(method), best threshold (\(threshold))", found, f1) }
            }
        }
        _ = line(best.label, best.found)
    }
    return rows
}

/// The scores of several files pooled: matches, detections and truths summed.
func pooled(_ found: [[Double]], _ truths: [[Double]]) -> (found: Int, truths: Int, precision: Double, recall: Double, f1: Double) {
    var matched = 0, detections = 0, total = 0
    for (f, t) in zip(found, truths) {
        // `score` matches one to one; its recall times the truths is the matches.
        matched += Int((score(f, against: t).recall * Double(t.count)).rounded())
        detections += f.count
        total += t.count
    }
    let p = detections == 0 ? 0 : Double(matched) / Double(detections)
    let r = total == 0 ? 0 : Double(matched) / Double(total)
    return (detections, total, p, r, p + r > 0 ? 2 * p * r / (p + r) : 0)
}
