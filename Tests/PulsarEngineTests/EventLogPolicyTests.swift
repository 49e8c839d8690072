import Foundation
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// `keepsEventLog`: an engine that writes no log keeps no events (bounded memory for a session
/// of any length) and still plays, completes and counts as one that keeps them.
@Suite struct EventLogPolicyTests {
    /// Plays two short voices with a pause and a resume each, to their ends; returns the events
    /// kept, the completions seen and the frames the device recorded.
    func session(keeping: Bool) throws -> (logged: [EngineEvent], completions: [Bool], recorded: Int) {
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = 48_000 * 10
        let device = SimulatedDevice(clock: SystemMonotonicClock(), behaviour: behaviour)
        let engine = try HapticEngine(device: device, sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 128, bufferFrames: 512,
                                      voiceLimit: 4)
        engine.keepsEventLog = keeping
        engine.start()
        var completions: [Bool] = []
        for id in ["a", "b"] {
            let voice = try engine.makeVoice(try steadyMixer(milliseconds: 60, id: id))
            voice.completion = { completions.append($0) }
            #expect(voice.play() && voice.pause() && voice.resume())
        }
        Poll.until {
            engine.poll()
            return completions.count == 2 && !engine.hasPendingCommands
        }
        engine.shutdown()
        engine.poll()
        #expect(engine.failure == nil)
        return (engine.loggedEvents, completions, device.recording.count)
    }

    @Test("Without a log the engine keeps no events, and the voices still play to their ends; with one it keeps every command",
          .timeLimit(.minutes(3)))
    func noLogKeepsNothing() throws {
        let without = try session(keeping: false)
        #expect(without.logged.isEmpty, "\(without.logged.count) events kept")
        #expect(without.completions == [true, true], "both voices finished")
        #expect(without.recorded >= 2880, "60 ms at 48 kHz played: \(without.recorded) frames")
        let with = try session(keeping: true)
        let commands = with.logged.filter { if case .command = $0 { return true } else { return false } }
        // Each voice: attach, play, pause, resume.
        #expect(commands.count >= 8, "\(commands.count) commands logged")
        #expect(with.completions == [true, true])
    }
}
