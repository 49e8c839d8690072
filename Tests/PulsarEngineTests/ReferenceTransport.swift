import Foundation
import PulsarCore
import PulsarEngine

/// What a haptic-only stream (one channel, 48 kHz) must sound like, computed from a player's
/// logged commands by the transport's rules as docs/ARCHITECTURE.md and the fade tests state
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
        guard t >= 0, t < total else { return 0 }
        let iteration = t / segmentLength, offset = Int(t % segmentLength)
        let backwards = configuration.startsBackwards != (configuration.boomerang && iteration % 2 == 1)
        return backwards ? backward[offset] : forward[offset]
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
    }

    /// The transport's stretches, from the logged commands and their effective frames.
    static func stretches(_ events: [EngineEvent]) -> (stretches: [Stretch], unsupported: [String]) {
        var current = Stretch(mode: .stopped, held: 0, anchor: 0, fade: .none)
        var result = [current]
        var unsupported: [String] = []
        for event in events {
            if case let .completion(finished: true, streamFrame: end) = event {
                // The device played to the end of the timeline: the transport stops there.
                current = Stretch(mode: .stopped, held: current.held, anchor: end, fade: .none)
                result.append(current)
                continue
            }
            guard case let .command(command, _, e, _) = event else { continue }
            let now = current.mode == .playing ? current.held + (e - current.anchor) : current.held
            var next: Stretch?
            switch command {
            case .play(let t): next = Stretch(mode: .playing, held: t, anchor: e, fade: .none)
            case .pause: if current.mode == .playing { next = Stretch(mode: .paused, held: now, anchor: e, fade: .falling) }
            case .resume: if current.mode == .paused { next = Stretch(mode: .playing, held: current.held, anchor: e, fade: .rising) }
            case .stop: next = Stretch(mode: .stopped, held: now, anchor: e, fade: .none)
            case .seek(let t): if current.mode != .stopped { next = Stretch(mode: current.mode, held: t, anchor: e, fade: .none) }
            case .cue(let t): next = Stretch(mode: .paused, held: t, anchor: e, fade: current.mode == .playing ? .falling : .none)
            case .mix: unsupported.append("live mix change at \(e)")
            }
            if let next {
                current = next
                result.append(next)
            }
        }
        return (result, unsupported)
    }

    /// The sample of stream frame `f` in `stretch`.
    func sample(_ f: Int64, in s: Stretch) -> Float {
        let k = Int(f - s.anchor)
        switch s.mode {
        case .stopped:
            return 0
        case .playing:
            let v = content(s.held + Int64(k))
            return s.fade == .rising && k < Self.fade ? v * Self.fadeIn(k) : v
        case .paused:
            return s.fade == .falling && k < Self.fade ? content(s.held + Int64(k)) * Self.fadeOut(k) : 0
        }
    }

    /// The first `frames` device frames of the stream the logged events describe.
    func deviceStream(_ events: [EngineEvent], frames: Int) -> (samples: [Float], unsupported: [String]) {
        let (stretches, unsupported) = Self.stretches(events)
        var lost: [Range<Int64>] = [], silenced: [Range<Int64>] = []
        for event in events {
            if case let .underrun(from, to, _) = event, to > from { lost.append(from..<to) }
            if case let .renderFailed(from, to) = event, to > from { silenced.append(from..<to) }
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
            out.append(silenced.contains { $0.contains(f) } ? 0 : sample(f, in: stretches[index]))
            f += 1
        }
        return (out, unsupported)
    }
}
