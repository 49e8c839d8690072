import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarLottie
import PulsarLottiePlayer
import PulsarSimulation
import PulsarTestSupport
import Testing

/// The controller's frames against the truth the simulated device knows, its marker and frame
/// ranges, its loop-mode mapping, and its behaviour across pause and seek.
@Suite struct HapticLottieControllerTests {
    /// The frame of content frame `c` (48 kHz) written out: `ip + seconds · fr`, then the
    /// renderer's clamp (at or after `op`: the last whole frame).
    static func frame(ofContentFrame c: Double, in timing: LottieTiming) -> Double {
        let f = timing.inPoint.value + c / ControllerRig.rate * timing.frameRate
        if f < timing.inPoint.value { return timing.inPoint.value }
        return f < timing.outPoint.value ? f : timing.outPoint.value.rounded(.up) - 1
    }

    /// The bounds against the truth. The controller adds nothing to the engine's clock (checked
    /// exactly beside this), so these are the device clock's: within one sample once it has
    /// locked (from 2.5 s of readings on), within two while it locks in (0.5–2.5 s; with ±20 %
    /// wake-ups and ±0.5 ms timestamp jitter it reaches about 1.1 samples there — BENCHMARKS.md,
    /// drift, for other seeds).
    static let lockIn = 2.5

    static func expectClockBounds(lockingIn: Double, locked: Double, _ what: String) {
        #expect(lockingIn <= 2, "\(what), 0.5–\(lockIn) s: worst \(lockingIn) samples")
        #expect(locked <= 1, "\(what), from \(lockIn) s: worst \(locked) samples")
    }

    /// The frame the controller must hand out at `time`, from the engine's clock alone.
    static func frameFromClock(_ rig: ControllerRig, at time: MonotonicTime) -> Double? {
        rig.player.contentTime(at: time).map { ms in
            let t = rig.controller.timing
            let f = t.inPoint.value + ms * t.frameRate / 1000
            return f < t.inPoint.value ? t.inPoint.value : f < t.outPoint.value ? f : t.outPoint.value.rounded(.up) - 1
        }
    }

    @Test("+200 ppm, 0.5 ms jitter, 30 s of boomerang: at every 60 Hz tick after 0.5 s the frame is the engine clock's, checked against the sample being played")
    func framesFollowTheDevice() throws {
        let animation = try Animations.synthetic()
        let timing = animation.timing
        let rig = try ControllerRig(animation: animation, seconds: 32)
        let length = Double(rig.player.mixer.timeline.segmentLength)
        #expect(abs(length - timing.durationSeconds * ControllerRig.rate) <= 0.5, "the mixer lasts as long as the animation")
        try rig.controller.setLoopMode(.autoReverse)
        #expect(rig.controller.play())
        // One sample of content, in frames.
        let tolerance = timing.frameRate / ControllerRig.rate
        var worstSamples = 0.0, worstLocked = 0.0
        var byHalfSecond: [Int: Double] = [:]
        var ticks = 0
        var frames: [(MonotonicTime, Double)] = []
        var exact = true
        try rig.run(until: 30.6) { time in
            guard let frame = rig.controller.currentFrame(at: time) else { return }
            exact = exact && frame.value == Self.frameFromClock(rig, at: time)
            frames.append((time, frame.value))
        }
        #expect(exact, "the controller's frame is the engine clock's content time as a frame, nothing else")
        let start = try #require(rig.deviceStart)
        // The truth model is the device's own: its recorded consumption is exactly
        // floor((t − start) · rate · (1 + ppm)) at every update.
        #expect(rig.device.timeline.count > 1000)
        for entry in rig.device.timeline {
            #expect(entry.consumed == FrameIndex(rig.trueStreamFrame(at: entry.time).rounded(.down)))
        }
        for (time, frame) in frames where time.seconds(since: start) >= 0.5 {
            let s = rig.trueStreamFrame(at: time)
            let truth = Self.frame(ofContentFrame: rig.trueContentFrame(atStreamFrame: s, length: length, reverse: true), in: timing)
            let error = abs(frame - truth)
            if time.seconds(since: start) < Self.lockIn {
                worstSamples = max(worstSamples, error / tolerance)
            } else {
                worstLocked = max(worstLocked, error / tolerance)
            }
            let bucket = Int(time.seconds(since: start) * 2)
            byHalfSecond[bucket, default: 0] = max(byHalfSecond[bucket, default: 0], error / tolerance)
            ticks += 1
        }
        print("note: worst by half second: \(byHalfSecond.sorted { $0.key < $1.key }.map { String(format: "%.2f", $0.value) })")
        print("note: \(ticks) ticks over 30 s, worst frame error \(worstSamples) samples locking in, \(worstLocked) locked")
        #expect(ticks >= 1790)
        Self.expectClockBounds(lockingIn: worstSamples, locked: worstLocked, "30 s of boomerang")
        // It really went back and forth: forward and backward stretches both occurred.
        let steps = zip(frames.dropFirst(), frames).map { $0.0.1 - $0.1.1 }
        #expect(steps.contains { $0 > 0 } && steps.contains { $0 < 0 })
        #expect(rig.completions.isEmpty, "an endless loop never completes")
    }

