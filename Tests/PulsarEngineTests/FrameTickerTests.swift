import Foundation
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Testing

/// The display-link-like ticker over a live player: it asks the device-slaved clock, never
/// counts time itself. Timing-sensitive (a real thread and the real clock): not for the
/// ThreadSanitizer run, whose slowdown starves the player.
@Suite struct FrameTickerTests {
    @Test("Ticks hand out the device-slaved animation frame, advancing with the content", .timeLimit(.minutes(10)))
    func ticks() throws {
        let mixer = try steadyMixer(milliseconds: 20_000)
        let player = try HapticPlayer(mixer: mixer, device: SimulatedDevice(clock: SystemMonotonicClock()), periodFrames: 128,
                                      bufferFrames: 512, animationFrameRate: 30)
        player.start()
        player.play()
        // How many ticks pass before the device reports positions depends on the machine's load:
        // the ticker runs until it has handed out 21 frames (or the test's time limit cancels it).
        var ticks: [FrameTick] = []
        var shown = 0
        FrameTicker(rate: 100).run(player) { tick in
            ticks.append(tick)
            if tick.animationFrame != nil { shown += 1 }
            return shown < 21 && !Task.isCancelled
        }
        player.shutdown()
        #expect(ticks.map(\.index) == Array(0..<ticks.count), "one tick per slot, none skipped in the numbering")
        for (a, b) in zip(ticks, ticks.dropFirst()) { #expect(b.time > a.time, "ticks in time order") }
        let frames = ticks.compactMap(\.animationFrame)
        #expect(frames.count == 21, "frames once the device reported positions")
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0 <= $1 }, "never backwards in forward play")
        #expect((frames.last ?? 0) > (frames.first ?? 0))
        for tick in ticks {
            if let ms = tick.contentMilliseconds, let frame = tick.animationFrame {
                #expect(abs(frame - ms / 1000 * 30) < 1e-9)
            }
        }
    }
}
