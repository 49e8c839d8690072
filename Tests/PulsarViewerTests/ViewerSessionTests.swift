import Foundation
import PulsarAudio
import PulsarBundle
import PulsarSimulation
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottieRender
import PulsarViewer
import Testing

/// The viewer's logic on its twins: keys, drag, drops, and the picture of each instant.
@Suite struct ViewerSessionTests {
    @Test("Each slot shows the rlottie frame of the content time the engine's clock reports, frozen while paused")
    func framesFollowTheClock() throws {
        let animation = try ViewerRig.demoAnimation()
        let rig = try ViewerRig(animation: animation)
        let reference = try LottieRenderer(jsonData: animation.json, source: "reference")
        rig.session.start(paused: false)
        try rig.advance(seconds: 0.6)
        for _ in 0..<5 {
            try rig.advance(seconds: 0.137)
            let now = rig.clock.now()
            let ms = try #require(rig.contentMs)
            // Frame number written out independently: whole frames of fr from ip.
            let index = Int((ms * animation.timing.frameRate / 1000).rounded(.down))
            let expected = try reference.render(frame: index, width: 200, height: 200, contentMode: .aspectFit)
            #expect(try rig.session.animationArea(at: now, width: 200, height: 200) == expected, "at \(ms) ms, frame \(index)")
        }
        #expect(rig.handle(.key(.playPause)))
        try rig.advance(seconds: 0.1)
        #expect(rig.session.mode == .paused)
        let held = try #require(rig.contentMs)
        let heldArea = try rig.session.animationArea(at: rig.clock.now(), width: 200, height: 200)
        try rig.advance(seconds: 0.3)
        #expect(rig.contentMs == held, "the clock holds while paused")
        #expect(try rig.session.animationArea(at: rig.clock.now(), width: 200, height: 200) == heldArea)
        #expect(rig.session.statusLines(at: rig.clock.now())[0].hasPrefix("‖ paused"))
        #expect(rig.handle(.key(.playPause)))
        try rig.advance(seconds: 0.2)
        #expect(rig.session.mode == .playing)
        #expect(try #require(rig.contentMs) > held + 100, "resumed")
    }

