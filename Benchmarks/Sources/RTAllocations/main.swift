// The real-time path allocates and frees nothing: EngineCore.step() — every transport command
// (play, pause, resume, seek, cue, stop), live mix changes (switching to a mixer prepared outside
// the counted region), pause/resume fades, underrun recovery, the mixer with preloaded and
// resampled audio, the haptic renderer, the limiter, integer conversion, the event queue — on the
// simulated device, then on ALSA itself when a sound server is there (the PipeWire session
// `make test` starts). Counted by this program's own malloc, calloc, realloc and free
// (CAllocationCounter), in a release build (a debug build boxes variables captured by local
// closures, which the optimiser removes). The audio is made here from the demo's own pattern in
// Resources/, so the check never runs without it. Exits 1 when anything was allocated or freed,
// or when a sound server was announced (PULSAR_PIPEWIRE_DIR) but ALSA could not be driven.
//
//   swift run -c release rt-allocations
import BenchSupport
import CAllocationCounter
import Foundation
import PulsarALSA
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation

// The counter must see allocations and frees at all, or a zero would prove nothing.
pulsar_allocations_start()
var probe: [Int]? = [Int](repeating: 1, count: 1000)
probe = nil
let seen = pulsar_allocations_stop()
guard probe == nil, seen >= 2 else {
    print("rt-allocations: the allocation counter saw \(seen) calls: it is not interposed")
    exit(1)
}

/// Counts, step by step, what `step()` allocates while the script below runs on `core`.
struct Run {
    var total: UInt = 0
    var worst: UInt = 0
    var steps = 0
    var commands = 0
    var changes = 0
    var underruns = 0

    static let commands: [TransportCommand] = [
        .pause, .resume, .seek(toTimelineFrame: 31_337), .cue(toTimelineFrame: 12_000), .resume,
        .play(fromTimelineFrame: 0), .stop, .play(fromTimelineFrame: 4_000), .seek(toTimelineFrame: 90_000),
    ]
    static let adjustments: [@Sendable (inout LiveMix) -> Void] = [
        { $0.loopCount = 2; $0.reverse = false }, { $0.hapticOffset = 15 }, { $0.hapticsEnabled = false },
        { $0.hapticsEnabled = true; $0.audioGain = 0.5 }, { $0.loopCount = PlaybackTimeline.endless; $0.reverse = true },
    ]

    /// The script's control side for step `period` (outside the counted region).
    mutating func control(_ core: EngineCore, period: Int, underrun: () -> Void) throws {
        if period % 40 == 7, core.send(EngineCommand(Self.commands[period / 40 % Self.commands.count])) { commands += 1 }
        if period % 40 == 27 {
            let next = try core.renderer.mixers.newestMixer.adjusted(Self.adjustments[period / 40 % Self.adjustments.count])
            if let generation = core.renderer.mixers.install(next) {
                if core.send(.mix(MixChange(generation: generation, of: next))) {
                    changes += 1
                } else {
                    core.renderer.mixers.uninstall(generation)
                }
            }
        }
        if period % 40 == 33 {
            underrun()
            underruns += 1
        }
    }

    /// Counts what `step` allocates.
    mutating func counted(_ step: () throws -> Void) rethrows {
        pulsar_allocations_start()
        try step()
        let n = pulsar_allocations_stop()
        total += n
        worst = max(worst, n)
        steps += 1
    }

    mutating func countedStep(_ core: EngineCore) throws {
        try counted { try core.step() }
        while let event = core.events.pop() {
            if case .command(_, _, _, _, let state) = event { core.renderer.mixers.retire(below: state.mix) }
        }
    }

    func report(_ name: String) -> String {
        "\(name): \(total) allocations and frees in \(steps) real-time steps (worst step \(worst)); \(commands) transport commands, \(changes) live mix changes, \(underruns) forced underruns or stalls among them"
    }
}

/// The simulated device on a driven clock, 16-bit like many a USB device, with forced underruns.
func simulatedRun(_ mixer: PresetMixer) throws -> Run {
    let clock = ManualClock()
    var behaviour = SimulatedDevice.Behaviour()
    behaviour.sampleFormat = .int16
    let device = SimulatedDevice(clock: clock, behaviour: behaviour)
    let core = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                              configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3,
                                                                 periodFrames: 256, bufferFrames: 1024))
    core.send(.play(fromTimelineFrame: 0))
    for _ in 0..<20 {  // warm-up: lazily initialised runtime state
        try core.step()
        while core.events.pop() != nil {}
        clock.advance(seconds: 256.0 / 48_000)
    }
    var run = Run()
    for period in 0..<2_000 {
        try run.control(core, period: period) { device.injectUnderrun() }
        try run.countedStep(core)
        clock.advance(seconds: 256.0 / 48_000 * (period % 3 == 0 ? 1.5 : 0.9))
    }
    return run
}

