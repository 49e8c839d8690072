// Clock drift: one simulated hour on a device running +200 ppm fast with ±0.5 ms position
// jitter, read once per 256-frame period. Side by side: the device-slaved clock
// (DevicePositionFilter over the device's own position readings) and a wall clock (monotonic
// seconds since start × nominal rate), each asked which frame is being heard at random instants.
//
//   swift run -c release drift [--ppm 200] [--jitter-ms 0.5] [--seconds 3600] [--period 256] [--seed N]
import Foundation
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation

var ppm = 200.0, jitterMs = 0.5, seconds = 3600.0, period = 256
var seed: UInt64 = 0x5EED
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--ppm": ppm = Double(args.popFirst()!)!
    case "--jitter-ms": jitterMs = Double(args.popFirst()!)!
    case "--seconds": seconds = Double(args.popFirst()!)!
    case "--period": period = Int(args.popFirst()!)!
    case "--seed": seed = UInt64(args.popFirst()!)!
    default: fatalError("unknown option \(a)")
    }
}

let rate = 48_000.0
let clock = ManualClock()
var behaviour = SimulatedDevice.Behaviour()
behaviour.rateErrorPPM = ppm
behaviour.jitterSeconds = jitterMs / 1000
behaviour.seed = seed
let device = SimulatedDevice(clock: clock, behaviour: behaviour)
_ = try device.open(DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: period, bufferFrames: period * 8))
let silence = [Float](repeating: 0, count: period * 8)
let start = clock.now()
_ = try silence.withUnsafeBufferPointer { try device.write($0) }

var filter = DevicePositionFilter(nominalRate: rate)
/// A seeded xorshift generator: the same instants on every run.
struct Xorshift {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    mutating func unit() -> Double {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Double(state >> 11) / Double(UInt64(1) << 53)
    }
}
var rng = Xorshift()

let periodSeconds = Double(period) / rate
var worstSlaved = [0.0, 0.0, 0.0, 0.0]   // first 0.5 s, 0.5–2 s, 2–60 s, after
var lastOverOneSample = 0.0
var worstWall = 0.0
var sumSquares = 0.0, queries = 0
var elapsed = 0.0
while elapsed < seconds {
    clock.advance(seconds: periodSeconds * (0.8 + 0.4 * rng.unit()))
    elapsed = clock.now().seconds(since: start)
    let free = try device.availableFrames()
    _ = try silence.withUnsafeBufferPointer { try device.write(UnsafeBufferPointer(rebasing: $0[0..<free])) }
    let reading = try device.position()
    filter.add(frames: reading.framesPlayed, at: reading.timestamp)
    let q = clock.now().adding(seconds: periodSeconds * rng.unit())
    let truth = q.seconds(since: start) * rate * (1 + ppm * 1e-6)
    guard let slaved = filter.frame(at: q) else { continue }
    let wall = q.seconds(since: start) * rate
    let e = abs(slaved - truth)
    let bucket = elapsed < 0.5 ? 0 : elapsed < 2 ? 1 : elapsed < 60 ? 2 : 3
    if e > 1 { lastOverOneSample = elapsed }
    worstSlaved[bucket] = max(worstSlaved[bucket], e)
    if elapsed >= 60 { sumSquares += e * e; queries += 1 }
    worstWall = max(worstWall, abs(wall - truth))
}

func fmt(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }
print("\(fmt(seconds, 0)) s simulated, +\(fmt(ppm, 0)) ppm, ±\(fmt(jitterMs, 2)) ms position jitter, a reading every \(period) frames")
print("")
print("| clock | worst error | RMS error (after 1 min) |")
print("| --- | ---: | ---: |")
print("| device-slaved (DevicePositionFilter), first 0.5 s | \(fmt(worstSlaved[0])) samples | |")
print("| device-slaved (DevicePositionFilter), 0.5–2 s | \(fmt(worstSlaved[1])) samples | |")
print("| device-slaved (DevicePositionFilter), 2–60 s | \(fmt(worstSlaved[2])) samples | |")
print("| device-slaved (DevicePositionFilter), after 60 s | \(fmt(worstSlaved[3])) samples | \(fmt((sumSquares / Double(max(queries, 1))).squareRoot(), 3)) samples |")
print("| wall clock × nominal rate | \(fmt(worstWall / rate * 1000, 1)) ms (\(fmt(worstWall, 0)) samples) | |")
print("")
print("last query more than 1 sample off: \(fmt(lastOverOneSample * 1000, 0)) ms after the first reading")
print("measured device rate: \(fmt(filter.measuredRate, 3)) Hz (true \(fmt(rate * (1 + ppm * 1e-6), 3)) Hz)")
