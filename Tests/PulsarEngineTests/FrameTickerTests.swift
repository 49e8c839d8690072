import Foundation
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Testing

/// The display-link-like ticker over a live player: it asks the device-slaved clock, never
/// counts time itself. Timing-sensitive (a real thread and the real clock): not for the
/// ThreadSanitizer run, whose slowdown starves the player.
@Suite struct FrameTickerTests {
    @Test("Ticks hand out the device-slaved animation frame, advancing with the content")
    func ticks() throws {
        let mixer = try steadyMixer(milliseconds: 2000)
        let player = try HapticPlayer(mixer: mixer, device: SimulatedDevice(clock: SystemMonotonicClock()), periodFrames: 128,
                                      bufferFrames: 512, animationFrameRate: 30)
        player.start()
        player.play()
        var ticks: [FrameTick] = []
        FrameTicker(rate: 100).run(player) { tick in
            ticks.append(tick)
            return tick.index < 30
        }
        player.shutdown()
        #expect(ticks.count == 31)
        let shown = ticks.compactMap(\.animationFrame)
        #expect(shown.count > 20, "frames once the device reported positions")
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 <= $1 }, "never backwards in forward play")
        #expect((shown.last ?? 0) > (shown.first ?? 0))
        for tick in ticks {
            if let ms = tick.contentMilliseconds, let frame = tick.animationFrame {
                #expect(abs(frame - ms / 1000 * 30) < 1e-9)
            }
        }
    }
}
