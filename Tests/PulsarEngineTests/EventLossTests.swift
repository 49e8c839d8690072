import Foundation
import PulsarAudio
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import Testing

/// Nothing the real-time thread reports is dropped in silence: a full event queue is counted
/// and the count reported as soon as there is room; a render failure is an event, and the replay
/// plays silence where the device did.
@Suite struct EventLossTests {
    static func core(eventCapacity: Int) throws -> (EngineCore, ManualClock) {
        let clock = ManualClock()
        let device = SimulatedDevice(clock: clock)
        let core = try EngineCore(renderer: TransportRenderer(mixer: try steadyMixer(milliseconds: 2_000)), device: device,
                                  clock: clock, configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1,
                                                                                    periodFrames: 256, bufferFrames: 1024),
                                  eventCapacity: eventCapacity)
        return (core, clock)
    }

    @Test("A full event queue counts what it refuses and reports the count first when it has room")
    func overflowIsReported() throws {
        let (core, clock) = try Self.core(eventCapacity: 4)
        #expect(core.events.capacity == 4)
        // Each step reports one position; nobody drains for ten steps: 4 fit, 6 are refused.
        for _ in 0..<10 {
            try core.step()
            clock.advance(seconds: 256.0 / 48_000)
        }
        var drained: [EngineEvent] = []
        while let e = core.events.pop() { drained.append(e) }
        #expect(drained.count == 4)
        #expect(drained.allSatisfy { if case .position = $0 { return true } else { return false } })
        try core.step()
        let next = [core.events.pop(), core.events.pop(), core.events.pop()]
        #expect(next[0] == .eventsLost(count: 6))
        if case .position? = next[1] {} else { Issue.record("the step's own position follows the count: \(String(describing: next[1]))") }
        #expect(next[2] == nil)
    }

    @Test("Commands whose reports the full queue refused are not waited for: 70 000 seeks taken with no poll between them end",
          .timeLimit(.minutes(10)))
    func lostCommandReportsAreNotPending() throws {
        let clock = ManualClock()
        let engine = try HapticEngine(device: SimulatedDevice(clock: clock), sampleRate: SampleRate(48_000)!, channels: 1,
                                      monotonic: clock, periodFrames: 256, bufferFrames: 1024, voiceLimit: 2)
        let voice = try engine.makeVoice(try steadyMixer(milliseconds: 2_000))
        #expect(voice.play())
        // As a real-time thread draining the command queue as fast as a script fills it: 200
        // seeks a step, never a poll, 350 steps — more command reports than the event queue holds.
        for _ in 0..<350 {
            for _ in 0..<200 { #expect(voice.seek(toMs: 0)) }
            try engine.step()
            clock.advance(seconds: 256.0 / 48_000)
        }
        engine.poll()
        #expect(!engine.hasPendingCommands, "every command was taken; none is still awaited")
        try engine.step()  // reports the count of what the queue refused, now that it has room
        engine.poll()
        #expect(engine.eventsLost > 0, "the queue of 65 536 overflowed")
        #expect(!engine.hasPendingCommands)
    }

    @Test("A log that lost events says so in its text, and the replay counts them")
    func lossIsLogged() throws {
        let header = EngineLog.Header(input: "p.json", preset: nil, layout: "haptic", sampleRate: 48_000, profile: "wideband")
        let text = EngineLog.text(header: header, events: [.eventsLost(count: 7), .renderFailed(voice: 0, from: 100, to: 356)],
                                  playedFrames: 1_000)
        #expect(text.contains(#""event": "eventsLost""#) && text.contains(#""count": 7"#))
        let parsed = try EngineLog.parse(text)
        #expect(parsed.events == [.eventsLost(count: 7), .renderFailed(voice: 0, from: 100, to: 356)])
        let replay = Replay(events: parsed.events)
        #expect(replay.eventsLost == 7)
        #expect(replay.silenced == [100..<356])
    }

    @Test("Where the device played silence for a failed render, the replay is silent too, and nowhere else")
    func replaySilencesFailedRenders() throws {
        let mixer = try steadyMixer(milliseconds: 100)
        let play = EngineEvent.command(.play(fromTimelineFrame: 0), voice: 0, requestTime: MonotonicTime(nanoseconds: 0), effectiveFrame: 0,
                                       state: TransportState(mode: .playing, timelineFrame: 0, anchor: 0, mix: 0))
        let clean = Replay(events: [play])
        let failed = Replay(events: [play, .renderFailed(voice: 0, from: 1_000, to: 1_500)])
        let a = try clean.deviceStream(frames: 4_000, renderer: try clean.renderer(base: mixer))
        let b = try failed.deviceStream(frames: 4_000, renderer: try failed.renderer(base: mixer))
        #expect(b[1_000..<1_500].allSatisfy { $0 == 0 })
        #expect(a[1_000..<1_500].contains { $0 != 0 }, "the clean render sounds there")
        #expect(Array(a[0..<1_000]) == Array(b[0..<1_000]) && Array(a[1_500...]) == Array(b[1_500...]))
    }
}
