// Haptics from audio, how fast: `pulsar derive` (the envelope method, and Android's
// HapticGenerator chain) on a minute of drums, side by side with sox running a comparable filter
// chain and aubio's onset detector on the same file in the same run, and the generator's
// real-time path checked for allocations. Then how right: the envelope's transients and
// aubioonset's onsets against the drums' true onsets, and on the onset sets of the test suite
// (OnsetMaterial*.swift, linked from Tests/PulsarDeriveTests).
//
//   swift run -c release derive-throughput [--seconds 60] [--repeats 7] [--input FILE.wav] [--sets yes|no]
import CAllocationCounter
import Foundation
import PulsarAudio
import PulsarCore
import PulsarTestMaterial
import PulsarDerive

struct Options {
    var seconds = 60.0
    var repeats = 7
    var input: String?
    /// Score ours and aubio on the test suite's onset sets too.
    var sets = true
}

func parseOptions() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        guard let v = args.popFirst() else { fatalError("\(a) needs a value") }
        switch a {
        case "--seconds": o.seconds = Double(v)!
        case "--repeats": o.repeats = Int(v)!
        case "--input": o.input = v
        case "--sets": o.sets = v != "no"
        default: fatalError("unknown option \(a)")
        }
    }
    return o
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Kicks, snares and plucks 110–400 ms apart over a pad and noise (seeded: the same every run),
/// and the hits' times in seconds.
func drums(seconds: Double, rate: Int) -> (samples: [Float], onsets: [Double]) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
    let count = Int(seconds * Double(rate)), r = Double(rate)
    var x = (0..<count).map { i -> Float in
        let t = Double(i) / r
        return Float(0.01 * (sin(2 * .pi * 110 * t) + sin(2 * .pi * 165 * t) + sin(2 * .pi * 220 * t)) + 0.005 * (random() - 0.5))
    }
    var t = 0.2, onsets: [Double] = []
    while t < seconds - 0.5 {
        onsets.append(Double(Int(t * r)) / r)
        let kind = Int(random() * 3), start = Int(t * r), level = 0.3 + 0.5 * random()
        var phase = 0.0
        for n in 0..<Int(0.4 * r) where start + n < count {
            let s = Double(n) / r
            let v: Double
            switch kind {
            case 0:
                phase += 2 * .pi * (50 + 100 * exp(-s / 0.04)) / r
                v = sin(phase) * exp(-s / 0.15)
            case 1: v = (2 * random() - 1) * exp(-s / 0.06)
            default: v = (1...6).reduce(0.0) { $0 + sin(2 * .pi * 196 * Double($1) * s) / Double($1) } * exp(-s / 0.2) * 0.4
            }
            x[start + n] += Float(level * v)
        }
        t += 0.11 + 0.29 * random()
    }
    return (x, onsets)
}

/// Precision, recall, F1 and the median timing error (ms) of `found` against `truth` (seconds):
/// each found time is matched to the nearest unmatched true onset within ±10 ms.
func score(_ found: [Double], against truth: [Double]) -> (precision: Double, recall: Double, f1: Double, medianMs: Double) {
    var matched = Set<Int>(), errors: [Double] = []
    for t in found {
        let candidates = truth.indices.filter { !matched.contains($0) && abs(truth[$0] - t) <= 0.010 }
        guard let i = candidates.min(by: { abs(truth[$0] - t) < abs(truth[$1] - t) }) else { continue }
        matched.insert(i)
        errors.append((t - truth[i]) * 1000)
    }
    let p = found.isEmpty ? 0 : Double(errors.count) / Double(found.count)
    let r = truth.isEmpty ? 0 : Double(errors.count) / Double(truth.count)
    errors.sort()
    return (p, r, p + r > 0 ? 2 * p * r / (p + r) : 0, errors.isEmpty ? .nan : errors[errors.count / 2])
}

/// Runs a program, returning its standard output.
func run(_ executable: String, _ arguments: [String]) throws -> String {
    let p = Process(), pipe = Pipe()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { fatalError("\(executable) \(arguments.joined(separator: " ")) failed") }
    return String(decoding: data, as: UTF8.self)
}

/// aubioonset's onset times (seconds) for `path` by `method` at `threshold`.
func aubioOnsets(_ path: String, method: String, threshold: Double) throws -> [Double] {
    try run(aubio, ["-i", path, "-O", method, "-t", String(threshold)]).split(separator: "\n").compactMap { Double($0) }
}
let aubio = "/usr/bin/aubioonset"

/// Best wall time of `repeats` runs of `body`.
func best(_ repeats: Int, _ body: () throws -> Void) rethrows -> Double {
    var b = Double.infinity
    for _ in 0..<repeats {
        let start = now()
        try body()
        b = min(b, now() - start)
    }
    return b
}

func sox(_ arguments: [String]) throws { _ = try run("/usr/bin/sox", arguments) }

func fmt(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }

let options = parseOptions()
let haveSox = FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
if !haveSox { print("note: /usr/bin/sox not installed (make deps-bench): no reference figures") }
let haveAubio = FileManager.default.isExecutableFile(atPath: aubio)
if !haveAubio { print("note: \(aubio) not installed (make deps-bench): no onset reference") }
let directory = NSTemporaryDirectory() + "pulsar-derive-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

