import Foundation
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Synchronization
import Testing

/// Live changes are transactions: each is built from the generation it replaces and installed
/// only while that generation is still the newest, so changes made at once from several threads
/// all stand; a change that cannot be queued leaves nothing behind.
@Suite struct LiveChangeTransactionTests {
    /// What thread `field` sets in round `round`, and the value it leaves last.
    static func edit(field: Int, round: Int) -> (inout LiveMix) -> Void {
        switch field {
        case 0: return { $0.loopCount = 1_000 + round }
        case 1: return { $0.hapticOffset = Double(round % 50) }
        case 2: return { $0.audioGain = Double(round) / 1000 }
        default: return { $0.hapticsEnabled = round % 2 == 0 }
        }
    }

    @Test("Four threads each change a different field of one playing player, 1 000 rounds: the final mix has every thread's last value, and the device stream equals the replay of the log",
          .timeLimit(.minutes(10)))
    func concurrentFieldsAllStand() throws {
        let rounds = 1_000
        let mixer = try steadyMixer(milliseconds: 300)
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.recordingCapacity = 48_000 * 600
        let device = SimulatedDevice(clock: SystemMonotonicClock(), behaviour: behaviour)
        let player = try HapticPlayer(mixer: mixer, device: device, periodFrames: 256, bufferFrames: 1024)
        try player.setLoop(true, count: 1_000)
        player.start()
        player.play()
        let finished = Atomic<Int>(0)
        let failures = Locked<[String]>([])
        let workers: [Thread] = (0..<4).map { (field: Int) -> Thread in
            Thread {
                for round in 0..<rounds {
                    while true {
                        do throws(LiveChangeError) {
                            try player.adjust(Self.edit(field: field, round: round))
                            break
                        } catch .busy {
                            usleep(100)  // the control thread retires generations as it polls
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                            break
                        }
                    }
                }
                finished.add(1, ordering: .releasing)
            }
        }
        workers.forEach { $0.start() }
        while finished.load(ordering: .acquiring) < workers.count || player.hasPendingCommands {
            player.poll()
            usleep(500)
        }
        player.shutdown()
        player.poll()
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(player.failure == nil)

        let final = player.mixer.live
        #expect(final.loopCount == 1_000 + rounds - 1)
        #expect(final.hapticOffset == Double((rounds - 1) % 50))
        #expect(final.audioGain == Double(rounds - 1) / 1000)
        #expect(final.hapticsEnabled == ((rounds - 1) % 2 == 0))
        let changes = player.loggedEvents.compactMap { event -> MixChange? in
            if case .command(.mix(let change), _, _, _, _) = event { return change }
            return nil
        }
        #expect(changes.count == 4 * rounds + 1, "every change (and the first loop setting) reached the real-time thread")
        #expect(changes.last?.mix == final)

        let replay = Replay(events: player.loggedEvents)
        #expect(replay.eventsLost == 0)
        let frames = device.recording.count
        let replayed = try replay.deviceStream(frames: frames, renderer: try replay.renderer(base: mixer))
        let firstDifference = zip(device.recording, replayed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(frames > 0)
        #expect(firstDifference == nil, "first difference at sample \(firstDifference ?? -1) of \(frames)")
    }

    @Test("A change the queue cannot take is thrown as busy and leaves the newest mixer as it was; the next change builds on what the real-time thread has")
    func refusedChangeLeavesNothingBehind() throws {
        let mixer = try steadyMixer(milliseconds: 300)
        let player = try HapticPlayer(mixer: mixer, device: SimulatedDevice(clock: ManualClock()), periodFrames: 256,
                                      bufferFrames: 1024)
        // Not started: nothing drains the command queue, which holds 256.
        var accepted = 0
        while player.send(.pause) { accepted += 1 }
        #expect(accepted == 256)
        let before = player.mixer
        #expect(throws: LiveChangeError.self) { try player.setHapticOffset(25) }
        #expect(player.mixer === before, "the refused generation is taken back")
        #expect(player.hapticOffset == 0)

        // Drain the queue: the next change is built from the first mixer, not the refused one.
        try player.step()
        player.poll()
        try player.setHapticsEnabled(false)
        #expect(player.mixer.live == LiveMix(hapticsEnabled: false))
        try player.step()
        player.poll()
        let changes = player.loggedEvents.compactMap { event -> MixChange? in
            if case .command(.mix(let change), _, _, _, _) = event { return change }
            return nil
        }
        #expect(changes.map(\.generation) == [1], "generation 1 is the accepted change; the refused one left no number behind")
        #expect(changes.first?.mix.hapticOffset == 0)
    }

    @Test("Too many changes in flight is busy, not a silent false, and the mixer refusing a value is a typed refusal")
    func busyAndRefusedAreTyped() throws {
        let player = try HapticPlayer(mixer: try steadyMixer(milliseconds: 300), device: SimulatedDevice(clock: ManualClock()))
        var made = 0
        var outcome: LiveChangeError?
        while outcome == nil {
            do {
                try player.setHapticOffset(Double(made + 1))
                made += 1
            } catch {
                outcome = error
            }
        }
        guard case .busy = outcome else {
            Issue.record("expected busy, got \(String(describing: outcome))")
            return
        }
        #expect(made == 15, "a table of 16 holds the running generation and 15 in flight")
        #expect(player.hapticOffset == 15)
        try player.step()
        player.poll()
        do {
            try player.adjust { $0.hapticGain = .nan }
            Issue.record("a NaN gain was accepted")
        } catch {
            guard case .refused = error else {
                Issue.record("expected refused, got \(error)")
                return
            }
        }
    }
}
