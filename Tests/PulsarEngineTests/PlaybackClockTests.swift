import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import Testing

/// The slaved clock during a scripted play on the simulated device.
@Suite struct PlaybackClockTests {
    @Test("Freezes at a pause's effective frame, jumps at a seek's, runs backwards in reverse iterations")
    func transportProperties() throws {
        let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 1000, value: 0.5)]))
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                                    range: PlaybackRange(loopCount: 2, reverse: true))
        let clock = ManualClock()
        let device = SimulatedDevice(clock: clock)
        let player = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 240, bufferFrames: 960))
        var playback = PlaybackClock(timeline: mixer.timeline, sampleRate: SampleRate(48_000)!, durationMilliseconds: mixer.durationMilliseconds,
                                     animationFrameRate: 30)
        let script: [Int: TransportCommand] = [0: .play(fromTimelineFrame: 0), 40: .pause, 60: .resume, 100: .seek(toTimelineFrame: 24_000),
                                               150: .seek(toTimelineFrame: 60_000)]
        var samples: [(period: Int, ms: Double)] = []
        var pauseFrame: StreamFrame?, seekFrame: StreamFrame?
        for period in 0..<260 {
            if let c = script[period] { player.send(EngineCommand(c)) }
            try player.step()
            while let e = player.events.pop() {
                playback.observe(e)
                if case let .command(c, _, _, effective, _) = e {
                    if c == .pause { pauseFrame = effective }
                    if c == .seek(toTimelineFrame: 24_000) { seekFrame = effective }
                }
            }
            clock.advance(seconds: 0.005)
            if let ms = playback.contentTime(at: clock.now()) { samples.append((period, ms)) }
        }
        let at = { (p: Int) in samples.first { $0.period == p }!.ms }
        // Forward play: 5 ms of clock is 5 ms of content.
        #expect(abs((at(30) - at(20)) - 50) < 0.5)
        // Paused: frozen (the pause took effect one safety margin after the heard position).
        #expect(pauseFrame != nil)
        #expect(abs(at(55) - at(50)) < 1e-9, "frozen while paused")
        // Resumed: moving again from where it froze.
        #expect(at(80) > at(70))
        // The seek to timeline frame 24 000 (500 ms into the forward iteration) is heard as a jump.
        #expect(seekFrame != nil)
        #expect(at(110) > 500 && at(110) < 600)
        // Timeline frame 60 000 lies in the backward iteration (from 48 000): content runs down.
        #expect(at(170) < at(160), "runs backwards in the reverse iteration")
        #expect(abs((at(160) - at(170)) - 50) < 0.5)
        // Animation frame: ip + seconds · fr.
        let ms = playback.contentTime(at: clock.now())!
        #expect(abs(playback.animationFrame(at: clock.now())! - ms / 1000 * 30) < 1e-9)
    }
}
