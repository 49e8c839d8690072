import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Synchronization
import Testing

/// Pulsar's `preset.play()` / `preset.stop()` on a paced simulated device.
@Suite struct PresetPlayTests {
    /// Distinct ids: `stop()` stops every play of an id, and the tests run in parallel.
    static func preset(ms: Double, id: String) -> PresetHandle {
        PresetHandle(id: id, name: "Tap", duration: 0, pattern: PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: ms, value: 0.5)])))
    }

    final class Outcome: Sendable {
        let value = Mutex<Bool?>(nil)
    }

    static func wait(_ outcome: Outcome, seconds: Double) -> Bool? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let v = outcome.value.withLock({ $0 }) { return v }
            usleep(5_000)
        }
        return nil
    }

    @Test("play() runs to the end and calls completion(true) once the last sample has played")
    func playsToTheEnd() throws {
        let outcome = Outcome()
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let started = Date()
        let player = try Self.preset(ms: 200, id: "toEnd").play(on: device, settings: MixSettings(layout: .haptic)) { finished in
            outcome.value.withLock { $0 = finished }
        }
        #expect(Self.wait(outcome, seconds: 5) == true)
        #expect(Date().timeIntervalSince(started) >= 0.19, "not before 200 ms of content were played")
        #expect(player.durationMs == 208, "the 200 ms pattern and the 8 ms its carrier takes to fall")
    }

    @Test("stop() ends a play of the preset with completion(false)")
    func stops() throws {
        let outcome = Outcome()
        let preset = Self.preset(ms: 5_000, id: "stopped")
        try preset.play(on: SimulatedDevice(clock: SystemMonotonicClock()), settings: MixSettings(layout: .haptic)) { finished in
            outcome.value.withLock { $0 = finished }
        }
        usleep(100_000)
        preset.stop()
        #expect(Self.wait(outcome, seconds: 3) == false)
    }
}

/// A device that disappears mid-play.
@Suite struct DisconnectTests {
    @Test("An unplugged device stops the player within a second: a clear error and completion(false)")
    func unplugged() throws {
        let mixer = try steadyMixer(milliseconds: 5_000, id: "u")
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let player = try HapticPlayer(mixer: mixer, device: device)
        var outcome: Bool?
        player.completion = { outcome = $0 }
        player.start()
        player.play()
        usleep(100_000)
        device.disconnect()
        let unplugged = Date()
        while outcome == nil, Date().timeIntervalSince(unplugged) < 2 {
            player.poll()
            usleep(2_000)
        }
        #expect(Date().timeIntervalSince(unplugged) < 1)
        #expect(outcome == false)
        #expect(player.failure == .disconnected("the simulated device was unplugged"))
        #expect(!player.isRunning)
        player.shutdown()
    }
}
