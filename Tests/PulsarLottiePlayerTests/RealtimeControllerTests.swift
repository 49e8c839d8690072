import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottiePlayer
import PulsarSimulation
import PulsarTestSupport
import Testing

/// `.realtime` through the controller: a preset without audio follows the animation's own clock;
/// each poll hands the haptics where the animation stands; the transients fire as it passes them,
/// again after a seek back, never across a loop's wrap; the frame shown is the animation's.
@Suite struct RealtimeControllerTests {
    /// A 1 s animation at 30 fps, and a pattern of clicks at 150, 350, 550 and 750 ms (no carrier,
    /// no audio), haptic only.
    static func rig() throws -> (HapticLottieController, SimulatedDevice, ManualClock) {
        let json = #"{"v":"5.7.4","fr":30,"ip":0,"op":30,"w":64,"h":64,"layers":[]}"#
        let animation = try LottieAnimation(json: Array(json.utf8), source: "clicks.json")
        let pattern = PatternData(discretePattern: [150.0, 350, 550, 750].map { DiscretePoint(time: $0, amplitude: 0.6, frequency: 0.5) })
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        let mixer = try PresetMixer(preset: PresetHandle(id: "c", name: "c", duration: 1000, pattern: pattern), settings: settings)
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = 48_000 * 8
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let controller = try HapticLottieController(animation: animation, mixer: mixer, device: device, monotonic: clock)
        return (controller, device, clock)
    }

    /// Steps the player a period at a time for `seconds`, polling each step (a display tick's work).
    static func run(_ controller: HapticLottieController, _ clock: ManualClock, seconds: Double) throws {
        for _ in 0..<Int(seconds * 48_000 / 256) {
            try controller.player.step()
            controller.poll()
            clock.advance(seconds: 256.0 / 48_000)
        }
    }

    /// Onsets of bursts in the recording: frames where sound starts after at least 5 ms of silence.
    static func onsets(_ samples: [Float]) -> [Int] {
        var out: [Int] = [], quiet = 240
        for (i, x) in samples.enumerated() {
            if x == 0 { quiet += 1; continue }
            if quiet >= 240 { out.append(i) }
            quiet = 0
        }
        return out
    }

    @Test("A preset without audio plays in .realtime: the frame shown follows the animation's clock, and each click is felt as the animation passes it")
    func followsTheAnimation() throws {
        let (controller, device, clock) = try Self.rig()
        #expect(controller.hapticMode == .realtime)
        let start = clock.now()
        #expect(controller.play())
        try Self.run(controller, clock, seconds: 0.6)
        // The animation's own clock: 0.6 s after play is frame 18 at 30 fps (within a period's poll).
        let frame = try #require(controller.currentFrame(at: clock.now()))
        #expect(abs(frame.value - clock.now().seconds(since: start) * 30) < 0.01)
        try Self.run(controller, clock, seconds: 0.8)
        // Four clicks, felt in order, ~200 ms apart (the course follows one poll behind).
        let onsets = Self.onsets(device.recording)
        #expect(onsets.count == 4, "\(onsets)")
        let gaps = zip(onsets, onsets.dropFirst()).map { Double($1 - $0) / 48 }
        #expect(gaps.allSatisfy { abs($0 - 200) < 12 }, "\(gaps) ms apart")
    }

    @Test("Played again after a seek back, the clicks fire again; a loop's wrap fires nothing across it, and completion comes when the animation ends")
    func seekBackAndLoops() throws {
        let (controller, device, clock) = try Self.rig()
        var completions: [Bool] = []
        controller.completion = { completions.append($0) }
        controller.play()
        try Self.run(controller, clock, seconds: 0.5)            // 150 and 350 fired
        controller.setTimestamp(100)                               // a jump back: nothing fires
        try Self.run(controller, clock, seconds: 0.35)           // 150 and 350 again
        #expect(Self.onsets(device.recording).count == 4)
        try controller.setLoop(true, count: 2)                     // two passes in all
        try Self.run(controller, clock, seconds: 2)
        // This pass: 550 and 750; the wrap to 0 fires nothing; the second pass: all four.
        #expect(Self.onsets(device.recording).count == 10, "\(Self.onsets(device.recording))")
        #expect(completions == [true])
    }
}