/// ALSA `default` driven on this thread for about two seconds, one step a period; an underrun is
/// forced by sleeping past the buffer.
func alsaRun(_ mixer: PresetMixer) throws -> Run? {
    let device = ALSADevice(name: "default")
    let clock = SystemMonotonicClock()
    let core: EngineCore
    do {
        core = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                              configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3,
                                                                 periodFrames: 256, bufferFrames: 1024))
    } catch {
        print("ALSA 'default' did not open: \(error)")
        return nil
    }
    core.send(.play(fromTimelineFrame: 0))
    for _ in 0..<40 {
        try core.step()
        while core.events.pop() != nil {}
        usleep(5_333)
    }
    var run = Run()
    for period in 0..<400 {
        try run.control(core, period: period) { usleep(40_000) }
        try run.countedStep(core)
        usleep(5_333)
    }
    return run
}

/// 64 voices on one engine on the simulated device: voice commands, live mix changes, intensity
/// ramps and curves, sharpness ramps, the master gain, steals (a new voice every 50 periods at a limit of 64),
/// and forced underruns — all made outside the counted region through the engine's own API.
func voicesRun(_ mixer: PresetMixer) throws -> Run {
    let clock = ManualClock()
    var behaviour = SimulatedDevice.Behaviour()
    behaviour.sampleFormat = .int16
    let device = SimulatedDevice(clock: clock, behaviour: behaviour)
    let engine = try HapticEngine(device: device, sampleRate: SampleRate(48_000)!, channels: 3, monotonic: clock, voiceLimit: 64)
    for k in 0..<56 {
        let voice = try engine.makeVoice(mixer)
        voice.send(.play(fromTimelineFrame: TimelineFrame(FrameIndex(k * 997))))
    }
    // Eight `.realtime` voices, their positions moved every period, to and fro and by jumps.
    var scrubbed: [HapticVoice] = []
    for _ in 0..<8 {
        let voice = try engine.makeVoice(mixer, priority: 5, mode: .realtime)
        voice.play()
        scrubbed.append(voice)
    }
    for _ in 0..<20 {
        try engine.step()
        engine.poll()
        clock.advance(seconds: 256.0 / 48_000)
    }
    var run = Run()
    var steals = 0
    for period in 0..<2_000 {
        let voices = engine.activeVoices
        let voice = voices[period % voices.count]
        if period % 10 == 3, voice.send(Run.commands[period / 10 % Run.commands.count]) { run.commands += 1 }
        if period % 40 == 27, (try? voice.adjust(Run.adjustments[period / 40 % Run.adjustments.count])) != nil { run.changes += 1 }
        if period % 25 == 11 { voice.setIntensity(Double(period % 7) / 4, over: period % 2 == 0 ? nil : 0.02) }
        if period % 25 == 18 {
            let now = engine.now()
            voice.setIntensityCurve([(now.adding(seconds: 0.01), 0.3), (now.adding(seconds: 0.03), 1.2), (now.adding(seconds: 0.05), 0.8)])
        }
        if period % 25 == 14 { voice.setSharpness(Double(period % 9) / 4 - 1, over: period % 2 == 0 ? nil : 0.03) }
        if period % 60 == 5 { engine.setMasterHapticGain(0.5 + Double(period % 3) / 4, over: 0.01) }
        for (k, voice) in scrubbed.enumerated() where (period + k) % 3 == 0 {
            let phase = Double((period + 37 * k) % 400)
            voice.setContentTime(period % 97 == 0 ? 5_000 - phase * 10 : (phase < 200 ? phase * 12 : (400 - phase) * 12))
        }
        if period % 50 == 45, let made = try? engine.makeVoice(mixer) {
            made.play()
            steals += 1
        }
        if period % 40 == 33 {
            device.injectUnderrun()
            run.underruns += 1
        }
        try run.counted { try engine.step() }
        engine.poll()
        clock.advance(seconds: 256.0 / 48_000 * (period % 3 == 0 ? 1.5 : 0.9))
    }
    let stolen = engine.loggedEvents.filter { if case .command(.steal, _, _, _, _) = $0 { return true } else { return false } }.count
    guard stolen > 10 else {
        print("rt-allocations: only \(stolen) steals of \(steals) voices made at the limit")
        exit(1)
    }
    return run
}

