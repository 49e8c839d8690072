import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Testing

/// A command sent to a voice between its leaving the mix (the real-time thread's decision) and
/// the control thread's learning of it (`poll`): the command is either refused, or applied with
/// the voice kept — never accepted and then dropped, which left `hasPendingCommands` true for
/// ever (a `pulsar play` that never ends) and broke "every accepted command is applied".
@Suite struct VoiceLeavingTests {
    /// An engine on a driven clock with one 20 ms voice played; stepped past its end without
    /// polling, so the control thread has not yet seen it leave.
    static func endedUnpolled() throws -> (HapticEngine, HapticVoice, ManualClock) {
        let clock = ManualClock()
        let engine = try HapticEngine(device: SimulatedDevice(clock: clock), sampleRate: SampleRate(48_000)!, channels: 1,
                                      monotonic: clock, voiceLimit: 4)
        let voice = try engine.makeVoice(try steadyMixer(milliseconds: 20))
        #expect(voice.play())
        for _ in 0..<40 {
            try engine.step()
            clock.advance(seconds: 256.0 / 48_000)
        }
        return (engine, voice, clock)
    }

    @Test("A voice that left on its own: a command sent before the poll is refused, and nothing stays pending")
    func commandAfterLeaving() throws {
        let (engine, voice, clock) = try Self.endedUnpolled()
        // The voice has left the mix, which the control thread does not know yet.
        #expect(!voice.hasEnded)
        let sent = voice.pause()
        for _ in 0..<4 {
            try engine.step()
            engine.poll()
            clock.advance(seconds: 256.0 / 48_000)
        }
        #expect(!sent, "the voice had left: the command is refused, not queued to be dropped")
        #expect(voice.hasEnded)
        #expect(!engine.hasPendingCommands)
        #expect(engine.droppedCommands == 0)
    }

    @Test("A command in flight keeps an ended voice from leaving until it is applied: play again, and it plays")
    func commandBeforeLeaving() throws {
        let clock = ManualClock()
        let engine = try HapticEngine(device: SimulatedDevice(clock: clock), sampleRate: SampleRate(48_000)!, channels: 1,
                                      monotonic: clock, voiceLimit: 4)
        let voice = try engine.makeVoice(try steadyMixer(milliseconds: 20))
        #expect(voice.play())
        // Up to the step where the voice would leave, a play sent each step before it is taken.
        var replays = 0
        for _ in 0..<40 {
            if voice.play() { replays += 1 }
            try engine.step()
            clock.advance(seconds: 256.0 / 48_000)
        }
        engine.poll()
        let plays = engine.loggedEvents.filter { if case .command(.play, _, _, _, _) = $0 { return true } else { return false } }
        #expect(plays.count == replays + 1, "every accepted play was applied: \(plays.count) logged, \(replays + 1) accepted")
        #expect(engine.droppedCommands == 0)
        #expect(!engine.hasPendingCommands)
    }
}
