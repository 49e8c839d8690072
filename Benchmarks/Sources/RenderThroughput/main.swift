// Render throughput of a dense one-hour pattern, in memory and to a float WAV, side by side with
// sox synthesizing a one-hour sine to a float WAV on the same machine in the same run.
//
//   swift run -c release render-throughput [--preset PATH] [--seconds 3600] [--rate 48000] [--out DIR]
import Foundation
import PulsarAudio
import PulsarCore

/// The project root, from this file's place in it (Benchmarks/Sources/RenderThroughput/main.swift).
let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

/// A dense corpus preset (13 transients and a swelling curve in 430 ms), or the demo pattern
/// when the corpus is absent.
func defaultPreset() -> String {
    let corpus = projectRoot + "/../shared/corpus/pulsar-presets/Hail.json"
    if FileManager.default.fileExists(atPath: corpus) { return corpus }
    print("note: corpus absent, benchmarking Resources/patterns/demo.json instead")
    return projectRoot + "/Resources/patterns/demo.json"
}

struct Options {
    var preset = defaultPreset()
    var seconds = 3600.0
    var rate = 48000
    var outDirectory = NSTemporaryDirectory()
    var repeats = 3
}

func parseOptions() -> Options {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        func value() -> String {
            guard let v = args.popFirst() else { fatalError("\(a) needs a value") }
            return v
        }
        switch a {
        case "--preset": o.preset = value()
        case "--seconds": o.seconds = Double(value())!
        case "--rate": o.rate = Int(value())!
        case "--out": o.outDirectory = value()
        case "--repeats": o.repeats = Int(value())!
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

/// Copies of `pattern` back to back, each `period` ms after the last, filling `seconds`.
func looped(_ pattern: PatternData, period: Double, seconds: Double) -> PatternData {
    var out = PatternData()
    let copies = Int((seconds * 1000 / period).rounded(.down))
    for k in 0..<copies {
        let offset = Double(k) * period
        out.continuousPattern.amplitude += pattern.continuousPattern.amplitude.map { ValuePoint(time: $0.time + offset, value: $0.value) }
        out.continuousPattern.frequency += pattern.continuousPattern.frequency.map { ValuePoint(time: $0.time + offset, value: $0.value) }
        out.discretePattern += pattern.discretePattern.map { DiscretePoint(time: $0.time + offset, amplitude: $0.amplitude, frequency: $0.frequency) }
    }
    return out
}

let options = parseOptions()
let loaded = try PatternLoader().load(contentsOf: options.preset)
let period = (loaded.pattern.lastPointTime / 10).rounded(.up) * 10 + 10
let pattern = looped(loaded.pattern, period: period, seconds: options.seconds)
_ = try PatternValidator().validate(pattern)
let rate = SampleRate(options.rate)!
let renderer = try PatternRenderer(pattern: pattern, sampleRate: rate)
let audioSeconds = Double(renderer.frameCount) / Double(options.rate)
print("pattern: \(options.preset) looped every \(JSONWriter.format(period)) ms → \(pattern.pointCount) points, \(String(format: "%.1f", audioSeconds)) s at \(options.rate) Hz")

// In memory: render the whole hour block by block into one reused buffer.
var best = Double.infinity
let block = 1 << 16
let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: block)
var checksum: Double = 0
for _ in 0..<options.repeats {
    let start = now()
    var frame: FrameIndex = 0
    while frame < renderer.frameCount {
        let n = Int(min(FrameIndex(block), renderer.frameCount - frame))
        renderer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<n]), from: frame)
        checksum += Double(buffer[n / 2])
        frame += FrameIndex(n)
    }
    best = min(best, now() - start)
}
let memoryRatio = audioSeconds / best

// To a float WAV.
let wavPath = options.outDirectory + "/pulsar-bench-render.wav"
var wavBest = Double.infinity
for _ in 0..<options.repeats {
    let start = now()
    _ = try WAVExporter(format: .float).export(renderer, to: wavPath)
    wavBest = min(wavBest, now() - start)
}
let wavBytes = (try FileManager.default.attributesOfItem(atPath: wavPath)[.size] as? NSNumber)?.intValue ?? 0
try? FileManager.default.removeItem(atPath: wavPath)

// Reference: sox writing a one-hour float sine of the same length.
let soxPath = options.outDirectory + "/pulsar-bench-sox.wav"
var soxBest = Double.infinity
let haveSox = FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")
if !haveSox { print("note: /usr/bin/sox not installed (make deps-bench): no reference figure") }
for _ in 0..<(haveSox ? options.repeats : 0) {
    let sox = Process()
    sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
    sox.arguments = ["-n", "-r", String(options.rate), "-c", "1", "-e", "floating-point", "-b", "32", soxPath,
                     "synth", String(format: "%.3f", audioSeconds), "sine", "170"]
    let start = now()
    try sox.run()
    sox.waitUntilExit()
    soxBest = min(soxBest, now() - start)
}
try? FileManager.default.removeItem(atPath: soxPath)

func fmt(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
print("")
print("| job | wall time (best of \(options.repeats)) | × real time |")
print("| --- | ---: | ---: |")
print("| pulsar render, in memory | \(fmt(best, 3)) s | \(fmt(memoryRatio, 0))× |")
print("| pulsar render → float WAV (\(wavBytes / 1_000_000) MB) | \(fmt(wavBest, 3)) s | \(fmt(audioSeconds / wavBest, 0))× |")
print("| sox synth sine 170 → float WAV | \(fmt(soxBest, 3)) s | \(fmt(audioSeconds / soxBest, 0))× |")
print("")
print("to-WAV speed-up over sox: \(fmt(soxBest / wavBest, 1))×  (checksum \(checksum))")
