// Haptics from audio, how fast: `pulsar derive` (the envelope method, and Android's
// HapticGenerator chain) on a minute of drums, side by side with sox running a comparable filter
// chain on the same file in the same run, and the generator's real-time path checked for
// allocations.
//
//   swift run -c release derive-throughput [--seconds 60] [--repeats 7] [--input FILE.wav]
import CAllocationCounter
import Foundation
import PulsarAudio
import PulsarCore
import PulsarDerive

struct Options {
    var seconds = 60.0
    var repeats = 7
    var input: String?
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

/// Kicks, snares and plucks 110–400 ms apart over a pad and noise (seeded: the same every run).
func drums(seconds: Double, rate: Int) -> [Float] {
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
    var t = 0.2
    while t < seconds - 0.5 {
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
    return x
}

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

func sox(_ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
    p.arguments = arguments
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { fatalError("sox \(arguments.joined(separator: " ")) failed") }
}

func fmt(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }

let options = parseOptions()
let haveSox = FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
if !haveSox { print("note: /usr/bin/sox not installed (make deps-bench): no reference figures") }
let directory = NSTemporaryDirectory() + "pulsar-derive-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

print("| input | job | wall time (best of \(options.repeats)) | × real time |")
print("| --- | --- | ---: | ---: |")
for rate in options.input == nil ? [44_100, 48_000] : [0] {
    let path: String
    if let input = options.input {
        path = input
    } else {
        path = directory + "/drums-\(rate).wav"
        _ = try WAVExporter(format: .s16).export(drums(seconds: options.seconds, rate: rate), to: path, sampleRate: SampleRate(rate)!, channels: 1)
    }
    let audio = try DeriveAudio.read(path, channels: .mean)
    let seconds = Double(audio.samples.count) / Double(audio.sampleRate)
    let label = options.input == nil ? "\(fmt(seconds)) s of drums, \(audio.sampleRate) Hz s16" : path
    func row(_ job: String, _ time: Double) {
        print("| \(label) | \(job) | \(fmt(time, 3)) s | \(fmt(seconds / time))× |")
    }
    var transients = 0
    row("pulsar derive (envelope): decode + analyse", try best(options.repeats) {
        guard case .pattern(let p) = try AudioDeriver.derive(contentsOf: path, settings: DeriveSettings()) else { fatalError() }
        transients = p.pattern.discretePattern.count
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
    if options.input == nil { print("|  | (the envelope found \(transients) transients) |  |  |") }
}

// The counter must see allocations at all, or a zero above would prove nothing.
pulsar_allocations_start()
let probe = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
probe.deallocate()
let seen = pulsar_allocations_stop()
print("")
print("allocation counter check: \(seen) calls seen around one allocate/deallocate (must be > 0)")
