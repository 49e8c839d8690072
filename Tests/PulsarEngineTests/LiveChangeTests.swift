import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// Pause/resume fades and live loop, segment and mix changes, checked on the recording of a
/// simulated device against renders of the mixers themselves.
@Suite struct LiveChangeTests {
    /// A 500 ms haptic-only preset with a steady 0.6 amplitude (a sound that is never silent).
    static func mixer(loopCount: Int = 1, reverse: Bool = false) throws -> PresetMixer {
        let pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.6), ValuePoint(time: 500, value: 0.6)],
            frequency: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 500, value: 0.8)]))
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(loopCount: loopCount, reverse: reverse))
    }

    /// A player on a device without rewind (effective frame = write head) driven by a manual clock.
    struct Rig {
        let clock = ManualClock()
        let device: SimulatedDevice
        let player: EngineCore
        var events: [EngineEvent] = []

        init(_ mixer: PresetMixer) throws {
            var behaviour = SimulatedDevice.Behaviour()
            behaviour.canRewind = false
            behaviour.recordingCapacity = 48_000 * 10
            device = SimulatedDevice(clock: clock, behaviour: behaviour)
            player = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 256, bufferFrames: 1024))
        }

        mutating func steps(_ n: Int) throws {
            for _ in 0..<n {
                try player.step()
                while let e = player.events.pop() {
                    if case .command(_, _, _, _, let state) = e { player.renderer.mixers.retire(below: state.mix) }
                    events.append(e)
                }
                clock.advance(seconds: 256.0 / 48_000)
            }
        }

        mutating func adjust(_ edit: (inout LiveMix) -> Void) throws {
            let next = try player.renderer.mixers.newestMixer.adjusted(edit)
            let generation = try #require(player.renderer.mixers.install(next))
            player.send(.mix(MixChange(generation: generation, of: next)))
        }

        /// Effective frame and resulting state of the `k`-th logged command.
        func command(_ k: Int) -> (frame: StreamFrame, state: TransportState) {
            let all = events.compactMap { e -> (StreamFrame, TransportState)? in
                if case let .command(_, _, _, f, s) = e { return (f, s) }
                return nil
            }
            return all[k]
        }

        func render(_ mixer: PresetMixer, from frame: TimelineFrame, count: Int) throws -> [Float] {
            var out = [Float](repeating: 0, count: count)
            _ = try out.withUnsafeMutableBufferPointer { try mixer.render(into: $0, from: frame) }
            return out
        }
    }

    @Test("Pause fades out over 1 ms, is silent after, and resume fades in from the exact content frame of the pause")
    func pauseResumeFades() throws {
        let mixer = try Self.mixer()
        var rig = try Rig(mixer)
        rig.player.send(.play(fromTimelineFrame: 0))
        try rig.steps(20)
        rig.player.send(.pause)
        try rig.steps(10)
        rig.player.send(.resume)
        try rig.steps(10)
        let pause = rig.command(1), resume = rig.command(2)
        #expect(pause.state.mode == .paused && resume.state.mode == .playing)
        let t = pause.state.timelineFrame
        #expect(resume.state.timelineFrame == t, "resume continues from the content frame of the pause")
        let fade = 48
        #expect(TransportState.fadeFrames(at: SampleRate(48_000)!) == fade, "1 ms at 48 kHz, within the 2 ms allowed")
        let recording = rig.device.recording
        let content = try rig.render(mixer, from: t, count: 2000)
        let p = Int(pause.frame), r = Int(resume.frame)
        for k in 0..<fade {
            // Raised cosine, written out independently of the engine's helper.
            let down = Float(0.5 + 0.5 * cos(Double.pi * Double(k + 1) / Double(fade + 1)))
            let up = Float(0.5 - 0.5 * cos(Double.pi * Double(k + 1) / Double(fade + 1)))
            #expect(abs(recording[p + k] - content[k] * down) < 1e-7)
            #expect(abs(recording[r + k] - content[k] * up) < 1e-7)
        }
        #expect(recording[(p + fade)..<r].allSatisfy { $0 == 0 }, "silent from the end of the fade to the resume")
        #expect(Array(recording[(r + fade)..<(r + 1500)]) == Array(content[fade..<1500]), "then the content exactly")
        #expect(recording[(p - 200)..<p].contains { $0 != 0 }, "it was sounding before the pause")
    }

    @Test("cue holds paused at a frame from stopped (silent) and from playing (a 1 ms fade-out), and resume plays from exactly that frame")
    func cueHoldsAFrame() throws {
        let mixer = try Self.mixer()
        var rig = try Rig(mixer)
        rig.player.send(.cue(toTimelineFrame: 7_000))
        try rig.steps(10)
        let fromStopped = rig.command(0)
        #expect(fromStopped.state == TransportState(mode: .paused, timelineFrame: 7_000, anchor: fromStopped.frame, mix: 0, ramp: .none))
        #expect(rig.device.recording.allSatisfy { $0 == 0 }, "a cue from stopped sounds nothing")
        rig.player.send(.resume)
        try rig.steps(10)
        let resume = rig.command(1)
        #expect(resume.state.mode == .playing && resume.state.timelineFrame == 7_000)
        let content = try rig.render(mixer, from: 7_000, count: 1500)
        let r = Int(resume.frame), fade = 48
        #expect(Array(rig.device.recording[(r + fade)..<(r + 1500)]) == Array(content[fade..<1500]))

        rig.player.send(.cue(toTimelineFrame: 3_000))
        try rig.steps(20)
        let fromPlaying = rig.command(2)
        #expect(fromPlaying.state.mode == .paused && fromPlaying.state.timelineFrame == 3_000 && fromPlaying.state.ramp == .fadeOut)
        let c = Int(fromPlaying.frame)
        let target = try rig.render(mixer, from: 3_000, count: fade)
        for k in 0..<fade {
            let down = Float(0.5 + 0.5 * cos(Double.pi * Double(k + 1) / Double(fade + 1)))
            #expect(abs(rig.device.recording[c + k] - target[k] * down) < 1e-7)
        }
        #expect(rig.device.recording[(c + fade)..<(c + 2000)].allSatisfy { $0 == 0 }, "silent once the fade is over")
        let line = try #require(EngineEvent.command(.cue(toTimelineFrame: 3_000), voice: 0, requestTime: MonotonicTime(nanoseconds: 5),
                                                    effectiveFrame: 9, state: fromPlaying.state).logLine)
        #expect(line.contains("\"cue\"") && line.contains("3000"), "the log names the cue and its frame: \(line)")
    }

    @Test("A mix change in the middle of a pause's or a resume's fade carries the fade on: the samples equal those without the change")
    func mixChangeDuringFades() throws {
        let mixer = try Self.mixer()
        let looped = try mixer.adjusted({ $0.loopCount = 3 })
        let table = MixerTable(base: mixer)
        let generation = try #require(table.install(looped))
        let renderer = TransportRenderer(mixers: table)
        let fade = TransportState.fadeFrames(at: SampleRate(48_000)!)
        for ramp in [TransportState.Ramp.fadeOut, .fadeIn] {
            let mode: TransportState.Mode = ramp == .fadeOut ? .paused : .playing
            let old = TransportState(mode: mode, timelineFrame: 5_000, anchor: 1_000, ramp: ramp)
            for into in [0, 1, 20, fade - 1, fade] {
                let at = StreamFrame(FrameIndex(1_000 + into))
                let switched = old.switching(to: generation, from: mixer.timeline, to: looped.timeline, atStreamFrame: at, fadeLength: fade)
                #expect(switched.ramp == (into < fade ? ramp : .none) && switched.rampOffset == (into < fade ? into : 0))
                // Stream frames from the switch to well past the fade: with the change, and without it.
                var with = [Float](repeating: 0, count: 200), without = [Float](repeating: 0, count: 200)
                try with.withUnsafeMutableBufferPointer { try renderer.render(switched, into: $0, fromStreamFrame: at) }
                try without.withUnsafeMutableBufferPointer { try renderer.render(old, into: $0, fromStreamFrame: at) }
                #expect(with == without, "\(ramp) switched \(into) frames into the fade")
            }
        }
        // Before this, a pause and a mix change taking effect at the same frame dropped the fade:
        // the pause cut straight to silence.
        var rig = try Rig(mixer)
        rig.player.send(.play(fromTimelineFrame: 0))
        try rig.steps(20)
        rig.player.send(.pause)
        try rig.adjust({ $0.loopCount = 2 })
        try rig.steps(10)
        let pause = rig.command(1), change = rig.command(2)
        #expect(change.frame == pause.frame && change.state.ramp == .fadeOut && change.state.rampOffset == 0)
        let content = try rig.render(mixer, from: pause.state.timelineFrame, count: fade)
        let p = Int(pause.frame)
        for k in 0..<fade {
            let down = Float(0.5 + 0.5 * cos(Double.pi * Double(k + 1) / Double(fade + 1)))
            #expect(abs(rig.device.recording[p + k] - content[k] * down) < 1e-7)
        }
        #expect(rig.device.recording[(p + fade)..<(p + 1_000)].allSatisfy { $0 == 0 })
    }

    @Test("Loop changes while playing continue the content being heard, and the last iteration ends with completion(true)")
    func loopChanges() throws {
        let mixer = try Self.mixer()
        let length = mixer.timeline.segmentLength
        var rig = try Rig(mixer)
        rig.player.send(.play(fromTimelineFrame: 0))
        try rig.steps(20)
        try rig.adjust({ $0.loopCount = 3; $0.reverse = true })
        try rig.steps(2)
        let change = rig.command(1)
        #expect(change.state.mix == 1)
        #expect(change.state.timelineFrame.index == change.frame.index, "first iteration: the same frame on the new timeline")
        // Through iteration 1 (backwards) into iteration 2, then `loop off`: iteration 2 is the last.
        let intoThird = Int((2 * length - change.frame.index) / 256) + 20
        try rig.steps(intoThird)
        try rig.adjust({ $0.loopCount = 1 })
        try rig.steps(Int(length / 256) + 20)
        let off = rig.command(2)
        let oldFrame = change.state.timelineFrame + (off.frame - change.frame)
        #expect(oldFrame.index / length == 2, "the change came in the third iteration (forward again)")
        #expect(off.state.timelineFrame == oldFrame - 2 * length, "one iteration now, at the same content frame")
        let completions = rig.events.compactMap { e -> (Bool, StreamFrame)? in
            if case let .completion(_, f, at) = e { return (f, at) }
            return nil
        }
        #expect(completions.count == 1)
        #expect(completions.first?.0 == true)
        #expect(completions.first?.1 == off.frame + (TimelineFrame(length) - off.state.timelineFrame), "at the end of the iteration that was playing")
        // The recording equals the replay, and the backwards iteration really ran backwards.
        let replay = Replay(events: rig.events)
        let frames = rig.device.recording.count
        let replayed = try replay.deviceStream(frames: frames, renderer: try replay.renderer(base: mixer))
        #expect(replayed == rig.device.recording)
        let boomerang = try Self.mixer(loopCount: 3, reverse: true)
        let heardInSecond = try rig.render(boomerang, from: TimelineFrame(length + 100), count: 500)
        let start = Int(change.frame.index - change.state.timelineFrame.index + length + 100)
        #expect(Array(rig.device.recording[start..<(start + 500)]) == heardInSecond)
    }

    @Test("An endless loop never completes; stop ends it with completion(false)")
    func endless() throws {
        let mixer = try Self.mixer()
        var rig = try Rig(mixer)
        rig.player.send(.play(fromTimelineFrame: 0))
        try rig.adjust({ $0.loopCount = PlaybackTimeline.endless })
        try rig.steps(Int(mixer.timeline.segmentLength / 256) * 5)
        #expect(!rig.events.contains { if case .completion = $0 { return true } else { return false } })
        #expect(rig.player.state.mode == .playing)
        rig.player.send(.stop)
        try rig.steps(2)
        #expect(rig.events.contains { if case .completion(_, false, _) = $0 { return true } else { return false } })
    }

    @Test("Haptic gain and haptics off switch at the effective frame; what played before is untouched")
    func mixSwitches() throws {
        let mixer = try Self.mixer()
        var rig = try Rig(mixer)
        rig.player.send(.play(fromTimelineFrame: 0))
        try rig.steps(10)
        try rig.adjust({ $0.hapticGain = 0.5 })
        try rig.steps(10)
        try rig.adjust({ $0.hapticsEnabled = false })
        try rig.steps(20)
        let half = rig.command(1), off = rig.command(2)
        let recording = rig.device.recording
        let full = try rig.render(mixer, from: 0, count: Int(off.frame) + 256)
        #expect(Array(recording[0..<Int(half.frame)]) == Array(full[0..<Int(half.frame)]))
        let quieter = try rig.render(try mixer.adjusted({ $0.hapticGain = 0.5 }), from: half.state.timelineFrame,
                                     count: Int(off.frame - half.frame))
        #expect(Array(recording[Int(half.frame)..<Int(off.frame)]) == quieter)
        #expect(recording.count > Int(off.frame) + 2000)
        #expect(recording[Int(off.frame)..<min(recording.count, Int(off.frame) + 2000)].allSatisfy { $0 == 0 }, "haptics off: the haptic channel is silent")
    }

    @Test("The clock follows a loop change: continuous content across the switch, running backwards in a reverse iteration")
    func clockAcrossChanges() throws {
        let mixer = try Self.mixer()
        var rig = try Rig(mixer)
        rig.player.send(.play(fromTimelineFrame: 0))
        try rig.steps(10)
        let next = try rig.player.renderer.mixers.newestMixer.adjusted({ $0.loopCount = 2; $0.reverse = true })
        var clock = PlaybackClock(timeline: mixer.timeline, sampleRate: SampleRate(48_000)!, durationMilliseconds: mixer.durationMilliseconds)
        clock.register(next.timeline, generation: 1)
        let generation = try #require(rig.player.renderer.mixers.install(next))
        rig.player.send(.mix(MixChange(generation: generation, of: next)))
        try rig.steps(Int(mixer.timeline.segmentLength / 256) + 10)
        for e in rig.events { clock.observe(e) }
        let change = rig.command(1)
        let before = clock.contentFrame(atStreamFrame: Double(change.frame) - 0.5)
        let after = clock.contentFrame(atStreamFrame: Double(change.frame) + 0.5)
        #expect(abs(after - before - 1) < 1e-9, "no jump at the switch")
        // In the second (backwards) iteration the content runs down.
        let secondStart = Double(change.frame.index - change.state.timelineFrame.index + mixer.timeline.segmentLength)
        let a = clock.contentFrame(atStreamFrame: secondStart + 100), b = clock.contentFrame(atStreamFrame: secondStart + 200)
        #expect(abs((a - b) - 100) < 1e-9, "runs backwards: \(a) → \(b)")
    }
}
