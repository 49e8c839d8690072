// Soak: a long play under random commands and live changes, watching memory, the clock and the
// log. Two parts:
//
// 1. Simulated (`--simulated-seconds`, default one hour) on a driven clock: a player stepped once
//    a period on a simulated device (+200 ppm, ±0.5 ms jitter, no rewind), a random command or live
//    change every 0.2–4 s. Checks: resident memory flat within 2 MiB after the first minute; the
//    device-slaved clock's error against the samples the device really consumed, after the first
//    minute; and the device stream equal to the replay of the event log (hashed as it goes, so
//    an hour costs no memory).
// 2. Real (`--real-seconds`, default ten minutes) on ALSA `default` (run it inside the PipeWire
//    session `make soak` starts): the player's own real-time thread, a random command every
//    1–3 s. Checks: no underrun, resident memory flat within 2 MiB after the first minute.
//
//   swift run -c release soak [--simulated-seconds S] [--real-seconds S] [--seed N]
import BenchSupport
import Foundation
import PulsarALSA
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation

var simulatedSeconds = 3600.0, realSeconds = 600.0
var seed: UInt64 = 0x50A4
var options = CommandLine.arguments.dropFirst()
while let option = options.popFirst() {
    switch option {
    case "--simulated-seconds": simulatedSeconds = Double(options.popFirst() ?? "") ?? simulatedSeconds
    case "--real-seconds": realSeconds = Double(options.popFirst() ?? "") ?? realSeconds
    case "--seed": seed = UInt64(options.popFirst() ?? "") ?? seed
    default:
        print("soak: unknown option \(option)")
        exit(64)
    }
}

/// A seeded xorshift generator: the same schedule on every run.
struct Xorshift {
    var state: UInt64
    mutating func unit() -> Double {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Double(state >> 11) / Double(UInt64(1) << 53)
    }
    mutating func below(_ n: Int) -> Int { min(Int(unit() * Double(n)), n - 1) }
}

/// FNV-1a over the bit patterns of samples, in order.
struct StreamHash: Equatable {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    var samples = 0
    mutating func add(_ block: UnsafeBufferPointer<Float>) {
        for x in block {
            value = (value ^ UInt64(x.bitPattern)) &* 0x0000_0100_0000_01B3
        }
        samples += block.count
    }
}

/// A simulated device that hashes what the player writes (the device stream, since it never rewinds).
final class HashingDevice: OutputDevice {
    let inner: SimulatedDevice
    var hash = StreamHash()
    init(_ inner: SimulatedDevice) { self.inner = inner }
    var capabilities: DeviceCapabilities { inner.capabilities }
    var framesWritten: FrameIndex { inner.framesWritten }
    func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration { try inner.open(requested) }
    func availableFrames() throws(DeviceError) -> Int { try inner.availableFrames() }
    func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int {
        let frames = try inner.write(samples)
        let channels = inner.configuration?.channels ?? 1
        hash.add(UnsafeBufferPointer(rebasing: samples[0..<(frames * channels)]))
        return frames
    }
    func position() throws(DeviceError) -> DevicePosition { try inner.position() }
    func pause(_ paused: Bool) throws(DeviceError) { try inner.pause(paused) }
    func rewind(_ frames: Int) throws(DeviceError) -> Int { try inner.rewind(frames) }
    func drop() throws(DeviceError) { try inner.drop() }
    func prepare() throws(DeviceError) { try inner.prepare() }
    func close() { inner.close() }
}

/// One random command or live change on `player`.
func randomCommand(_ player: HapticPlayer, _ rng: inout Xorshift) {
    let ms = player.durationMs
    do {
        switch rng.below(12) {
        case 0: player.pause()
        case 1, 2: player.resume()
        case 3: player.setTimestamp(rng.unit() * ms)
        case 4: player.cue(atMs: rng.unit() * ms)
        case 5: player.play()
        case 6: player.stop()
        case 7: try player.setLoop(true, count: rng.unit() < 0.5 ? nil : 2 + rng.below(50), reverse: rng.unit() < 0.5)
        case 8: try player.setHapticOffset((rng.unit() * 40 - 20).rounded())
        case 9: try player.adjust { $0.audioGain = rng.unit() * 1.5 }
        case 10: try player.setHapticsEnabled(rng.unit() < 0.7)
        default:
            let from = (rng.unit() * ms * 0.5).rounded()
            try player.play(fromMs: rng.unit() < 0.5 ? nil : from, toMs: rng.unit() < 0.5 ? nil : from + 50 + (rng.unit() * ms * 0.4).rounded())
        }
    } catch {
        // Busy: the next command comes soon enough; a refusal would be a bug worth seeing.
        if case .refused(let why) = error { print("soak: a live change was refused: \(why)") }
    }
}

/// Memory after the first minute: the lowest and highest resident size seen.
struct MemoryWatch {
    var low = Int.max, high = 0, first = 0
    mutating func sample(afterFirstMinute: Bool) {
        let rss = DemoContent.residentBytes()
        if first == 0 { first = rss }
        guard afterFirstMinute else { return }
        low = min(low, rss)
        high = max(high, rss)
    }
    var spread: Int { high >= low ? high - low : 0 }
    var flat: Bool { spread <= 2 << 20 }
    func line() -> String {
        String(format: "resident memory after the first minute %.1f–%.1f MiB (spread %.2f MiB, limit 2)",
               Double(low) / 1_048_576, Double(high) / 1_048_576, Double(spread) / 1_048_576)
    }
}

