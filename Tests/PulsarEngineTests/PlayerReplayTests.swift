import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation
import PulsarTestSupport
import Testing

/// The player on the simulated device against the replay of its event log: what the device
/// actually played equals the offline render of the logged transport, sample for sample.
@Suite struct PlayerReplayTests {
    static func mixer(layout: ChannelLayout = .stereoHaptic, startsBackwards: Bool = false) throws -> PresetMixer {
        let pattern = PatternData(
            continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 900, value: 0.6)],
                                                 frequency: [ValuePoint(time: 0, value: 0.1), ValuePoint(time: 900, value: 0.9)]),
            discretePattern: stride(from: 50.0, to: 900, by: 70).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.7) })
        var settings = MixSettings(layout: layout)
        settings.preloadAudio = true
        return try PresetMixer(preset: PresetHandle(id: "p", name: "P", duration: 0, pattern: pattern), settings: settings,
                               range: PlaybackRange(loopCount: 2, reverse: true, startsBackwards: startsBackwards))
    }

    /// A random live change: loop count (endless too), boomerang, segment and its direction,
    /// haptic offset, haptics on/off and both gains.
    static func randomAdjustment(_ rng: inout SplitMix64, of base: LiveMix) -> LiveMix {
        var a = base
        switch Int(rng.unit() * 6) {
        case 0:
            let counts = [1, 2, 3, PlaybackTimeline.endless]
            a.loopCount = counts[Int(rng.unit() * Double(counts.count))]
            a.reverse = rng.unit() < 0.5
        case 1:
            let from = (rng.unit() * 600).rounded()
            a.from = rng.unit() < 0.3 ? nil : from
            a.to = rng.unit() < 0.3 ? nil : from + 20 + (rng.unit() * 250).rounded()
            a.startsBackwards = rng.unit() < 0.5
        case 2: a.hapticOffset = (rng.unit() * 100 - 50).rounded()
        case 3: a.hapticsEnabled = rng.unit() < 0.5
        case 4: a.audioGain = rng.unit() * 2
        default: a.hapticGain = 0.25 + rng.unit() * 2
        }
        return a
    }

    /// Runs a seeded random schedule of commands (live mix changes too, when `changes`); returns
    /// the device, the events, and the renderer whose generation 0 the replay starts from.
    static func run(seed: UInt64, canRewind: Bool, periods: Int = 600, commandChance: Double = 0.08,
                    changes: Bool = true) throws -> (SimulatedDevice, [EngineEvent], TransportRenderer) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.canRewind = canRewind
        behaviour.recordingCapacity = periods * 256 + 4096
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let renderer = TransportRenderer(mixer: try mixer())
        let player = try EngineCore(renderer: renderer, device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3, periodFrames: 256, bufferFrames: 1024))
        var rng = SplitMix64(seed: seed)
        player.send(.play(fromTimelineFrame: 0))
        let events = try drive(player, renderer: renderer, device: device, clock: clock, rng: &rng, periods: periods,
                               commandChance: commandChance, changeChance: changes ? 0.35 : 0, command: { rng in
            let newest = renderer.mixers.newestMixer.timeline
            let total = Double(min(newest.frameCount, newest.segmentLength * 3))
            let commands: [TransportCommand] = [.pause, .resume, .seek(toTimelineFrame: TimelineFrame(FrameIndex(rng.unit() * total))),
                                                .play(fromTimelineFrame: TimelineFrame(FrameIndex(rng.unit() * total))), .stop,
                                                .cue(toTimelineFrame: TimelineFrame(FrameIndex(rng.unit() * total)))]
            return commands[Int(rng.unit() * Double(commands.count))]
        }, live: { rng, base in randomAdjustment(&rng, of: base) })
        return (device, events, renderer)
    }

    @Test("Random schedules: the device stream equals the replay of the log", arguments: [1, 2, 3, 4, 5] as [UInt64], [true, false])
    func replayEqualsDevice(seed: UInt64, canRewind: Bool) throws {
        let (device, events, renderer) = try Self.run(seed: seed, canRewind: canRewind)
        let played = device.recording
        let frames = played.count / 3
        #expect(frames > 48_000)
        let replay = Replay(events: events)
        let replayed = try replay.deviceStream(frames: frames, renderer: try replay.renderer(base: renderer.mixer))
        let firstDifference = zip(played, replayed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at sample \(firstDifference ?? -1) of \(played.count)")
        let commands = events.filter { if case .command = $0 { return true } else { return false } }.count
        #expect(commands > 5)
        #expect(replay.changes.count > 3, "live mix changes were exercised")
    }

    @Test("1 000 seeded command schedules: every device stream equals its replay")
    func thousandSchedules() throws {
        var mismatches: [UInt64] = []
        var changeCount = 0
        for seed in UInt64(1_000)..<UInt64(2_000) {
            let (device, events, renderer) = try Self.run(seed: seed, canRewind: seed % 2 == 0, periods: 40, commandChance: 0.3)
            let frames = device.recording.count / 3
            let replay = Replay(events: events)
            let replayed = try replay.deviceStream(frames: frames, renderer: try replay.renderer(base: renderer.mixer))
            if replayed != device.recording { mismatches.append(seed) }
            changeCount += replay.changes.count
        }
        #expect(mismatches.isEmpty, "seeds whose replay differs: \(mismatches.prefix(10))")
        #expect(changeCount > 500, "live mix changes were exercised: \(changeCount)")
    }

    // MARK: Against an independent model of the transport

    /// The pattern of `mixer()`.
    static var pattern: PatternData {
        PatternData(
            continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 900, value: 0.6)],
                                                 frequency: [ValuePoint(time: 0, value: 0.1), ValuePoint(time: 900, value: 0.9)]),
            discretePattern: stride(from: 50.0, to: 900, by: 70).map { DiscretePoint(time: $0, amplitude: 0.5, frequency: 0.7) })
    }

    /// Steps `player` for `periods` periods on a driven clock: at each, with `commandChance`, a
    /// transport command or (with `changeChance` of those) a live change built as
    /// `HapticPlayer.adjust` builds it — prepare, install, then send the generation; now and then
    /// an injected underrun. Then lets the device play what is queued; returns every event.
    static func drive(_ player: EngineCore, renderer: TransportRenderer, device: SimulatedDevice, clock: ManualClock,
                      rng: inout SplitMix64, periods: Int, commandChance: Double, changeChance: Double,
                      command: (inout SplitMix64) -> TransportCommand,
                      live: (inout SplitMix64, LiveMix) -> LiveMix) throws -> [EngineEvent] {
        var events: [EngineEvent] = []
        for _ in 0..<periods {
            if rng.unit() < commandChance {
                if changeChance > 0, rng.unit() < changeChance {
                    let newest = renderer.mixers.newestMixer
                    let next = try newest.adjusted(to: live(&rng, newest.live))
                    if let generation = renderer.mixers.install(next) {
                        player.send(.mix(MixChange(generation: generation, of: next)))
                    }
                } else {
                    player.send(EngineCommand(command(&rng)))
                }
            }
            if rng.unit() < 0.01 { device.injectUnderrun() }
            try player.step()
            while let e = player.events.pop() {
                if case .command(_, _, _, _, let state) = e { renderer.mixers.retire(below: state.mix) }
                events.append(e)
            }
            clock.advance(seconds: 256.0 / 48_000 * (0.5 + rng.unit()))
        }
        clock.advance(seconds: 1)
        _ = try? device.availableFrames()
        while let e = player.events.pop() { events.append(e) }
        return events
    }

    /// Plays a seeded random schedule of play, pause, resume, seek, stop and cue commands (and
    /// injected underruns) on a haptic-only mixer of `configuration`; returns what the device
    /// played and the events.
    static func runHaptic(_ c: ReferenceTransport.Configuration, seed: UInt64, canRewind: Bool,
                          periods: Int = 500, commandChance: Double = 0.1, changes: Bool = false) throws -> ([Float], [EngineEvent]) {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.canRewind = canRewind
        behaviour.recordingCapacity = periods * 256 + 4096
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        var settings = MixSettings(layout: .haptic, profile: ActuatorProfile(name: "wideband", minimumHertz: 60, maximumHertz: 300, gain: c.gain),
                                   hapticOffset: c.hapticOffset)
        settings.preloadAudio = true
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "P", duration: 0, pattern: pattern), settings: settings,
                                    range: PlaybackRange(from: c.from, to: c.to, loopCount: c.loops, reverse: c.boomerang,
                                                         startsBackwards: c.startsBackwards))
        let renderer = TransportRenderer(mixer: mixer)
        let player = try EngineCore(renderer: renderer, device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 256, bufferFrames: 1024))
        var rng = SplitMix64(seed: seed)
        let segment = Double(mixer.timeline.segmentLength)
        // Targets across the first four iterations, and some past the end of a finite timeline.
        func target(_ rng: inout SplitMix64) -> TimelineFrame { TimelineFrame(FrameIndex(rng.unit() * segment * 4.2)) }
        player.send(.play(fromTimelineFrame: 0))
        let events = try drive(player, renderer: renderer, device: device, clock: clock, rng: &rng, periods: periods,
                               commandChance: commandChance, changeChance: changes ? 0.4 : 0, command: { rng in
            let commands: [TransportCommand] = [.pause, .resume, .pause, .resume, .seek(toTimelineFrame: target(&rng)),
                                                .play(fromTimelineFrame: target(&rng)), .stop, .cue(toTimelineFrame: target(&rng))]
            return commands[Int(rng.unit() * Double(commands.count))]
        }, live: { rng, base in
            var live = randomAdjustment(&rng, of: base)
            // The segment always explicit, inside the pattern.
            let from = live.from ?? 0
            live.from = from
            live.to = min(max(live.to ?? 900, from + 20), 900)
            return live
        })
        return (device.recording, events)
    }

    static let configurations: [ReferenceTransport.Configuration] = [
        .init(from: 0, to: 900, loops: 1, boomerang: false, startsBackwards: false, hapticOffset: 0, gain: 1),
        .init(from: 100, to: 420, loops: 3, boomerang: false, startsBackwards: false, hapticOffset: 20, gain: 1),
        .init(from: 0, to: 600, loops: 4, boomerang: true, startsBackwards: false, hapticOffset: -15, gain: 0.8),
        .init(from: 200, to: 700, loops: 3, boomerang: true, startsBackwards: true, hapticOffset: 7.3, gain: 1),
        .init(from: 150, to: 480, loops: 2, boomerang: false, startsBackwards: true, hapticOffset: 0, gain: 1.5),
        .init(from: 0, to: 250, loops: PlaybackTimeline.endless, boomerang: true, startsBackwards: false, hapticOffset: 30, gain: 1),
    ]

    @Test("Random schedules on a haptic-only mixer: the device stream equals the transport's rules applied to the logged commands (fades, loops, boomerang, backward segments, offsets), computed without the transport's code",
          arguments: 0..<6, [false, true])
    func deviceEqualsIndependentModel(configuration index: Int, canRewind: Bool) throws {
        let c = Self.configurations[index]
        let model = try ReferenceTransport(pattern: Self.pattern, configuration: c)
        var fades = 0, checked = 0
        for seed in [UInt64(1), 2, 3] {
            let (played, events) = try Self.runHaptic(c, seed: seed + UInt64(index) * 100, canRewind: canRewind)
            #expect(played.count > 48_000)
            let (expected, unsupported) = try model.deviceStream(events, frames: played.count, pattern: Self.pattern)
            #expect(unsupported.isEmpty)
            if let first = zip(played, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
                Issue.record("\(c), seed \(seed): first difference at device frame \(first.offset): played \(first.element.0), the rules give \(first.element.1)")
            }
            let (stretches, _) = ReferenceTransport.stretches(events)
            fades += stretches.filter { $0.fade != .none }.count
            checked += played.count
        }
        #expect(fades > 5, "pause and resume fades were exercised: \(fades)")
        #expect(checked > 150_000)
    }

    @Test("Random schedules with live mix changes (loops, boomerang, segments, direction, offset, gain, haptics off) on a haptic-only mixer: the device stream equals the transport's rules, computed without the transport's code",
          arguments: 0..<6, [false, true])
    func liveChangesEqualIndependentModel(configuration index: Int, canRewind: Bool) throws {
        let c = Self.configurations[index]
        let model = try ReferenceTransport(pattern: Self.pattern, configuration: c)
        var changes = 0
        for seed in [UInt64(11), 12, 13] {
            let (played, events) = try Self.runHaptic(c, seed: seed + UInt64(index) * 100, canRewind: canRewind, commandChance: 0.15, changes: true)
            let (expected, unsupported) = try model.deviceStream(events, frames: played.count, pattern: Self.pattern)
            #expect(unsupported.isEmpty, "\(unsupported.prefix(3))")
            if let first = zip(played, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
                Issue.record("\(c), seed \(seed): first difference at device frame \(first.offset): played \(first.element.0), the rules give \(first.element.1)")
            }
            changes += events.filter { if case .command(.mix, _, _, _, _) = $0 { return true } else { return false } }.count
        }
        #expect(changes > 5, "live changes were exercised: \(changes)")
    }

    @Test("Live changes landing 0…60 frames into a pause's or a resume's fade: the fade goes on where it was, by the transport's rules computed without its code",
          arguments: [false, true])
    func changesInsideFades(resume: Bool) throws {
        let c = Self.configurations[2]
        let model = try ReferenceTransport(pattern: Self.pattern, configuration: c)
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.canRewind = true
        behaviour.recordingCapacity = 400 * 256 + 4096
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        var settings = MixSettings(layout: .haptic, profile: ActuatorProfile(name: "wideband", minimumHertz: 60, maximumHertz: 300, gain: c.gain),
                                   hapticOffset: c.hapticOffset)
        settings.preloadAudio = true
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "P", duration: 0, pattern: Self.pattern), settings: settings,
                                    range: PlaybackRange(from: c.from, to: c.to, loopCount: c.loops, reverse: c.boomerang))
        let renderer = TransportRenderer(mixer: mixer)
        let player = try EngineCore(renderer: renderer, device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 256, bufferFrames: 1024))
        var events: [EngineEvent] = []
        func step(advancing frames: Double = 256) throws {
            try player.step()
            while let e = player.events.pop() {
                if case .command(_, _, _, _, let state) = e { renderer.mixers.retire(below: state.mix) }
                events.append(e)
            }
            clock.advance(seconds: frames / 48_000)
        }
        var rng = SplitMix64(seed: resume ? 7 : 8)
        player.send(.play(fromTimelineFrame: 0))
        for _ in 0..<8 { try step() }
        for delay in [0.0, 1, 5, 12, 20, 30, 40, 47, 60] {
            // The pause (or, from a pause, the resume), then a change `delay` frames of device time later.
            if resume { player.send(.pause); for _ in 0..<4 { try step() } }
            player.send(resume ? .resume : .pause)
            try step(advancing: delay)
            let newest = renderer.mixers.newestMixer
            var live = Self.randomAdjustment(&rng, of: newest.live)
            let from = live.from ?? 0
            live.from = from
            live.to = min(max(live.to ?? 900, from + 20), 900)
            live.hapticsEnabled = true  // a fade of silence shows nothing
            let next = try newest.adjusted(to: live)
            let generation = try #require(renderer.mixers.install(next))
            player.send(.mix(MixChange(generation: generation, of: next)))
            for _ in 0..<6 { try step() }
            if !resume { player.send(.resume); for _ in 0..<6 { try step() } }
        }
        clock.advance(seconds: 1)
        _ = try? device.availableFrames()
        while let e = player.events.pop() { events.append(e) }
        let played = device.recording
        let (expected, unsupported) = try model.deviceStream(events, frames: played.count, pattern: Self.pattern)
        #expect(unsupported.isEmpty, "\(unsupported.prefix(3))")
        if let first = zip(played, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("first difference at device frame \(first.offset): played \(first.element.0), the rules give \(first.element.1)")
        }
        // Changes did land inside fades.
        var anchors: [StreamFrame] = [], inside = 0
        for case let .command(command, _, _, effective, state) in events {
            if case .mix = command, let last = anchors.last, effective > last, effective - last < 48, state.ramp != .none { inside += 1 }
            if command == .pause || command == .resume { anchors.append(effective) }
        }
        #expect(inside >= 3, "changes inside a fade: \(inside)")
    }

    @Test("Effective frames: at the write head without rewind, just past the heard position with it")
    func effectiveFrames() throws {
        for canRewind in [false, true] {
            let (device, events, _) = try Self.run(seed: 9, canRewind: canRewind, periods: 200)
            _ = device
            var last: StreamFrame = -1
            for case let .command(_, _, _, effective, state) in events {
                #expect(effective >= last, "effective frames never go back")
                #expect(state.anchor <= effective, "a state starts at its effective frame, or earlier when the command changed nothing")
                last = effective
            }
        }
    }

    @Test("The event log round-trips through text, and its replay still equals the device")
    func logRoundTrip() throws {
        let (device, events, renderer) = try Self.run(seed: 11, canRewind: true)
        let frames = device.recording.count / 3
        let header = EngineLog.Header(input: "p.json", preset: nil, layout: "stereo+haptic", sampleRate: 48_000, profile: "wideband",
                                      mix: LiveMix(loopCount: 2, reverse: true))
        let text = EngineLog.text(header: header, events: events, playedFrames: FrameIndex(frames))
        #expect(text.split(separator: "\n").allSatisfy { !$0.contains("\"position\"") })
        let parsed = try EngineLog.parse(text)
        #expect(parsed.header == header)
        #expect(parsed.playedFrames == FrameIndex(frames))
        let logged = events.filter { if case .position = $0 { return false } else { return true } }
        #expect(parsed.events == logged)
        let replay = Replay(events: parsed.events)
        #expect(!replay.changes.isEmpty)
        let same = try replay.deviceStream(frames: frames, renderer: try replay.renderer(base: renderer.mixer)) == device.recording
        #expect(same)
    }

    @Test("A log with backward segments round-trips through text, and its replay equals the device")
    func backwardLogRoundTrip() throws {
        let clock = ManualClock()
        var behaviour = SimulatedDevice.Behaviour()
        behaviour.canRewind = true
        behaviour.recordingCapacity = 400 * 256 + 4096
        let device = SimulatedDevice(clock: clock, behaviour: behaviour)
        let renderer = TransportRenderer(mixer: try Self.mixer(startsBackwards: true))
        let player = try EngineCore(renderer: renderer, device: device, clock: clock,
                                    configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 3, periodFrames: 256, bufferFrames: 1024))
        var events: [EngineEvent] = []
        func adjust(_ edit: (inout LiveMix) -> Void) throws {
            let next = try renderer.mixers.newestMixer.adjusted(edit)
            let generation = try #require(renderer.mixers.install(next))
            #expect(player.send(.mix(MixChange(generation: generation, of: next))))
        }
        // Backwards from the start; a backward segment played from its start; a boomerang added
        // under it; the direction flipped while playing, then back with the whole content.
        let script: [Int: () throws -> Void] = [
            0: { _ = player.send(.play(fromTimelineFrame: 0)) },
            40: {
                try adjust({ $0.loopCount = 3; $0.reverse = false; $0.from = 120; $0.to = 380; $0.startsBackwards = true })
                _ = player.send(.play(fromTimelineFrame: 0))
            },
            90: { try adjust({ $0.loopCount = 4; $0.reverse = true }) },
            140: { _ = player.send(.seek(toTimelineFrame: 5_000)) },
            170: { try adjust({ $0.startsBackwards = false }) },
            220: { try adjust({ $0.loopCount = PlaybackTimeline.endless; $0.from = nil; $0.to = nil; $0.startsBackwards = true }) },
        ]
        for period in 0..<360 {
            try script[period]?()
            try player.step()
            while let e = player.events.pop() {
                if case .command(_, _, _, _, let state) = e { renderer.mixers.retire(below: state.mix) }
                events.append(e)
            }
            clock.advance(seconds: 256.0 / 48_000)
        }
        clock.advance(seconds: 1)
        _ = try? device.availableFrames()
        while let e = player.events.pop() { events.append(e) }

        let frames = device.recording.count / 3
        #expect(frames > 80_000)
        let header = EngineLog.Header(input: "p.json", preset: nil, layout: "stereo+haptic", sampleRate: 48_000, profile: "wideband",
                                      mix: LiveMix(loopCount: 2, reverse: true, startsBackwards: true))
        let text = EngineLog.text(header: header, events: events, playedFrames: FrameIndex(frames))
        let lines = text.split(separator: "\n")
        #expect(lines[0].contains("\"startsBackwards\": true"))
        let mixLines = lines.filter { $0.contains("\"name\": \"mix\"") }
        #expect(mixLines.count == 4 && mixLines.allSatisfy { $0.contains("\"startsBackwards\"") })
        let parsed = try EngineLog.parse(text)
        #expect(parsed.header == header)
        let logged = events.filter { if case .position = $0 { return false } else { return true } }
        #expect(parsed.events == logged)
        let replay = Replay(events: parsed.events)
        #expect(replay.changes.map(\.mix.startsBackwards) == [true, true, false, true])
        #expect(replay.changes.map(\.mix.reverse) == [false, true, true, true])
        let base = try PresetMixer(preset: renderer.mixer.preset, settings: renderer.mixer.settings,
                                   range: PlaybackRange(loopCount: parsed.header.mix.loopCount, reverse: parsed.header.mix.reverse,
                                                        startsBackwards: parsed.header.mix.startsBackwards))
        #expect(base.timeline == renderer.mixer.timeline, "the header rebuilds the first mixer, direction included")
        let replayed = try replay.deviceStream(frames: frames, renderer: try replay.renderer(base: base))
        let firstDifference = zip(device.recording, replayed).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at sample \(firstDifference ?? -1) of \(device.recording.count)")

        // A log written before the key existed reads it as false; a version-1 header named the
        // haptic gain "gain".
        let old = #"{"event":"header","input":"x","layout":"mix","profile":"wideband","sampleRate":48000,"gain":0.5,"audioGain":1,"hapticOffset":0,"loopCount":1}"#
            + "\n" + #"{"event":"end","playedFrames":0}"# + "\n"
        let oldHeader = try EngineLog.parse(old).header
        #expect(oldHeader.mix.startsBackwards == false && oldHeader.mix.hapticGain == 0.5 && oldHeader.mix.audioGain == 1)
        let oldChange = mixLines.first { $0.contains("\"startsBackwards\": true") }
            .map { $0.replacingOccurrences(of: "\"startsBackwards\": true,", with: "") }
        let stripped = try #require(oldChange)
        #expect(!stripped.contains("startsBackwards"))
        let reparsed = try EngineLog.parse(String(lines[0]) + "\n" + stripped + "\n" + #"{"event":"end","playedFrames":0}"# + "\n")
        guard case .command(.mix(let change), _, _, _, _)? = reparsed.events.first else {
            Issue.record("the mix line did not parse as a mix command")
            return
        }
        #expect(change.mix.startsBackwards == false)
    }

    @Test("A broken log is refused with its line number", arguments: [
        ("", 1), ("{\"event\": \"command\"}\n", 1), ("{\"event\":\"header\"}\n", 1),
        ("{\"event\":\"header\",\"input\":\"x\",\"layout\":\"mix\",\"profile\":\"wideband\",\"sampleRate\":48000,\"gain\":1,\"audioGain\":1,\"hapticOffset\":0,\"loopCount\":1}\nnot json\n", 2),
    ])
    func brokenLogs(text: String, line: Int) {
        #expect(throws: EngineLog.ParseError.self) { try EngineLog.parse(text) }
        do { _ = try EngineLog.parse(text) } catch { #expect(error.line == line, "\(error)") }
    }
}
