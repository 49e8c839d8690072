import CAllocationCounter
import Foundation
import PulsarAudio
import PulsarCore
import PulsarDerive
@_spi(Internals) import PulsarEngine
import PulsarSession
import PulsarSimulation

/// `pulsar follow`'s stepping: a capture on one crystal (+150 ppm) followed onto a quad s16
/// device on another (−150 ppm, 0.3 ms jitter) with the sound mixed in and the input recorded for
/// the log — the feed's steering, the follower, the layout and the recorder's ring — with forced
/// underruns and a capture left unread until it drops frames.
func followRun() throws -> Run {
    let clock = ManualClock()
    let signal: [Float] = (0..<48_000 * 2).map { i in Float(sin(Double(i) * 0.0131)) * (i % 12_000 < 2_000 ? 0.8 : 0.05) }
    let capture = SimulatedCapture(clock: clock, signal: signal, channels: 2, sampleRate: 48_000, rateErrorPPM: 150, periodFrames: 256, capacity: 8192)
    var behaviour = SimulatedDevice.Behaviour()
    behaviour.sampleFormat = .int16
    behaviour.rateErrorPPM = -150
    behaviour.jitterSeconds = 0.0003
    let device = SimulatedDevice(clock: clock, behaviour: behaviour)
    _ = try device.open(DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 4, periodFrames: 256, bufferFrames: 1024))
    let path = NSTemporaryDirectory() + "rt-allocations-follow-\(getpid()).wav"
    defer { unlink(path) }
    let recorder = try FollowRecorder(path: path, sampleRate: 48_000, channels: 2)
    let player = FollowPlayer(device: device, source: .capture(capture), follower: try HapticFollower(sampleRate: 48_000, settings: FollowSettings()),
                              layout: ChannelLayout(parsing: "quad")!, mix: true, period: 256, record: recorder)
    let step = 128.0 / 48_000
    for _ in 0..<400 {  // warm-up: lazily initialised runtime state, the clocks' first fits
        player.guardedStep()
        _ = player.events()
        clock.advance(seconds: step)
    }
    var run = Run()
    var segments = 0
    for period in 0..<6_000 {
        if period % 1_500 == 700 { device.injectUnderrun(); run.underruns += 1 }
        if period % 3_000 == 2_000 { clock.advance(seconds: 0.25) }  // nobody reads: the capture drops frames
        run.counted { player.guardedStep() }
        for case .segment in player.events().events { segments += 1 }
        clock.advance(seconds: step * (period % 3 == 0 ? 1.4 : 0.8))
    }
    _ = try recorder.finish()
    let counters = player.snapshot
    guard segments > 10, counters.underruns >= 3, counters.captureLost > 0, counters.failure == nil else {
        print("rt-allocations: the follower's feed moved \(segments) times, ran dry \(counters.underruns) times, lost \(counters.captureLost) capture frames, failure \(String(describing: counters.failure))")
        exit(1)
    }
    return run
}
