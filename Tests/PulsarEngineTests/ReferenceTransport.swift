import Foundation
import PulsarAudio
import PulsarCore
import PulsarEngine

/// What a haptic-only stream (one channel, 48 kHz) must sound like, computed from a player's
/// logged commands by the transport's rules as docs/mixing.md and the fade tests state
/// them — written here again, sharing no code with `TransportState`, `TransportRenderer`,
/// `PlaybackTimeline`, `PresetMixer` or `Replay`. The only code of the project it uses is the
/// pattern synthesis (`PatternRenderer`, checked on its own against `ReferenceSignal`) and the
/// pattern mirror a backward iteration plays.
///
/// Rules:
/// - The segment is content frames `s ..< e` (`s = round(from · 48)`, `e = round(to · 48)`);
///   timeline frame `t` is iteration `t / (e − s)` at offset `t % (e − s)`; there are
///   `loops · (e − s)` timeline frames, silence outside them.
/// - Iteration `i` runs backwards when `startsBackwards != (boomerang && i is odd)`.
/// - A forward iteration at offset `o` sounds the pattern at frame `s + o − shift`, where
///   `shift = round(hapticOffset · 48)`; a backward one sounds, at the same frame, the pattern
///   mirrored about `(ms(s) + ms(e)) / 2 − ms(shift)` (content time `to − o − shift` played with
///   a forward-running carrier). The actuator gain scales the pattern.
/// - play(t): plays timeline frame `t` at the effective frame. pause (playing only): holds the
///   frame heard at the effective frame; the content runs on under a 1 ms (48-frame) fade-out
///   `0.5 + 0.5 cos(π (k + 1) / 49)`, then silence. resume (paused only): plays from the held
///   frame under a fade-in `0.5 − 0.5 cos(π (k + 1) / 49)`. stop: silence at once. seek(t): cuts
///   to `t`, playing or paused (no fade; a paused seek silences a fade-out in progress);
///   nothing when stopped. cue(t): paused at `t`; from playing the fade-out plays `t`'s content.
/// - When the device has played a playing transport to its timeline's end (the logged
///   completion), the transport is stopped from that frame: a later seek, pause or resume does
///   nothing.
/// - A live change (a new mixer: loop, boomerang, segment, direction, offset, gain, haptics on
///   or off) keeps the mode and goes on from the same iteration and content frame in the new
///   timeline (clamped into it; a stopped transport keeps its frame, at most the new end); a
///   pause's or resume's fade in progress goes on where it was.
/// - The device stream skips the stream frames an underrun lost; a failed render is silence.
struct ReferenceTransport {
    struct Configuration: CustomStringConvertible {
        var from: Double
        var to: Double
        var loops: Int  // PlaybackTimeline.endless for a loop without end
        var boomerang: Bool
        var startsBackwards: Bool
        var hapticOffset: Double
        var gain: Double
        var hapticsEnabled = true

        init(from: Double, to: Double, loops: Int, boomerang: Bool, startsBackwards: Bool, hapticOffset: Double, gain: Double,
             hapticsEnabled: Bool = true) {
            self.from = from
            self.to = to
            self.loops = loops
            self.boomerang = boomerang
            self.startsBackwards = startsBackwards
            self.hapticOffset = hapticOffset
            self.gain = gain
            self.hapticsEnabled = hapticsEnabled
        }

        /// The values a logged live change carries (its segment always explicit here).
        init?(_ live: LiveMix) {
            guard let from = live.from, let to = live.to else { return nil }
            self.init(from: from, to: to, loops: live.loopCount, boomerang: live.reverse, startsBackwards: live.startsBackwards,
                      hapticOffset: live.hapticOffset, gain: live.hapticGain, hapticsEnabled: live.hapticsEnabled)
        }

        var description: String {
            "\(from)–\(to) ms ×\(loops == PlaybackTimeline.endless ? "∞" : String(loops))\(boomerang ? " boomerang" : "")"
                + "\(startsBackwards ? " backwards first" : "") offset \(hapticOffset) ms gain \(gain)"
        }
    }

    static let fade = 48  // 1 ms

    let configuration: Configuration
    let segmentStart: Int64
    let segmentLength: Int64
    let total: Int64  // Int64.max when endless
    /// The forward and mirrored pattern over the segment's frames, indexed by offset.
    let forward: [Float]
    let backward: [Float]