/// Two devices: sound on one simulated device (+150 ppm), touch on another (−150 ppm, quad,
/// 16-bit), position jitter on both; 16 voices with commands and live changes, and underruns
/// forced on each device in turn — so the feed's segments move, jump back onto the main clock,
/// and the stream ring is read from both sides.
func twoDevicesRun(_ mixer: PresetMixer) throws -> Run {
    let clock = ManualClock()
    var a = SimulatedDevice.Behaviour()
    a.rateErrorPPM = 150
    a.jitterSeconds = 0.0003
    var b = a
    b.rateErrorPPM = -150
    b.sampleFormat = .int16
    b.seed = 99
    let main = SimulatedDevice(clock: clock, behaviour: a), haptic = SimulatedDevice(clock: clock, behaviour: b)
    let engine = try HapticEngine(device: main, sampleRate: SampleRate(48_000)!, channels: 3, monotonic: clock, voiceLimit: 16,
                                  hapticDevice: HapticDeviceOutput(device: haptic, layout: .quad, sampleRate: SampleRate(48_000)!, latency: 0.004))
    for k in 0..<16 {
        let voice = try engine.makeVoice(mixer)
        voice.send(.play(fromTimelineFrame: TimelineFrame(FrameIndex(k * 1999))))
    }
    for _ in 0..<20 {
        try engine.step()
        engine.poll()
        clock.advance(seconds: 256.0 / 48_000)
    }
    var run = Run()
    for period in 0..<2_000 {
        // Voices that were stopped leave; new ones take their place (made outside the count).
        if engine.activeVoices.count < 12, let made = try? engine.makeVoice(mixer) { made.play() }
        let voices = engine.activeVoices
        let voice = voices[period % voices.count]
        if period % 10 == 3, voice.send(Run.commands[period / 10 % Run.commands.count]) { run.commands += 1 }
        if period % 40 == 27, (try? voice.adjust(Run.adjustments[period / 40 % Run.adjustments.count])) != nil { run.changes += 1 }
        if period % 25 == 11 { voice.setIntensity(Double(period % 7) / 4, over: 0.02) }
        if period % 400 == 33 {
            main.injectUnderrun()
            run.underruns += 1
        }
        if period % 400 == 233 {
            haptic.injectUnderrun()
            run.underruns += 1
        }
        try run.counted { try engine.step() }
        engine.poll()
        clock.advance(seconds: 256.0 / 48_000 * (period % 3 == 0 ? 1.5 : 0.9))
    }
    let segments = engine.loggedEvents.filter { if case .hapticDeviceSegment = $0 { return true } else { return false } }.count
    guard segments > 10, engine.hapticDeviceUnderruns >= 5 else {
        print("rt-allocations: the haptic device's feed moved \(segments) times and ran dry \(engine.hapticDeviceUnderruns) times")
        exit(1)
    }
    return run
}

let mix = try DemoContent.mixer(range: PlaybackRange(loopCount: 3, reverse: true))
let simulated = try simulatedRun(mix)
print(simulated.report("rt-allocations, simulated s16 device"))
var failed = simulated.total != 0
let voices = try voicesRun(try DemoContent.mixer(range: PlaybackRange(loopCount: PlaybackTimeline.endless)))
print(voices.report("rt-allocations, 64 voices (8 of them .realtime, scrubbed every few periods) with intensity and sharpness ramps, curves, master gain and steals, simulated s16 device"))
failed = failed || voices.total != 0
let two = try twoDevicesRun(try DemoContent.mixer(range: PlaybackRange(loopCount: PlaybackTimeline.endless)))
print(two.report("rt-allocations, two devices (sound +150 ppm, touch −150 ppm quad s16, 0.3 ms jitter), 16 voices, underruns on each"))
failed = failed || two.total != 0
let follow = try followRun()
print(follow.report("rt-allocations, pulsar follow: a capture at +150 ppm onto a quad s16 device at −150 ppm, mixed and recorded"))
failed = failed || follow.total != 0
if ProcessInfo.processInfo.environment["PULSAR_PIPEWIRE_DIR"] != nil || ProcessInfo.processInfo.environment["PULSAR_RT_ALSA"] != nil {
    if let alsa = try alsaRun(mix) {
        print(alsa.report("rt-allocations, ALSA 'default'"))
        failed = failed || alsa.total != 0
    } else {
        print("rt-allocations: a sound server was announced but ALSA could not be driven")
        failed = true
    }
} else {
    print("rt-allocations: ALSA path not checked: no sound server announced (make test runs this inside its PipeWire session)")
}
exit(failed ? 1 : 0)
