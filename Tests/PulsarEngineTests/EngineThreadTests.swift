import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// The engine with its real-time thread, driven from four threads at once: voices made (beyond
/// the limit of 64, so some are stolen), commanded, changed live and ramped, while the control
/// thread polls. Run under ThreadSanitizer by `make test`.
@Suite struct EngineThreadTests {
    @Test("Four threads make, command, change and ramp 64 voices at once: every accepted operation is applied, once, in effective-frame order",
          .timeLimit(.minutes(5)))
    func fourProducersSixtyFourVoices() throws {
        // One mixer for every voice: the real-time thread renders them one after another.
        let shared = SharedMixer(try steadyMixer(milliseconds: 1500))
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let engine = try HapticEngine(device: device, sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 128, bufferFrames: 512,
                                      voiceLimit: 64)
        engine.start()
        let accepted = Counter(), made = Counter()
        let threads = (0..<4).map { index in
            Thread {
                for k in 0..<120 {
                    let voices = engine.activeVoices
                    if k % 4 == 0 || voices.isEmpty {
                        if let voice = try? engine.makeVoice(shared.mixer, priority: k % 3) {
                            made.add()
                            accepted.add()
                            if voice.play() { accepted.add() }
                        }
                        continue
                    }
                    let voice = voices[(index * 31 + k) % voices.count]
                    let ok: Bool
                    switch (index + k) % 6 {
                    case 0: ok = voice.pause()
                    case 1: ok = voice.resume()
                    case 2: ok = voice.seek(toMs: Double(k * 7 % 1500))
                    case 3: ok = (try? voice.adjust { $0.hapticOffset = Double(k % 20); $0.loopCount = 1 + k % 2 }) != nil
                    case 4: ok = voice.setIntensity(Double(k % 5) / 4, over: 0.01)
                    default: ok = engine.setMasterHapticGain(0.5 + Double(k % 3) / 4)
                    }
                    if ok { accepted.add() }
                    usleep(300)
                }
            }
        }
        threads.forEach { $0.start() }
        Poll.until {
            engine.poll()
            return threads.allSatisfy { $0.isFinished } && !engine.hasPendingCommands
        }
        engine.shutdown()
        engine.poll()
        #expect(engine.failure == nil)
        #expect(engine.droppedCommands == 0, "no accepted command reached a voice that had left")
        let commands = engine.loggedEvents.filter { if case .command = $0 { return true } else { return false } }
        let steals = commands.filter { if case .command(.steal, _, _, _, _) = $0 { return true } else { return false } }.count
        let attaches = commands.filter { if case .command(.attach, _, _, _, _) = $0 { return true } else { return false } }.count
        #expect(made.value > 64, "more voices than the limit were made: \(made.value)")
        #expect(attaches == made.value)
        #expect(steals > 0, "the limit was passed: \(steals) steals")
        #expect(commands.count == accepted.value + steals, "every accepted operation was applied once: \(commands.count) logged, \(accepted.value) accepted, \(steals) steals")
        var last: StreamFrame = -1
        var ordered = true
        for case let .command(_, _, _, effective, _) in commands {
            if effective < last { ordered = false }
            last = max(last, effective)
        }
        #expect(ordered, "effective frames never go back")
    }
}

/// A mixer handed to the producer threads, which only make voices of it.
final class SharedMixer: @unchecked Sendable {
    let mixer: PresetMixer
    init(_ mixer: PresetMixer) { self.mixer = mixer }
}
