// The real-time path allocates nothing: PlayerCore.step() — transport commands, live mix changes
// (switching to a mixer prepared outside the counted region), pause/resume fades, the mixer with
// preloaded audio, the haptic renderer, the limiter, the device calls, the event queue — over
// 2000 steady-state periods, counted by this program's own malloc (CAllocationCounter), in a
// release build (a debug build boxes variables captured by local closures, which the optimiser
// removes). Exits 1 when anything was allocated; `make test` runs it.
//
//   swift run -c release rt-allocations
import CAllocationCounter
import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation

// The counter must see allocations at all, or a zero would prove nothing.
pulsar_allocations_start()
let probe = [Int](repeating: 1, count: 1000)
let seen = pulsar_allocations_stop()
guard probe.count == 1000, seen > 0 else {
    print("rt-allocations: the allocation counter saw nothing: it is not interposed")
    exit(1)
}

let pattern = PatternData(
    continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.4), ValuePoint(time: 800, value: 0.6)],
                                         frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 800, value: 1)]),
    discretePattern: stride(from: 20.0, to: 800, by: 40).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.5) })
var settings = MixSettings(layout: .stereoHaptic)
settings.preloadAudio = true
var preset = PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern)
let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
let demo = projectRoot + "/../shared/corpus/bundles/demo-unpacked"
if FileManager.default.fileExists(atPath: demo) {
    preset.audio = try PresetBundle.open(demo).preset(id: "verified")?.audio  // real MP3 audio in the mix
} else {
    print("note: corpus absent: checking without audio")
}
let mixer = try PresetMixer(preset: preset, settings: settings, range: PlaybackRange(loopCount: 3, reverse: true))
let clock = ManualClock()
let device = SimulatedDevice(clock: clock)
let core = try PlayerCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                          configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3, periodFrames: 256, bufferFrames: 1024))
core.send(.play(fromTimelineFrame: 0))
for _ in 0..<20 {  // warm-up: lazily initialised runtime state
    try core.step()
    while core.events.pop() != nil {}
    clock.advance(seconds: 256.0 / 48_000)
}
let commands: [TransportCommand] = [.pause, .resume, .seek(toTimelineFrame: 31_337), .play(fromTimelineFrame: 0), .seek(toTimelineFrame: 90_000)]
let adjustments: [(inout LiveMix) -> Void] = [{ $0.loopCount = 2; $0.reverse = false }, { $0.hapticOffset = 15 }, { $0.hapticsEnabled = false },
                   { $0.hapticsEnabled = true; $0.audioGain = 0.5 }, { $0.loopCount = PlaybackTimeline.endless; $0.reverse = true }]
var changes = 0
var total: UInt = 0
var worst: UInt = 0
let periods = 2000
for period in 0..<periods {
    if period % 40 == 7 { core.send(commands[period / 40 % commands.count]) }
    if period % 40 == 27 {
        // The control side of HapticPlayer.adjust, outside the counted region.
        let next = try core.renderer.mixers.newestMixer.adjusted(adjustments[period / 40 % adjustments.count])
        if let generation = core.renderer.mixers.install(next) {
            core.send(.mix(MixChange(generation: generation, of: next)))
            changes += 1
        }
    }
    pulsar_allocations_start()
    try core.step()
    let n = pulsar_allocations_stop()
    total += n
    worst = max(worst, n)
    while let event = core.events.pop() {
        if case .command(_, _, _, let state) = event { core.renderer.mixers.retire(below: state.mix) }
    }
    clock.advance(seconds: 256.0 / 48_000 * (period % 3 == 0 ? 1.5 : 0.9))
}
print("rt-allocations: \(total) allocations in \(periods) real-time steps (worst step \(worst)), \(periods / 40) transport commands and \(changes) live mix changes among them")
exit(total == 0 ? 0 : 1)
