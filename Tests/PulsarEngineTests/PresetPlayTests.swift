import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@testable import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Synchronization
import Testing

/// Pulsar's `preset.play()` / `preset.stop()` on a paced simulated device. Serialized: the
/// joining test counts the process's play threads.
@Suite(.serialized) struct PresetPlayTests {
    /// Distinct ids: `stop()` stops every play of an id, and the tests run in parallel.
    static func preset(ms: Double, id: String) -> PresetHandle {
        PresetHandle(id: id, name: "Tap", duration: 0, pattern: PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: ms, value: 0.5)])))
    }

    final class Outcome: Sendable {
        let value = Mutex<Bool?>(nil)
    }

    /// Waits for the completion (no wall-clock bound: the test's time limit ends a hang).
    static func wait(_ outcome: Outcome) -> Bool? {
        var value: Bool?
        Poll.until { value = outcome.value.withLock { $0 }; return value != nil }
        return value
    }

    @Test("play() runs to the end and calls completion(true) once the last sample has played", .timeLimit(.minutes(10)))
    func playsToTheEnd() throws {
        let outcome = Outcome()
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let started = Date()
        let player = try Self.preset(ms: 200, id: "toEnd").play(on: device, settings: MixSettings(layout: .haptic)) { finished in
            outcome.value.withLock { $0 = finished }
        }
        #expect(Self.wait(outcome) == true)
        // A lower bound only: a busy machine makes the play later, never earlier.
        #expect(Date().timeIntervalSince(started) >= 0.19, "not before 200 ms of content were played")
        #expect(player.durationMs == 208, "the 200 ms pattern and the 8 ms its carrier takes to fall")
    }

    @Test("stop() ends a play of the preset with completion(false)", .timeLimit(.minutes(10)))
    func stops() throws {
        let outcome = Outcome()
        let preset = Self.preset(ms: 5_000, id: "stopped")
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        try preset.play(on: device, settings: MixSettings(layout: .haptic)) { finished in
            outcome.value.withLock { $0 = finished }
        }
        // Mid-play (the pattern lasts 5 s; on a busy machine the stop only comes earlier in it).
        usleep(100_000)
        preset.stop()
        #expect(Self.wait(outcome) == false)
        #expect(Self.playThreads() == 0, "stop() joined the play's thread")
    }

    /// Threads of this process named as a preset's play thread is.
    static func playThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("pulsar-preset") == true }.count
    }

    @Test("Every play's thread is joined: plays that ended by the next play, all by joinAllPlays, one stopping itself from its completion too", .timeLimit(.minutes(10)))
    func threadsJoined() throws {
        PresetHandle.joinAllPlays()  // whatever the suite's other tests left
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let first = Outcome(), second = Outcome(), third = Outcome()
        try Self.preset(ms: 50, id: "joinedA").play(on: device, settings: MixSettings(layout: .haptic)) { f in first.value.withLock { $0 = f } }
        #expect(Self.wait(first) == true)
        #expect(PresetPlays.shared.count == 1, "an ended play waits to be joined")
        let looping = Self.preset(ms: 5_000, id: "joinedB")
        // Its completion stops its own preset: on its own thread, which must not join itself.
        try looping.play(on: SimulatedDevice(clock: SystemMonotonicClock()), settings: MixSettings(layout: .haptic)) { f in
            second.value.withLock { $0 = f }
            looping.stop()
        }
        try Self.preset(ms: 50, id: "joinedC").play(on: SimulatedDevice(clock: SystemMonotonicClock()), settings: MixSettings(layout: .haptic)) { f in
            third.value.withLock { $0 = f }
        }
        #expect(Self.wait(third) == true)
        #expect(Self.playThreads() >= 1, "the 5 s play is still on its thread")
        looping.stop()
        #expect(Self.wait(second) == false)
        #expect(PresetPlays.shared.count >= 1)
        PresetHandle.joinAllPlays()
        #expect(Self.playThreads() == 0 && PresetPlays.shared.count == 0)
    }
}

/// A device that disappears mid-play.
@Suite struct DisconnectTests {
    @Test("An unplugged device stops the player: a clear error and completion(false)", .timeLimit(.minutes(10)))
    func unplugged() throws {
        let mixer = try steadyMixer(milliseconds: 5_000, id: "u")
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let player = try HapticPlayer(mixer: mixer, device: device)
        var outcome: Bool?
        player.completion = { outcome = $0 }
        player.start()
        player.play()
        // Unplugged while playing: once the player's clock reports content heard.
        Poll.until { player.poll(); return (player.streamFrame(at: player.now()) ?? 0) > 0 }
        device.disconnect()
        // The player notices by itself (the 5 s pattern would otherwise play on); how soon
        // depends on the machine's load, so the wait is on the outcome, not on the clock.
        Poll.until { player.poll(); return outcome != nil }
        #expect(outcome == false)
        #expect(player.failure == .disconnected("the simulated device was unplugged"))
        #expect(!player.isRunning)
        player.shutdown()
    }
}