/// Onset accuracy rows, printed after the speed table.
var accuracy: [String] = []
print("| input | job | wall time (best of \(options.repeats)) | × real time |")
print("| --- | --- | ---: | ---: |")
for rate in options.input == nil ? [44_100, 48_000] : [0] {
    let path: String
    var truth: [Double] = []
    if let input = options.input {
        path = input
    } else {
        path = directory + "/drums-\(rate).wav"
        let made = drums(seconds: options.seconds, rate: rate)
        truth = made.onsets
        _ = try WAVExporter(format: .s16).export(made.samples, to: path, sampleRate: SampleRate(rate)!, channels: 1)
    }
    let audio = try DeriveAudio.read(path, channels: .mean)
    let seconds = Double(audio.samples.count) / Double(audio.sampleRate)
    let label = options.input == nil ? "\(fmt(seconds)) s of drums, \(audio.sampleRate) Hz s16" : path
    func row(_ job: String, _ time: Double) {
        print("| \(label) | \(job) | \(fmt(time, 3)) s | \(fmt(seconds / time))× |")
    }
    var transients: [Double] = []
    row("pulsar derive (envelope): decode + analyse", try best(options.repeats) {
        guard case .pattern(let p) = try AudioDeriver.derive(contentsOf: path, settings: DeriveSettings()) else { fatalError() }
        transients = p.pattern.discretePattern.map { $0.time / 1000 }
    })
    let deriver = try EnvelopeDeriver()
    row("envelope analysis alone (samples in memory)", try best(options.repeats) {
        _ = try deriver.derive(audio.samples, sampleRate: audio.sampleRate)
    })
    row("pulsar derive --method android: decode + chain", try best(options.repeats) {
        _ = try AudioDeriver.derive(contentsOf: path, settings: DeriveSettings(method: .android))
    })
    for precision in HapticGenerator.Precision.allCases {
        var parameters = HapticGenerator.Parameters()
        parameters.precision = precision
        let generator = try HapticGenerator(sampleRate: audio.sampleRate, parameters: parameters)
        var output = [Float](repeating: 0, count: audio.samples.count)
        var allocations: UInt = 0
        let time = best(options.repeats) {
            generator.reset()
            audio.samples.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    pulsar_allocations_start()
                    var i = 0
                    while i < input.count {
                        let n = min(256, input.count - i)
                        generator.process(input: UnsafeBufferPointer(rebasing: input[i..<i + n]), output: UnsafeMutableBufferPointer(rebasing: out[i..<i + n]))
                        i += n
                    }
                    allocations = UInt(pulsar_allocations_stop())
                }
            }
        }
        row("HapticGenerator \(precision.rawValue), blocks of 256 (\(allocations) allocations)", time)
    }
    if haveSox {
        // The android chain's seven biquads, in sox's own (64-bit) filters, decoding the same file.
        row("sox: highpass 50, lowpass 9000, highpass 60, lowpass 700/400/500, bandpass 150 → null", try best(options.repeats) {
            try sox([path, "-t", "f32", "/dev/null", "highpass", "-1", "50", "highpass", "-1", "50", "lowpass", "-1", "9000", "lowpass", "-1", "9000",
                     "highpass", "-1", "60", "highpass", "-1", "60", "lowpass", "700", "lowpass", "400", "lowpass", "500", "bandpass", "150", "1q"])
        })
        // The envelope's band-limiting and a level measure.
        row("sox: highpass 80, lowpass 500 ×2, stats", try best(options.repeats) {
            try sox([path, "-n", "highpass", "80", "lowpass", "500", "lowpass", "500", "stats"])
        })
    }
    if haveAubio {
        // An onset detector alone (spectral flux, as the envelope's own), decoding the same file.
        row("aubioonset -O specflux (onsets only)", try best(options.repeats) {
            _ = try aubioOnsets(path, method: "specflux", threshold: 0.3)
        })
    }
    guard !truth.isEmpty else { continue }
    print("|  | (the envelope found \(transients.count) transients; the drums have \(truth.count) hits) |  |  |")
    func line(_ who: String, _ found: [Double]) {
        let s = score(found, against: truth)
        accuracy.append("| \(label) | \(who) | \(found.count) | \(fmt(s.precision, 3)) | \(fmt(s.recall, 3)) | **\(fmt(s.f1, 3))** | \(fmt(s.medianMs, 2)) ms |")
    }
    line("pulsar derive (envelope), default threshold 0.1", transients)
    if haveAubio {
        // Each of aubio's methods at its best threshold on this very file, so the reference is
        // given every chance.
        for method in ["specflux", "energy", "complex", "hfc", "phase", "kl", "mkl", "specdiff"] {
            var bestRun: (threshold: Double, found: [Double], f1: Double) = (0, [], -1)
            for threshold in [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 2] {
                let found = try aubioOnsets(path, method: method, threshold: threshold)
                let f1 = score(found, against: truth).f1
                if f1 > bestRun.f1 { bestRun = (threshold, found, f1) }
            }
            line("aubioonset -O \(method), best threshold (\(bestRun.threshold))", bestRun.found)
        }
    }
}
if !accuracy.isEmpty {
    print("")
    print("| input | onsets by | found | precision | recall | F1 (±10 ms) | median error |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    accuracy.forEach { print($0) }
}
if options.input == nil && options.sets {
    print("")
    print("| onset set (3 files of 6 s) | onsets by | found | precision | recall | F1 (±10 ms) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for rate in [44_100, 48_000] {
        try materialRows(rate: rate, directory: directory, aubio: haveAubio).forEach { print($0) }
    }
}

// The counter must see allocations at all, or a zero above would prove nothing.
pulsar_allocations_start()
let probe = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
probe.deallocate()
let seen = pulsar_allocations_stop()
print("")
print("allocation counter check: \(seen) calls seen around one allocate/deallocate (must be > 0)")