    @Test("--paused holds at 0 ms until space; ← / → seek by 500 ms (clamped at 0)")
    func pausedStartAndSeeks() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation())
        rig.session.start(paused: true)
        try rig.advance(seconds: 0.3)
        #expect(rig.contentMs == 0)
        #expect(rig.handle(.key(.seekForward)))
        try rig.advance(seconds: 0.1)
        #expect(rig.contentMs == 500, "a seek while paused stays paused at the target")
        #expect(rig.handle(.key(.seekBack)))
        #expect(rig.handle(.key(.seekBack)))
        try rig.advance(seconds: 0.1)
        #expect(rig.contentMs == 0)
        #expect(rig.handle(.key(.playPause)))
        try rig.advance(seconds: 0.5)
        let playing = try #require(rig.contentMs)
        #expect(playing > 400 && playing < 520, "\(playing)")
        #expect(rig.handle(.key(.seekForward)))
        try rig.advance(seconds: 0.05)
        let after = try #require(rig.contentMs)
        // +500 ms, plus what played between the key and now (≤ the 50 ms advanced).
        #expect(after >= playing + 500 && after <= playing + 560, "\(playing) → \(after)")
    }

    @Test(", and . hold one animation frame earlier or later; the status bar names the marker and the frame")
    func frameStepsAndMarkers() throws {
        let animation = try ViewerRig.demoAnimation()
        let rig = try ViewerRig(animation: animation)
        let fr = animation.timing.frameRate
        rig.session.start(paused: false)
        try rig.advance(seconds: 0.5)
        func shownFrame() throws -> Int {
            ViewerSession.renderIndex(of: try #require(rig.session.content.controller!.currentFrame(at: rig.clock.now())), timing: animation.timing)
        }
        let playingFrame = try shownFrame()
        #expect(rig.handle(.key(.stepForward)))
        try rig.advance(seconds: 0.1)
        #expect(rig.session.mode == .paused)
        let first = try shownFrame()
        #expect(first >= playingFrame + 1 && first <= playingFrame + 2, "one frame on from where it played (\(playingFrame) → \(first))")
        // Content held in the middle of that frame (to the sample).
        #expect(abs(try #require(rig.contentMs) - ((Double(first) + 0.5) * 1000 / fr * 48).rounded() / 48) < 1e-6)
        for (key, expected) in [(ViewerEvent.Key.stepForward, first + 1), (.stepForward, first + 2), (.stepBack, first + 1)] {
            #expect(rig.handle(.key(key)))
            try rig.advance(seconds: 0.05)
            #expect(try shownFrame() == expected)
        }
        // beat1 spans frames 0..<24 (Resources/demo-bundle/animation/heartbeat.json), beat2 24..<48.
        #expect(rig.session.statusLines(at: rig.clock.now())[0].hasSuffix("◆ beat1"), "\(rig.session.statusLines(at: rig.clock.now()))")
        #expect(rig.handle(.pointerDown(x: rig.timelineX(ms: 1_320), y: rig.timelineY)))
        #expect(rig.handle(.pointerUp(x: rig.timelineX(ms: 1_320), y: rig.timelineY)))
        try rig.advance(seconds: 0.1)
        #expect(rig.session.statusLines(at: rig.clock.now())[0].hasSuffix("◆ beat2"))
        #expect(rig.session.statusLines(at: rig.clock.now())[0].contains("frame 40 of 72"), "1 320 ms at 30 fps: frame index 39, the 40th")
    }

    @Test("Frame steps at a fractional rate (29.97 fps, ip 12) advance exactly one frame each")
    func frameStepsAtFractionalRates() throws {
        let json = #"{"v":"5.7.0","fr":29.97,"ip":12,"op":112,"w":64,"h":64,"layers":[]}"#
        let animation = try LottieAnimation(json: Array(json.utf8), source: "fractional.json")
        let rig = try ViewerRig(animation: animation, width: 64, height: 64)
        rig.session.start(paused: true)
        try rig.advance(seconds: 0.1)
        func shown() throws -> Int {
            ViewerSession.renderIndex(of: try #require(rig.session.content.controller!.currentFrame(at: rig.clock.now())), timing: animation.timing)
        }
        #expect(try shown() == 0)
        for expected in [1, 2, 3, 4, 5, 6, 7, 6, 5] {
            #expect(rig.handle(.key(expected > (try shown()) ? .stepForward : .stepBack)))
            try rig.advance(seconds: 0.03)
            #expect(try shown() == expected)
        }
    }

    @Test("An unplugged device ends the loop (deviceFailed) instead of freezing the window", .timeLimit(.minutes(10)))
    func deviceFailureEndsTheLoop() throws {
        // A player with its real-time thread on a device paced by the system clock.
        var settings = MixSettings(layout: .haptic)
        settings.preloadAudio = true
        let pattern = ViewerRig.pattern(ms: 5_000)
        let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings)
        let device = SimulatedDevice(clock: SystemMonotonicClock())
        let player = try HapticPlayer(mixer: mixer, device: device)
        let content = ViewerContent(title: "t", player: player, animation: nil, renderer: nil, pattern: pattern, deviceName: "sim")
        let surface = MemorySurface(width: 32, height: 32)
        let session = ViewerSession(content: content, surface: surface)
        defer { content.close() }
        session.start(paused: false)
        // Unplugged once the clock reports content heard; no time-out of the loop's own: if the
        // failure were never noticed, the test's time limit cancels it and a close ends the loop.
        var unplugged = false
        let outcome = try ViewerLoop.run(session) { deadline in
            if !unplugged, (player.streamFrame(at: deadline) ?? 0) > 0 {
                device.disconnect()
                unplugged = true
            }
            if Task.isCancelled { surface.send(.closed) }
            ViewerLoop.sleep(until: deadline)
        }
        #expect(unplugged)
        #expect(outcome.ending == .deviceFailed, "ended by the failure, not by a close")
        #expect(player.failure == .disconnected("the simulated device was unplugged"))
    }

    @Test("Dragging scrubs: the content holds at the pointer's time and resumes on release if it was playing")
    func dragScrubs() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation())
        let duration = rig.player.durationMs
        rig.session.start(paused: false)
        try rig.advance(seconds: 0.3)
        func expectedMs(_ x: Int) -> Double { rig.timelineMs(x: x) }
        #expect(duration > 2_000)
        // A press on the picture does nothing to the transport.
        #expect(rig.handle(.pointerDown(x: 149, y: 10)))
        #expect(rig.handle(.pointerUp(x: 149, y: 10)))
        #expect(rig.session.mode == .playing)
        #expect(rig.handle(.pointerDown(x: 149, y: rig.timelineY)))
        try rig.advance(seconds: 0.1)
        #expect(rig.session.mode == .paused)
        #expect(abs(try #require(rig.contentMs) - expectedMs(149)) < 1e-6)
        // Dragging on: the pointer may leave the timeline (here over the picture) and still scrubs.
        #expect(rig.handle(.pointerDragged(x: 50, y: 90)))
        try rig.advance(seconds: 0.1)
        #expect(abs(try #require(rig.contentMs) - expectedMs(50)) < 1e-6)
        try rig.advance(seconds: 0.2)
        #expect(abs(try #require(rig.contentMs) - expectedMs(50)) < 1e-6, "held while the button is down")
        #expect(rig.handle(.pointerUp(x: 50, y: 90)))
        try rig.advance(seconds: 0.2)
        #expect(rig.session.mode == .playing)
        #expect(try #require(rig.contentMs) > expectedMs(50) + 100)
    }

    @Test("l, r and h change the loop, the boomerang and the haptics on the player, and the status bar says so")
    func loopReverseHaptics() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation())
        rig.session.start(paused: false)
        try rig.advance(seconds: 0.2)
        #expect(!rig.player.mixer.timeline.isEndless)
        #expect(rig.handle(.key(.loop)))
        #expect(rig.player.mixer.timeline.isEndless && !rig.player.mixer.timeline.reverse)
        #expect(rig.handle(.key(.reverse)))
        #expect(rig.player.mixer.timeline.isEndless && rig.player.mixer.timeline.reverse)
        try rig.advance(seconds: 0.1)
        let lines = rig.session.statusLines(at: rig.clock.now())
        #expect(lines[1].hasPrefix("loop 1 of ∞, reverse"), "\(lines)")
        #expect(rig.handle(.key(.loop)))
        #expect(rig.player.mixer.timeline.loopCount == 1 && !rig.player.mixer.timeline.reverse)
        #expect(rig.player.hapticsEnabled)
        #expect(rig.handle(.key(.haptics)))
        #expect(!rig.player.hapticsEnabled)
        #expect(rig.session.statusLines(at: rig.clock.now())[1].contains("haptics off"))
        #expect(!rig.handle(.key(.quit)))
        #expect(!rig.handle(.closed))
    }

    @Test("Once playback ends the transport is stopped; space plays from the start again")
    func endAndReplay() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation())
        rig.session.start(paused: false)
        try rig.advance(seconds: rig.player.durationMs / 1000 + 0.3)
        #expect(rig.session.mode == .stopped)
        let ended = rig.session.statusLines(at: rig.clock.now())[0]
        #expect(ended.hasPrefix("■ ended — space plays again") && ended.contains("frame 72 of 72"), "\(ended)")
        #expect(rig.handle(.key(.playPause)))
        try rig.advance(seconds: 0.3)
        #expect(rig.session.mode == .playing)
        #expect(try #require(rig.contentMs) < 320)
    }

    @Test("A dropped file is opened by the loader, n / p switch presets; a failure keeps the content and tells the user in one line")
    func drops() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation())
        rig.session.start(paused: false)
        let original = rig.session.content
        var messages: [String] = []
        rig.session.onMessage = { messages.append($0) }
        struct Refused: Error, CustomStringConvertible { var description: String { "x.json: line 3: not a pattern\nmore" } }
        rig.session.loader = { _ in throw Refused() }
        #expect(rig.handle(.fileDropped("/tmp/x.json")))
        #expect(rig.session.content === original)
        #expect(messages.count == 1 && !messages[0].contains("\n") && messages[0].contains("x.json"), "\(messages)")
        let other = try ViewerRig(animation: nil)
        rig.session.loader = { path in
            #expect(path == "/tmp/tap.json")
            return other.session.content
        }
        #expect(rig.handle(.fileDropped("/tmp/tap.json")))
        #expect(rig.session.content === other.session.content)
        #expect(rig.surface.title == "pulsar view - rig")
        // n / p: the switcher is asked for the preset one step on or back; nil keeps the content.
        var steps: [Int] = []
        let third = try ViewerRig(animation: try ViewerRig.demoAnimation())
        rig.session.presetSwitcher = { step in
            steps.append(step)
            return step > 0 ? third.session.content : nil
        }
        #expect(rig.handle(.key(.previousPreset)))
        #expect(rig.session.content === other.session.content)
        #expect(rig.handle(.key(.nextPreset)))
        #expect(rig.session.content === third.session.content)
        #expect(steps == [-1, 1])
        #expect(rig.session.mode == .playing, "the new preset plays from its start")
    }

    @Test("The loop presents one picture a slot at the pacer's deadlines and ends on close or time-out")
    func loopRuns() throws {
        let rig = try ViewerRig(animation: try ViewerRig.demoAnimation(), width: 64, height: 64)
        rig.session.start(paused: false)
        rig.session.displayLatencyMs = 100
        var drawnAt: [MonotonicTime] = []
        let outcome = try ViewerLoop.run(rig.session, exitAfter: 1.0, clock: rig.clock) { deadline in
            drawnAt.append(deadline)
            // Time passes to the deadline, the device playing on meanwhile.
            while rig.clock.now() < deadline {
                try? rig.player.step()
                rig.clock.advance(seconds: min(Double(ViewerRig.period) / ViewerRig.rate, deadline.seconds(since: rig.clock.now())))
            }
        }
        #expect(outcome.ending == .timeUp)
        #expect(outcome.stats.missed == 0 && outcome.stats.presented == 60, "\(outcome.stats)")
        #expect(rig.surface.presentedCount == 61, "a first picture, then one a slot")
        #expect(zip(drawnAt, drawnAt.dropFirst()).allSatisfy { abs($1.seconds(since: $0) - 1.0 / 60) < 1e-8 })
        // The last slot (deadline 59/60 s, the last one slept to) showed the instant 100 ms after it.
        let lastSlot = try #require(drawnAt.last)
        #expect(rig.surface.lastFrame == (try rig.session.frame(at: lastSlot.adding(seconds: 0.1))))
        #expect(rig.surface.lastFrame != (try rig.session.frame(at: lastSlot)))
        rig.surface.send(.key(.playPause), .closed)
        let closed = try ViewerLoop.run(rig.session, clock: rig.clock) { _ in }
        #expect(closed.ending == .closed)
        #expect(rig.session.mode == .paused, "events before the close were handled")
    }
}