    @Test("Markers on success.json: out-of-range markers clamp into ip…op (all-outside is a typed error); a marker range plays exactly its frames and completes at its end",
          .enabled(if: SharedCorpus.available("lottie/success.json"), "needs ../shared/corpus"))
    func markerRanges() throws {
        let bytes = try Animations.successJSON()
        let success = try LottieAnimation(json: bytes, source: "success.json")
        #expect(success.timing.inPoint == 0 && success.timing.outPoint == 90 && success.timing.frameRate == 60)
        #expect(success.markers.map(\.start) == [225, 275], "both markers lie after op")
        let rig = try ControllerRig(animation: success, seconds: 4)
        let c = rig.controller
        // Both markers clamp to op: nothing playable, nothing sent.
        #expect(throws: HapticLottieController.PlayError.emptyRange(LottieFrameRange(start: 90, end: 90))) {
            try c.play(fromMarker: "Y Move Up Start", toMarker: "Y Move Up End")
        }
        #expect(throws: HapticLottieController.PlayError.unknownMarker("Nope")) { try c.play(fromMarker: "Nope") }
        #expect(throws: HapticLottieController.PlayError.unknownMarker("Nope")) {
            try c.play(fromMarker: "Y Move Up Start", toMarker: "Nope")
        }
        #expect(rig.player.mixer.range.from == nil && rig.player.mixer.range.to == nil, "a refused play changes nothing")

        // The same animation with markers inside, across and before its range.
        let text = String(decoding: bytes, as: UTF8.self)
        let original = #"[{"tm":225,"cm":"Y Move Up Start","dr":0},{"tm":275,"cm":"Y Move Up End\r","dr":0}]"#
        #expect(text.contains(original))
        let markers = #"[{"tm":30,"cm":"Inside","dr":0},{"tm":63,"cm":"Across","dr":100},{"tm":-20,"cm":"Before","dr":50}]"#
        let moved = try LottieAnimation(json: Array(text.replacingOccurrences(of: original, with: markers).utf8), source: "success-moved.json")
        let probe = HapticLottieController(animation: moved, player: rig.player)
        #expect(try probe.markerRange(fromMarker: "Inside", toMarker: "Across") == LottieFrameRange(start: 30, end: 63))
        #expect(try probe.markerRange(fromMarker: "Across") == LottieFrameRange(start: 63, end: 90), "63 + 100 clamps to op")
        #expect(try probe.markerRange(fromMarker: "Before") == LottieFrameRange(start: 0, end: 30), "−20 clamps to ip")
        #expect(throws: HapticLottieController.PlayError.emptyRange(LottieFrameRange(start: 30, end: 30))) {
            try probe.markerRange(fromMarker: "Inside")
        }
        #expect(try probe.markerRange(fromMarker: "Across", toMarker: "Inside") == LottieFrameRange(start: 63, end: 30),
                "a to-marker before the from-marker is a backward range, not an empty one")
        #expect(try probe.markerRange(fromMarker: "Across", toMarker: "Before") == LottieFrameRange(start: 63, end: 0),
                "backward and clamped to ip")

        // Play Inside → Across (frames 30…63, once) after the clock has locked in.
        let live = try ControllerRig(animation: moved, seconds: 4)
        try live.run(until: 0.6)
        try live.controller.play(fromMarker: "Inside", toMarker: "Across", loopMode: .playOnce)
        let timeline = live.player.mixer.timeline
        // Frame → content ms → sample, written out: (f − ip) / fr seconds at 48 kHz.
        #expect(timeline.segmentStart == 24_000 && timeline.segmentEnd == 50_400 && timeline.loopCount == 1)
        var seen: [(MonotonicTime, Double)] = []
        try live.run(until: 2.0) { time in
            guard let play = live.commands.last(where: { if case .play = $0.command { return true } else { return false } }),
                  let heard = live.player.streamFrame(at: time), heard >= Double(play.frame) else { return }
            seen.append((time, try #require(live.controller.currentFrame(at: time)).value))
        }
        let play = try #require(live.commands.last { if case .play = $0.command { return true } else { return false } })
        #expect(seen.count > 60)
        #expect(seen.allSatisfy { $0.1 >= 30 && $0.1 <= 63 }, "every frame handed out lies in the marker range")
        #expect(zip(seen.dropFirst(), seen).allSatisfy { $0.0.1 >= $0.1.1 }, "forward only")
        #expect(try #require(seen.first).1 < 31 && seen.contains { $0.1 > 62 }, "the whole range is shown")
        #expect(live.completionEvents.count == 1)
        let done = try #require(live.completionEvents.first)
        #expect(done.finished && done.frame == play.frame + 26_400, "completion where the range's last sample is heard (33 frames at 60 fps)")
        #expect(live.completions.count == 1 && live.completions.first?.finished == true, "forwarded to the controller's handler")
        #expect(try #require(seen.last).1 == 63, "the range's end holds after completion")
        // Before the completion's instant the range end had not been reached; after it the frame holds.
        let doneTime = try #require(live.completions.first).time
        #expect(seen.filter { $0.0 > doneTime }.allSatisfy { $0.1 == 63 })
    }

    @Test("Loop modes map to the mixer timeline: playOnce 1, loop endless, autoReverse endless boomerang, repeat(n) n, repeatBackwards(n) n round trips")
    func loopModes() throws {
        let animation = try Animations.synthetic()
        let rig = try ControllerRig(animation: animation, seconds: 4)
        let c = rig.controller
        let endless = PlaybackTimeline.endless
        let cases: [(LottieLoopMode, Int, Bool, LottieLoopMode)] = [
            (.playOnce, 1, false, .playOnce), (.loop, endless, false, .loop), (.autoReverse, endless, true, .autoReverse),
            (.repeat(3), 3, false, .repeat(3)), (.repeat(2.4), 2, false, .repeat(2)), (.repeat(1), 1, false, .playOnce),
            (.repeatBackwards(2), 4, true, .repeatBackwards(2)), (.repeatBackwards(1.5), 3, true, .repeatBackwards(1.5)),
            (.repeat(0), 1, false, .playOnce),
        ]
        // Frames 15…42 of a 29.97 fps animation with ip 12: content (f − 12) / 29.97 s.
        let from = (Double(15 - 12) / 29.97 * 48_000).rounded(), to = (Double(42 - 12) / 29.97 * 48_000).rounded()
        for (mode, count, reverse, readBack) in cases {
            try c.play(fromFrame: 15, toFrame: 42, loopMode: mode)
            let t = rig.player.mixer.timeline
            #expect(t.loopCount == count && t.reverse == reverse, "\(mode)")
            #expect(Double(t.segmentStart.index) == from && Double(t.segmentEnd.index) == to, "\(mode): the frame range as content")
            #expect(c.loopMode == readBack, "\(mode) reads back")
            try rig.run(until: rig.elapsed(rig.clock.now()) + 0.02)
        }
        // The property and setLoop land on the same timelines.
        c.loopMode = .autoReverse
        #expect(rig.player.mixer.timeline.loopCount == endless && rig.player.mixer.timeline.reverse)
        try c.setLoop(true, count: 5, reverse: false)
        #expect(c.loopMode == .repeat(5))
        try rig.run(until: rig.elapsed(rig.clock.now()) + 0.02)
        // nil loop mode keeps the current one; progress maps through ip…op.
        try c.play(fromProgress: 0.5, toProgress: 1)
        #expect(rig.player.mixer.timeline.loopCount == 5)
        #expect(rig.player.mixer.timeline.segmentEnd.index == rig.player.mixer.contentFrames)

        // repeat(2) over 15…42 really plays two iterations, then completes.
        let live = try ControllerRig(animation: animation, seconds: 4)
        try live.run(until: 0.6)
        try live.controller.play(fromFrame: 15, toFrame: 42, loopMode: .repeat(2))
        try live.run(until: 3.0)
        let play = try #require(live.commands.last { if case .play = $0.command { return true } else { return false } })
        let done = try #require(live.completionEvents.first)
        #expect(done.finished && done.frame == play.frame + 2 * FrameIndex(to - from))
    }

    /// Frames handed out from the first tick whose heard stream frame reaches the last play's
    /// effective frame, with the tick's instant; `exact` is false when one of them was not the
    /// engine clock's frame at that tick.
    static func framesAfterPlay(_ rig: ControllerRig, until seconds: Double) throws -> (frames: [(MonotonicTime, Double)], exact: Bool) {
        var seen: [(MonotonicTime, Double)] = []
        var exact = true
        try rig.run(until: seconds) { time in
            guard let play = rig.commands.last(where: { if case .play = $0.command { return true } else { return false } }),
                  let heard = rig.player.streamFrame(at: time), heard >= Double(play.frame) else { return }
            let frame = try #require(rig.controller.currentFrame(at: time)).value
            exact = exact && frame == Self.frameFromClock(rig, at: time)
            seen.append((time, frame))
        }
        return (seen, exact)
    }

    @Test("play(fromFrame: hi, toFrame: lo) plays backwards: frames fall from hi to lo at every tick, as the device plays them, then completion(true) with lo held")
    func backwardRange() throws {
        let animation = try Animations.synthetic()
        let timing = animation.timing
        let rig = try ControllerRig(animation: animation, seconds: 4)
        let c = rig.controller
        try rig.run(until: 0.6)
        try c.play(fromFrame: 42, toFrame: 15, loopMode: .playOnce)
        let t = rig.player.mixer.timeline
        // The segment is [15, 42) as content, written out: (f − 12) / 29.97 s at 48 kHz.
        let low = (Double(15 - 12) / 29.97 * 48_000).rounded(), high = (Double(42 - 12) / 29.97 * 48_000).rounded()
        #expect(Double(t.segmentStart.index) == low && Double(t.segmentEnd.index) == high)
        #expect(t.startsBackwards && !t.reverse && t.loopCount == 1)
        #expect(t.contentFrame(at: 0) == t.segmentEnd - 1, "timeline frame 0 is the content frame just before from")
        #expect(c.loopMode == .playOnce, "the direction is no part of the loop mode")

        let (seen, exact) = try Self.framesAfterPlay(rig, until: 2.5)
        #expect(exact, "the engine clock's frame, nothing else")
        let play = try #require(rig.commands.last { if case .play = $0.command { return true } else { return false } })
        let tolerance = timing.frameRate / ControllerRig.rate
        #expect(seen.count > 100)
        #expect(zip(seen.dropFirst(), seen).allSatisfy { $0.0.1 <= $0.1.1 }, "backward only")
        #expect(zip(seen.dropFirst(), seen).filter { $0.0.1 < $0.1.1 }.count > 50, "and really moving")
        #expect(seen.allSatisfy { $0.1 >= 15 - 2 * tolerance && $0.1 <= 42 + 2 * tolerance }, "within the range")
        let first = try #require(seen.first).1
        #expect(first > 41.4 && first <= 42 + 2 * tolerance, "starts at hi (within a tick)")

        // Against the device's truth, written out: content runs down from segmentEnd, one
        // content frame per stream frame after the play's anchor, and stops at segmentStart.
        var worst = 0.0
        for (time, frame) in seen {
            let s = rig.trueStreamFrame(at: time)
            let state = rig.commands.map(\.state).last { Double($0.anchor.index) <= s } ?? TransportState.initial
            guard state.mix == play.state.mix, abs(s - Double(play.frame)) > 2 else { continue }
            let p = Double(state.timelineFrame.index) + s - Double(state.anchor.index)
            let content = high - min(max(p, 0), high - low)
            worst = max(worst, abs(frame - Self.frame(ofContentFrame: content, in: timing)) / tolerance)
        }
        #expect(worst <= 2, "within the clock's bounds of the sample being played: \(worst) samples")

        #expect(rig.completionEvents.count == 1)
        let done = try #require(rig.completionEvents.first)
        #expect(done.finished && done.frame == play.frame + FrameIndex(high - low), "completion where the range's last sample is heard")
        #expect(rig.completions.count == 1 && rig.completions.first?.finished == true)
        let last = try #require(seen.last).1
        #expect(abs(last - 15) <= 0.5 * tolerance, "the range's end, lo, holds after completion: \(last)")
        let doneTime = try #require(rig.completions.first).time
        #expect(seen.filter { $0.0 > doneTime }.allSatisfy { $0.1 == last })
    }

    @Test("Backward ranges by progress and with loop modes: .repeatBackwards goes down then up and ends at from; play() plays forwards again")
    func backwardLoops() throws {
        let animation = try Animations.synthetic()
        let timing = animation.timing
        let rig = try ControllerRig(animation: animation, seconds: 5)
        let c = rig.controller
        // Progress 0.8 → 0.2 is frames 48 → 21: backward, the loop mode's counts as for forward ranges.
        try c.play(fromProgress: 0.8, toProgress: 0.2, loopMode: .autoReverse)
        var t = rig.player.mixer.timeline
        #expect(t.startsBackwards && t.reverse && t.isEndless && c.loopMode == .autoReverse)
        #expect(t.segmentStart.index == rig.player.mixer.settings.sampleRate.nearestFrame(atMilliseconds: timing.milliseconds(atFrame: 21)))
        try c.play(fromFrame: 42, toFrame: 15, loopMode: .loop)
        #expect(rig.player.mixer.timeline.startsBackwards && c.loopMode == .loop)
        c.loopMode = .repeat(3)
        t = rig.player.mixer.timeline
        #expect(t.startsBackwards && t.loopCount == 3 && !t.reverse, "a loop change keeps the direction")
        // Beyond op and before ip: clamped, still backward; equal ends after clamping are empty.
        try c.play(fromFrame: 80, toFrame: -5)
        #expect(rig.player.mixer.timeline.startsBackwards && rig.player.mixer.timeline.segmentStart == 0)
        #expect(rig.player.mixer.timeline.segmentEnd.index == rig.player.mixer.contentFrames)
        #expect(throws: HapticLottieController.PlayError.emptyRange(LottieFrameRange(start: 57, end: 57))) {
            try c.play(fromFrame: 90, toFrame: 60)
        }
        #expect(throws: HapticLottieController.PlayError.emptyRange(LottieFrameRange(start: 12, end: 12))) {
            try c.play(fromFrame: 3, toFrame: -40)
        }
        // A forward range, and play(), reset the direction.
        try c.play(fromFrame: 15, toFrame: 42)
        #expect(!rig.player.mixer.timeline.startsBackwards)
        try c.play(fromFrame: 42, toFrame: 15)
        #expect(c.play())
        t = rig.player.mixer.timeline
        #expect(!t.startsBackwards && t.segmentStart == 0 && t.segmentEnd.index == rig.player.mixer.contentFrames)
        try rig.run(until: 0.6)

        // One round trip starting backwards: 42 down to 15, back up to 42, then completion(true).
        try c.play(fromFrame: 42, toFrame: 15, loopMode: .repeatBackwards(1))
        t = rig.player.mixer.timeline
        #expect(t.startsBackwards && t.reverse && t.loopCount == 2 && c.loopMode == .repeatBackwards(1))
        let seen = try Self.framesAfterPlay(rig, until: 3.5).frames
        let tolerance = timing.frameRate / ControllerRig.rate
        let lowest = try #require(seen.min { $0.1 < $1.1 })
        let turn = try #require(seen.firstIndex { $0.0 == lowest.0 })
        #expect(lowest.1 < 15.6, "reaches lo")
        #expect(zip(seen[...turn].dropFirst(), seen[...turn]).allSatisfy { $0.0.1 <= $0.1.1 }, "down first")
        #expect(zip(seen[turn...].dropFirst(), seen[turn...]).allSatisfy { $0.0.1 >= $0.1.1 }, "then up")
        let play = try #require(rig.commands.last { if case .play = $0.command { return true } else { return false } })
        let done = try #require(rig.completionEvents.first)
        #expect(done.finished && done.frame == play.frame + 2 * t.segmentLength)
        #expect(abs(try #require(seen.last).1 - 42) <= 0.5 * tolerance, "a round trip comes back to from")
    }

    @Test("setTimestamp in a backward range goes to the same content as in a forward one")
    func backwardSeek() throws {
        let animation = try Animations.synthetic()
        let timing = animation.timing
        let rig = try ControllerRig(animation: animation, seconds: 3)
        let c = rig.controller
        try rig.run(until: 0.6)
        try c.play(fromFrame: 50, toFrame: 13, loopMode: .playOnce)
        try rig.run(until: 0.8)
        let t = rig.player.mixer.timeline
        // 500 ms of content is frame 48 000 · 0.5 = 24 000; backwards that is offset segmentEnd − 1 − 24 000.
        #expect(c.timelineFrame(atMs: 500) == TimelineFrame((t.segmentEnd - 1) - ContentFrame(24_000)))
        c.setFrame(LottieFrame(timing.inPoint.value + 0.5 * timing.frameRate))
        try rig.run(until: 1.0)
        let seek = try #require(rig.commands.last { if case .seek = $0.command { return true } else { return false } })
        #expect(seek.state.timelineFrame == TimelineFrame((t.segmentEnd - 1) - ContentFrame(24_000)))
        #expect(t.contentFrame(at: seek.state.timelineFrame) == 24_000, "the sample heard first is content 500 ms")
        // Forward, the same content is offset 24 000 − segmentStart.
        try c.play(fromFrame: 13, toFrame: 50, loopMode: .playOnce)
        #expect(c.timelineFrame(atMs: 500) == TimelineFrame(ContentFrame(24_000) - rig.player.mixer.timeline.segmentStart))
    }

    @Test("currentFrame freezes exactly while paused and jumps at a seek's effective frame")
    func pauseAndSeek() throws {
        let animation = try Animations.synthetic()
        let timing = animation.timing
        let rig = try ControllerRig(animation: animation, seconds: 4)
        let c = rig.controller
        c.loopMode = .loop
        try rig.run(until: 0.5)
        var frames: [(MonotonicTime, Double)] = []
        let record: (MonotonicTime) throws -> Void = { time in frames.append((time, try #require(c.currentFrame(at: time)).value)) }
        #expect(c.play())
        try rig.run(until: 1.3, tick: record)
        c.pause()
        try rig.run(until: 1.7, tick: record)
        c.resume()
        try rig.run(until: 2.0, tick: record)
        c.setTimestamp(1000)
        try rig.run(until: 2.4, tick: record)

        let commands = rig.commands
        let pause = try #require(commands.first { $0.command == .pause })
        let resume = try #require(commands.first { $0.command == .resume })
        let seek = try #require(commands.first { if case .seek = $0.command { return true } else { return false } })
        let length = Double(rig.player.mixer.timeline.segmentLength)
        #expect(pause.state.mode == .paused && resume.state.timelineFrame == pause.state.timelineFrame)
        #expect(seek.state.timelineFrame == 48_000, "1000 ms at 48 kHz")

        // Paused: every tick the clock places inside the pause shows one frame, the pause's own.
        let frozen = Self.frame(ofContentFrame: Double(pause.state.timelineFrame.index).truncatingRemainder(dividingBy: length), in: timing)
        let during = frames.filter { time, _ in
            let s = rig.player.streamFrame(at: time)!
            return s >= Double(pause.frame) + 2 && s < Double(resume.frame) - 2
        }
        #expect(during.count >= 20)
        #expect(Set(during.map(\.1)).count == 1, "frozen: one frame for the whole pause")
        #expect(abs(try #require(during.first).1 - frozen) < 1e-9)

        // Everywhere else within one sample of the truth (ticks within 2 samples of a command's
        // effective frame are ambiguous by the clock's one-sample tolerance and left out).
        let tolerance = timing.frameRate / ControllerRig.rate
        let edges = commands.map { Double($0.frame) }
        var worstSamples = 0.0, worstLocked = 0.0
        for (time, frame) in frames {
            let s = rig.trueStreamFrame(at: time)
            let elapsed = time.seconds(since: rig.deviceStart!)
            guard elapsed >= 0.5, !edges.contains(where: { abs($0 - s) < 2 }) else { continue }
            let truth = Self.frame(ofContentFrame: rig.trueContentFrame(atStreamFrame: s, length: length, reverse: false), in: timing)
            if elapsed < Self.lockIn {
                worstSamples = max(worstSamples, abs(frame - truth) / tolerance)
            } else {
                worstLocked = max(worstLocked, abs(frame - truth) / tolerance)
            }
        }
        Self.expectClockBounds(lockingIn: worstSamples, locked: worstLocked, "across pause, resume and seek")

        // The jump: find the instant the clock reaches the seek's effective frame, and look just either side.
        var low = frames.first!.0.nanoseconds, high = frames.last!.0.nanoseconds
        while high - low > 1 {
            let mid = (low + high) / 2
            if rig.player.streamFrame(at: MonotonicTime(nanoseconds: mid))! < Double(seek.frame) { low = mid } else { high = mid }
        }
        let before = try #require(c.currentFrame(at: MonotonicTime(nanoseconds: low - 100_000))).value
        let after = try #require(c.currentFrame(at: MonotonicTime(nanoseconds: high + 100_000))).value
        // 0.1 ms ≈ 4.8 samples either side.
        let preSeek = Self.frame(ofContentFrame: (Double(resume.state.timelineFrame.index) + Double(seek.frame - resume.frame) - 4.8)
            .truncatingRemainder(dividingBy: length), in: timing)
        let postSeek = Self.frame(ofContentFrame: 48_000 + 4.8, in: timing)
        #expect(abs(before - preSeek) <= 0.5 * tolerance + 1e-9, "before: the resumed content continuing")
        #expect(abs(after - postSeek) <= 0.5 * tolerance + 1e-9, "after: 1000 ms on")
        #expect(abs(after - (timing.inPoint.value + timing.frameRate)) < 0.01, "1000 ms is ip + fr")
    }
}