    init(pattern: PatternData, configuration c: Configuration) throws {
        configuration = c
        // The conversions of docs/signal-model.md §1: frame = round(ms · rate / 1000), halves
        // away from zero; ms = frame · 1000 / rate.
        func frame(_ ms: Double) -> Int64 { Int64((ms * 48_000 / 1000).rounded()) }
        func ms(_ frame: Int64) -> Double { Double(frame) * 1000 / 48_000 }
        segmentStart = frame(c.from)
        let end = frame(c.to)
        segmentLength = end - segmentStart
        total = c.loops == PlaybackTimeline.endless ? Int64.max : Int64(c.loops) * segmentLength
        let shift = frame(c.hapticOffset)
        let profile = ActuatorProfile(name: "wideband", minimumHertz: 60, maximumHertz: 300, gain: c.gain)
        let rate = SampleRate(48_000)!
        let frames = (segmentStart - shift)..<(end - shift)
        forward = try PatternRenderer(pattern: pattern, sampleRate: rate, profile: profile).render(frames: frames)
        let axis = (ms(segmentStart) + ms(end)) / 2 - ms(shift)
        backward = try PatternRenderer(pattern: pattern.mirrored(around: axis), sampleRate: rate, profile: profile).render(frames: frames)
    }

    /// The sample of timeline frame `t`.
    func content(_ t: Int64) -> Float {
        guard configuration.hapticsEnabled, t >= 0, t < total else { return 0 }
        let iteration = t / segmentLength, offset = Int(t % segmentLength)
        return backwards(iteration) ? backward[offset] : forward[offset]
    }

    func backwards(_ iteration: Int64) -> Bool {
        configuration.startsBackwards != (configuration.boomerang && iteration % 2 == 1)
    }

    /// Where this timeline goes on from timeline frame `t` of `old` when a live change replaces
    /// `old` by it: the same iteration (the last one if there are fewer now) and the same content
    /// frame (clamped into this segment), in the direction this timeline gives that iteration.
    /// A frame outside `old`'s timeline counts as its nearest end.
    func continuing(_ t: Int64, of old: ReferenceTransport) -> Int64 {
        let clamped = min(max(t, 0), old.total - 1)
        let iteration = clamped / old.segmentLength, offset = clamped % old.segmentLength
        let content = old.backwards(iteration) ? old.segmentStart + old.segmentLength - 1 - offset : old.segmentStart + offset
        let lastIteration = configuration.loops == PlaybackTimeline.endless ? Int64.max : Int64(configuration.loops) - 1
        let k = min(iteration, lastIteration)
        let c = min(max(content, segmentStart), segmentStart + segmentLength - 1)
        return k * segmentLength + (backwards(k) ? segmentStart + segmentLength - 1 - c : c - segmentStart)
    }

    static func fadeOut(_ k: Int) -> Float { Float(0.5 + 0.5 * cos(Double.pi * Double(k + 1) / Double(fade + 1))) }
    static func fadeIn(_ k: Int) -> Float { Float(0.5 - 0.5 * cos(Double.pi * Double(k + 1) / Double(fade + 1))) }

    enum Mode { case stopped, playing, paused }
    enum Fade { case none, rising, falling }

    /// The transport from one effective frame on.
    struct Stretch {
        var mode: Mode
        var held: Int64  // the timeline frame at `anchor`
        var anchor: Int64
        var fade: Fade
        var fadeDone = 0  // frames of the fade already played before `anchor` (a change mid-fade)
        var generation = 0
    }

