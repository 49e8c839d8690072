// Bundle and mixer benchmarks, each beside a reference in the same run:
//  1. open the demo bundle → first mixed buffer ready (ms), best and median of 20;
//  2. mixing throughput (× real time) of a one-hour preset — a dense pattern looped for an hour
//     with one hour of 44.1 kHz stereo FLAC audio, mixed to stereo+haptic at 48 kHz — beside
//     sox decoding and resampling the same FLAC to 48 kHz;
//  3. the peak resident memory of this process while mixing that hour (target ≤ 64 MiB).
//
//   swift run -c release mix-throughput [--seconds 3600] [--work DIR]
import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore

let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
let corpus = projectRoot + "/../shared/corpus"

var seconds = 3600.0
var work = NSTemporaryDirectory() + "pulsar-mix-bench"
var mixOnly: String?
var keep = false
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--seconds": seconds = Double(args.popFirst()!)!
    case "--work": work = args.popFirst()!
    case "--mix-only": mixOnly = args.popFirst()!
    case "--keep": keep = true
    default: fatalError("unknown option \(a)")
    }
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func run(_ tool: String, _ arguments: [String]) throws -> Double {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    let start = now()
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw NSError(domain: "bench", code: Int(p.terminationStatus)) }
    return now() - start
}

func fmt(_ v: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", v) }

let settings = MixSettings(sampleRate: SampleRate(48_000)!, layout: .stereoHaptic)
let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * 3)

/// Opens the bundle at `path` and mixes its preset `long` to the end into a reused buffer;
/// returns the content seconds.
func mixWholePreset(_ path: String, settings: MixSettings, buffer: UnsafeMutableBufferPointer<Float>) throws -> Double {
    let bundle = try PresetBundle.open(path)
    let mixer = try PresetMixer(preset: bundle.preset(id: "long")!, settings: settings)
    var frame: FrameIndex = 0
    while frame < mixer.frameCount {
        let n = Int(min(4096, mixer.frameCount - frame))
        _ = try mixer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * 3)]), from: TimelineFrame(frame))
        frame += FrameIndex(n)
    }
    return Double(mixer.frameCount) / 48_000
}

/// This process's peak resident set in MiB (VmHWM: per address space, so it starts afresh at exec,
/// unlike a child's `ru_maxrss`, which Linux seeds with the parent's size at the fork).
func peakRSS() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? .nan) / 1024
    }
    return .nan
}

// Child mode: the whole life of this process is one open + mix, so its peak RSS is the mixer's.
if let mixOnly {
    _ = try mixWholePreset(mixOnly, settings: settings, buffer: buffer)
    print(peakRSS())
    exit(0)
}

// 1. Open → first buffer.
let demo = corpus + "/bundles/demo.pulsar"
if FileManager.default.fileExists(atPath: demo) {
    var times: [Double] = []
    for _ in 0..<20 {
        let start = now()
        let bundle = try PresetBundle.open(demo)
        let mixer = try PresetMixer(preset: bundle.preset(id: "verified")!, settings: settings)
        _ = try mixer.render(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(1024 * 3)]), from: 0)
        times.append((now() - start) * 1000)
    }
    times.sort()
    print("open demo.pulsar → first 1024-frame stereo+haptic buffer: best \(fmt(times[0], 2)) ms, median \(fmt(times[10], 2)) ms")
} else {
    print("note: corpus absent: no open → first buffer figure")
}

// 2. A one-hour preset with one hour of FLAC, as an unpacked bundle.
try? FileManager.default.removeItem(atPath: work)
try FileManager.default.createDirectory(atPath: work + "/haptics", withIntermediateDirectories: true)
try FileManager.default.createDirectory(atPath: work + "/audio", withIntermediateDirectories: true)
let sox = "/usr/bin/sox"
guard FileManager.default.isExecutableFile(atPath: sox) else {
    print("note: sox not installed (make deps-bench): it makes the FLAC and is the reference")
    exit(0)
}
let flac = work + "/audio/long.flac"
let makeFLAC = try run(sox, ["-n", "-r", "44100", "-c", "2", "-b", "16", flac, "synth", fmt(seconds, 0), "sine", "220", "sine", "330", "gain", "-6"])
// Built in a function so the pattern is freed before the measured part.
func writeLongPattern(seconds: Double, work: String) throws -> Int {
    let source = FileManager.default.fileExists(atPath: corpus) ? corpus + "/pulsar-presets/Hail.json" : projectRoot + "/Resources/patterns/demo.json"
    let hail = try PatternLoader().load(contentsOf: source).pattern
    var long = PatternData()
    let period = (hail.lastPointTime / 10).rounded(.up) * 10 + 10
    for k in 0..<Int(seconds * 1000 / period) {
        let shifted = hail.shifted(by: Double(k) * period)
        long.continuousPattern.amplitude += shifted.continuousPattern.amplitude
        long.continuousPattern.frequency += shifted.continuousPattern.frequency
        long.discretePattern += shifted.discretePattern
    }
    try PatternWriter.write(long, as: .pulsarJSON, to: work + "/haptics/long.json")
    return long.pointCount
}
let points = try writeLongPattern(seconds: seconds, work: work)
let manifest = """
{"schema": "pulsar.bundle/1", "id": "dev.pulsar.bench", "name": "Bench",
 "presets": [{"id": "long", "name": "One hour", "haptics": "haptics/long.json", "audio": {"src": "audio/long.flac"}}]}
"""
try Data(manifest.utf8).write(to: URL(fileURLWithPath: work + "/manifest.json"))
let flacBytes = (try FileManager.default.attributesOfItem(atPath: flac)[.size] as? NSNumber)?.intValue ?? 0
print("made \(fmt(seconds, 0)) s of 44.1 kHz stereo FLAC (\(flacBytes / 1_048_576) MiB) in \(fmt(makeFLAC)) s, and a \(points)-point pattern")

let start = now()
let mixSeconds = try mixWholePreset(work, settings: settings, buffer: buffer)
let mixTime = now() - start

// Peak memory: the same open + mix in a fresh child process, whose maximum RSS the kernel reports.
/// Runs this program with `arguments` and returns the peak RSS (MiB) the child reports.
func childPeakRSS(_ arguments: [String]) throws -> Double {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = arguments
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    return Double(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
}
let childPeak = try childPeakRSS(["--mix-only", work])

// Reference: sox decoding the same FLAC and resampling it to 48 kHz (to a null output).
let soxTime = try run(sox, [flac, "-r", "48000", "-t", "null", "-"])

print("")
print("| job (\(fmt(mixSeconds, 0)) s of content) | wall time | × real time |")
print("| --- | ---: | ---: |")
print("| pulsar mix: decode FLAC + resample + haptics → stereo+haptic 48 kHz | \(fmt(mixTime, 2)) s | \(fmt(mixSeconds / mixTime, 0))× |")
print("| sox: decode the same FLAC + resample to 48 kHz | \(fmt(soxTime, 2)) s | \(fmt(mixSeconds / soxTime, 0))× |")
print("")
print("peak RSS of a process that opens the bundle and mixes the whole preset: \(fmt(childPeak)) MiB (target ≤ 64 MiB)")
if !keep { try? FileManager.default.removeItem(atPath: work) }
