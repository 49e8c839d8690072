import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// The live player with its real-time thread, commanded from four threads at once.
@Suite struct HapticPlayerThreadTests {
    @Test("Four threads fire commands and live mix changes at one playing player: every accepted one is applied, in effective-frame order",
          .timeLimit(.minutes(5)))
    func fourProducers() throws {
        let mixer = try steadyMixer(milliseconds: 2000)
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let player = try HapticPlayer(mixer: mixer, device: device, periodFrames: 128, bufferFrames: 512)
        player.start()
        player.play()
        let accepted = Counter()
        let threads = (0..<4).map { index in
            Thread {
                for k in 0..<200 {
                    let ok: Bool
                    switch (index + k) % 5 {
                    case 0: ok = player.send(.pause)
                    case 4: ok = (try? player.adjust { $0.loopCount = 1 + k % 3; $0.hapticOffset = Double(k % 20) }) != nil
                    case 1: ok = player.send(.resume)
                    case 2: ok = player.send(.seek(toTimelineFrame: TimelineFrame(FrameIndex(k * 100))))
                    default: ok = player.send(.play(fromTimelineFrame: TimelineFrame(FrameIndex(k))))
                    }
                    if ok { accepted.add() }
                    usleep(200)
                }
            }
        }
        threads.forEach { $0.start() }
        var commands: [EngineEvent] = []
        // Until every producer is done and every accepted command applied, however slow the
        // machine (ThreadSanitizer included); the time limit ends a command that never comes.
        Poll.until {
            player.poll()
            commands = player.loggedEvents.filter { if case .command = $0 { return true } else { return false } }
            return threads.allSatisfy { $0.isFinished } && commands.count >= accepted.value + 1
        }
        player.shutdown()
        player.poll()
        commands = player.loggedEvents.filter { if case .command = $0 { return true } else { return false } }
        #expect(player.failure == nil)
        #expect(accepted.value >= 255, "the queue holds 256: at least that many pushes succeed however slow the consumer")
        #expect(commands.count == accepted.value + 1, "every accepted command (and the first play) was applied")
        let changes = commands.filter { if case .command(.mix, _, _, _, _) = $0 { return true } else { return false } }
        #expect(changes.count > 10, "live mix changes crossed too: \(changes.count)")
        var last: StreamFrame = -1
        for case let .command(_, _, _, effective, _) in commands {
            #expect(effective >= last)
            last = effective
        }
    }
}

/// A thread-safe counter for the producers.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