    /// The transport's stretches, from the logged commands and their effective frames, the logged
    /// completions, and the mixers of `timelines` (generation → timeline; 0 is the first mixer).
    static func stretches(_ events: [EngineEvent], timelines: [Int: ReferenceTransport] = [:]) -> (stretches: [Stretch], unsupported: [String]) {
        var current = Stretch(mode: .stopped, held: 0, anchor: 0, fade: .none)
        var result = [current]
        var unsupported: [String] = []
        for event in events {
            if case let .completion(_, finished: true, streamFrame: endFrame) = event {
                let end = endFrame.index
                // The device played to the end of the timeline: the transport stops there.
                current = Stretch(mode: .stopped, held: current.held, anchor: end, fade: .none, generation: current.generation)
                result.append(current)
                continue
            }
            guard case let .command(command, _, _, effective, _) = event else { continue }
            // This reference works in plain numbers: every frame leaves its domain here.
            let e = effective.index
            let now = current.mode == .playing ? current.held + (e - current.anchor) : current.held
            let g = current.generation
            var next: Stretch?
            switch command {
            case .play(let t): next = Stretch(mode: .playing, held: t.index, anchor: e, fade: .none, generation: g)
            case .pause: if current.mode == .playing { next = Stretch(mode: .paused, held: now, anchor: e, fade: .falling, generation: g) }
            case .resume: if current.mode == .paused { next = Stretch(mode: .playing, held: current.held, anchor: e, fade: .rising, generation: g) }
            case .stop: next = Stretch(mode: .stopped, held: now, anchor: e, fade: .none, generation: g)
            case .seek(let t): if current.mode != .stopped { next = Stretch(mode: current.mode, held: t.index, anchor: e, fade: .none, generation: g) }
            case .cue(let t): next = Stretch(mode: .paused, held: t.index, anchor: e, fade: current.mode == .playing ? .falling : .none, generation: g)
            case .mix(let change):
                // The same mode from the same content frame in the new timeline; a fade in
                // progress goes on where it was.
                guard let old = timelines[g], let new = timelines[change.generation] else {
                    unsupported.append("live mix change to generation \(change.generation) at \(e)")
                    continue
                }
                let held = current.mode == .stopped ? min(now, new.total) : new.continuing(now, of: old)
                let done = Int(e - current.anchor) + current.fadeDone
                let fading = current.fade != .none && done < fade
                next = Stretch(mode: current.mode, held: held, anchor: e, fade: fading ? current.fade : .none,
                               fadeDone: fading ? done : 0, generation: change.generation)
            case .attach, .steal, .parameter, .position:
                unsupported.append("\(command.name) at \(e): one voice at a constant intensity only here")
            }
            if let next {
                current = next
                result.append(next)
            }
        }
        return (result, unsupported)
    }

    /// The sample of stream frame `f` in `stretch`.
    static func sample(_ f: Int64, in s: Stretch, of timeline: ReferenceTransport) -> Float {
        let k = Int(f - s.anchor)
        let r = k + s.fadeDone  // frames into the fade
        switch s.mode {
        case .stopped:
            return 0
        case .playing:
            let v = timeline.content(s.held + Int64(k))
            return s.fade == .rising && r < fade ? v * fadeIn(r) : v
        case .paused:
            // Under a fade-out the content runs on from the held frame, as far into it as the fade.
            return s.fade == .falling && r < fade ? timeline.content(s.held + Int64(r)) * fadeOut(r) : 0
        }
    }

    /// The first `frames` device frames of the stream the logged events describe, this being the
    /// first mixer's timeline; the timelines of live changes are built from their logged values.
    func deviceStream(_ events: [EngineEvent], frames: Int, pattern: PatternData) throws -> (samples: [Float], unsupported: [String]) {
        var timelines = [0: self]
        for case let .command(.mix(change), _, _, _, _) in events where timelines[change.generation] == nil {
            if let c = Configuration(change.mix) { timelines[change.generation] = try ReferenceTransport(pattern: pattern, configuration: c) }
        }
        let (stretches, unsupported) = Self.stretches(events, timelines: timelines)
        var lost: [Range<Int64>] = [], silenced: [Range<Int64>] = []
        for event in events {
            if case let .underrun(from, to, _) = event, to > from { lost.append(from.index..<to.index) }
            if case let .renderFailed(_, from, to) = event, to > from { silenced.append(from.index..<to.index) }
        }
        var out: [Float] = []
        out.reserveCapacity(frames)
        var f: Int64 = 0
        var index = 0
        while out.count < frames {
            if let gap = lost.first(where: { $0.contains(f) }) {
                f = gap.upperBound
                continue
            }
            while index + 1 < stretches.count, stretches[index + 1].anchor <= f { index += 1 }
            let stretch = stretches[index]
            out.append(silenced.contains { $0.contains(f) } ? 0 : Self.sample(f, in: stretch, of: timelines[stretch.generation] ?? self))
            f += 1
        }
        return (out, unsupported)
    }
}
