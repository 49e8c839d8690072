// What wakes the real-time thread, side by side on ALSA `default` (run it inside a PipeWire
// session: `make bench` starts one): a timer once a period (the player's first design) against
// the device's poll descriptors plus an eventfd for commands (mpv's way). For each, alternately,
// `--rounds` times: the process's CPU time, the real-time thread's wake-ups a second (its
// voluntary context switches), underruns, and command latency — the effective frame of a seek
// minus the frame being heard when it was sent — over `--seconds` of play with a seek every
// 20–30 ms. The demo audio (made from Resources/) plays looped, period 128, buffer 512.
//
//   swift run -c release wake-sources [--seconds 15] [--rounds 3]
#if canImport(Glibc)
import Glibc
#endif
import BenchSupport
import Foundation
import PulsarALSA
import PulsarAudio
import PulsarCore
import PulsarEngine

var seconds = 15.0, rounds = 3
var options = CommandLine.arguments.dropFirst()
while let option = options.popFirst() {
    switch option {
    case "--seconds": seconds = Double(options.popFirst() ?? "") ?? seconds
    case "--rounds": rounds = Int(options.popFirst() ?? "") ?? rounds
    default:
        print("wake-sources: unknown option \(option)")
        exit(64)
    }
}

struct Measure {
    var cpu = 0.0, wakeups = 0.0, underruns = 0
    var latencies: [Double] = []
}

func processCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func secs(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Voluntary context switches of the thread named `pulsar-rt` (its sleeps), from /proc.
func realtimeThreadSwitches() -> Int {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
    for task in tasks {
        let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        guard comm.hasPrefix("pulsar-rt"), let status = try? String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8) else { continue }
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            return Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }
    return 0
}

func measure(_ wake: HapticPlayer.WakeSource, seconds: Double, seed: inout UInt64) throws -> Measure {
    let mixer = try DemoContent.mixer(range: PlaybackRange(loopCount: PlaybackTimeline.endless))
    let player = try HapticPlayer(mixer: mixer, device: ALSADevice(name: "default"), periodFrames: 128, bufferFrames: 512,
                                  realtime: true, wake: wake)
    player.start()
    player.play()
    defer { player.shutdown() }
    usleep(500_000)
    player.poll()
    func unit() -> Double {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
        return Double(seed >> 11) / Double(UInt64(1) << 53)
    }
    var result = Measure()
    let cpu0 = processCPU(), switches0 = realtimeThreadSwitches(), underruns0 = player.underruns
    let start = player.now()
    var sent = 0, heardAtSend: [Double] = []
    while player.now().seconds(since: start) < seconds {
        usleep(UInt32(20_000 + unit() * 10_000))
        player.poll()
        guard let heard = player.streamFrame(at: player.now()) else { continue }
        if player.send(.seek(toTimelineFrame: sent % 2 == 0 ? 12_345 : 54_321)) {
            sent += 1
            heardAtSend.append(heard)
        }
    }
    let elapsed = player.now().seconds(since: start)
    result.cpu = processCPU() - cpu0
    result.wakeups = Double(realtimeThreadSwitches() - switches0) / elapsed
    usleep(50_000)
    player.poll()
    result.underruns = player.underruns - underruns0
    let effective = player.loggedEvents.compactMap { event -> FrameIndex? in
        if case .command(.seek, _, _, let frame, _) = event { return frame.index }
        return nil
    }
    let rate = Double(mixer.settings.sampleRate.hertz) / 1000
    result.latencies = zip(effective, heardAtSend).map { (Double($0) - $1) / rate }.sorted()
    return result
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
func fmt(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }

var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
var results: [HapticPlayer.WakeSource: [Measure]] = [:]
for _ in 0..<rounds {
    for wake in [HapticPlayer.WakeSource.timer, .device] {
        results[wake, default: []].append(try measure(wake, seconds: seconds, seed: &seed))
    }
}
print("Real-time thread wake-up on ALSA 'default' (PipeWire), period 128, buffer 512, \(fmt(seconds, 0)) s each, \(rounds) alternating rounds:")
print("")
print("| wake source | CPU s (each round) | wake-ups / s | underruns | seek latency p50 / p99 / max ms |")
print("| --- | ---: | ---: | ---: | ---: |")
for (wake, name) in [(HapticPlayer.WakeSource.timer, "timer, once a period"), (.device, "poll descriptors + eventfd")] {
    let all = results[wake] ?? []
    let latencies = all.flatMap(\.latencies).sorted()
    print("| \(name) | \(all.map { fmt($0.cpu) }.joined(separator: " / ")) | \(all.map { fmt($0.wakeups, 0) }.joined(separator: " / ")) | \(all.map(\.underruns).reduce(0, +)) | \(fmt(percentile(latencies, 0.5))) / \(fmt(percentile(latencies, 0.99))) / \(fmt(latencies.last ?? .nan)) |")
}