func simulatedSoak(seconds: Double, seed: UInt64) throws -> Bool {
    let clock = ManualClock()
    var behaviour = SimulatedDevice.Behaviour()
    behaviour.rateErrorPPM = 200
    behaviour.jitterSeconds = 0.0005
    behaviour.canRewind = false
    behaviour.seed = seed
    let device = HashingDevice(SimulatedDevice(clock: clock, behaviour: behaviour))
    let base = try DemoContent.mixer(range: PlaybackRange(loopCount: PlaybackTimeline.endless))
    let player = try HapticPlayer(mixer: base, device: device, monotonic: clock, periodFrames: 256, bufferFrames: 1024)
    player.play()
    var rng = Xorshift(state: seed | 1)
    let period = 256.0 / 48_000
    let start = clock.now()
    var nextCommand = 1.0, nextMemory = 0.0
    var memory = MemoryWatch()
    var worstClock = 0.0, clockQueries = 0
    while clock.now().seconds(since: start) < seconds {
        let now = clock.now().seconds(since: start)
        if now >= nextCommand {
            randomCommand(player, &rng)
            nextCommand = now + 0.2 + rng.unit() * 3.8
        }
        try player.step()
        player.poll()
        if now >= 60, let estimate = player.streamFrame(at: clock.now()) {
            _ = try device.availableFrames()  // brings the device's consumption up to now
            worstClock = max(worstClock, abs(estimate - Double(device.inner.framesConsumed)))
            clockQueries += 1
        }
        if now >= nextMemory {
            memory.sample(afterFirstMinute: now >= 60)
            nextMemory = now + 10
        }
        clock.advance(seconds: period * (0.7 + 0.6 * rng.unit()))
    }
    player.poll()
    let events = player.loggedEvents
    let replay = Replay(events: events)
    let renderer = try replay.renderer(base: base)
    var replayed = StreamHash()
    var cursor = Replay.Cursor()
    let channels = base.channelCount
    let frames = device.hash.samples / channels
    let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * channels)
    defer { block.deallocate() }
    while cursor.deviceFrame < frames {
        let n = min(4096, frames - cursor.deviceFrame)
        let part = UnsafeMutableBufferPointer(rebasing: block[0..<(n * channels)])
        try replay.render(into: part, cursor: &cursor, renderer: renderer)
        replayed.add(UnsafeBufferPointer(part))
    }
    let commands = events.filter { if case .command = $0 { return true } else { return false } }.count
    let changes = replay.changes.count
    let equal = replayed == device.hash
    print(String(format: "simulated: %.0f s on a driven clock, +200 ppm, ±0.5 ms jitter; %d commands (%d live changes), %d underruns, %d events lost",
                 seconds, commands, changes, player.underruns, player.eventsLost))
    print("simulated: " + memory.line())
    print(String(format: "simulated: device clock worst error after the first minute %.2f samples over %d queries (bound 2)",
                 worstClock, clockQueries))
    print("simulated: device stream \(frames) frames × \(channels) channels \(equal ? "equals" : "DIFFERS FROM") the replay of the log")
    return memory.flat && equal && worstClock <= 2 && player.eventsLost == 0
}

func realSoak(seconds: Double, seed: UInt64) throws -> Bool {
    let mixer = try DemoContent.mixer(range: PlaybackRange(loopCount: PlaybackTimeline.endless))
    let player: HapticPlayer
    do {
        player = try HapticPlayer(mixer: mixer, device: ALSADevice(name: "default"), periodFrames: 256, bufferFrames: 1024,
                                  realtime: true)
    } catch {
        print("real: ALSA 'default' did not open: \(error)")
        return false
    }
    player.start()
    player.play()
    var rng = Xorshift(state: seed | 1)
    let start = player.now()
    var nextCommand = 1.0, nextMemory = 0.0
    var memory = MemoryWatch()
    var commands = 0
    while player.now().seconds(since: start) < seconds, player.failure == nil {
        let now = player.now().seconds(since: start)
        if now >= nextCommand {
            randomCommand(player, &rng)
            commands += 1
            nextCommand = now + 1 + rng.unit() * 2
        }
        player.poll()
        if now >= nextMemory {
            memory.sample(afterFirstMinute: now >= 60)
            nextMemory = now + 10
        }
        usleep(10_000)
    }
    player.shutdown()
    player.poll()
    let scheduling = player.hasRealtimeScheduling == true ? "SCHED_FIFO" : "normal priority"
    print(String(format: "real: %.0f s on ALSA 'default' (%@), %d commands, %d underruns, device failure: %@",
                 seconds, scheduling, commands, player.underruns, player.failure.map { "\($0)" } ?? "none"))
    print("real: " + memory.line())
    return memory.flat && player.underruns == 0 && player.failure == nil
}

var passed = true
if simulatedSeconds > 0 { passed = try simulatedSoak(seconds: simulatedSeconds, seed: seed) && passed }
if realSeconds > 0 { passed = try realSoak(seconds: realSeconds, seed: seed) && passed }
print(passed ? "soak: passed" : "soak: FAILED")
exit(passed ? 0 : 1)
