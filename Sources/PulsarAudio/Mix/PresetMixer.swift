import PulsarBundle
import PulsarCore

/// Turns a preset into the interleaved output stream a device receives: the haptic render and
/// the decoded, resampled preset audio, placed on the playback timeline (segment, loops,
/// boomerang, direction) and summed into the channels of a `ChannelLayout` (docs/mixing.md).
///
/// Output frame `n` of the stream is the same whichever block it is rendered in, so an offline
/// render and a device fed block by block receive the same samples.
///
/// Thread rules: one thread at a time. `init` allocates and decodes: never on the real-time
/// thread. `render` allocates nothing; it decodes audio as it goes unless
/// `MixSettings.preloadAudio` is set, and is then real-time safe.
public final class PresetMixer {
    public enum SetupError: Error, CustomStringConvertible, Sendable {
        case badSettings(String)
        /// A time, duration, gain or loop total outside `Limits`.
        case outOfRange(RangeError)
        /// The content lasts no time at all (a single point, or only points at time 0): nothing
        /// to play or render. The data's fault, not the options'.
        case emptyContent(String)
        case audio(AudioFileError)

        public var description: String {
            switch self {
            case .badSettings(let why): return why
            case .outOfRange(let error): return error.description
            case .emptyContent(let why): return "\(why) [empty-pattern]"
            case .audio(let e): return e.description
            }
        }
    }

    /// What `render` did to a block.
    public struct BlockReport: Sendable {
        /// Samples the mix limiter touched (channels summing two or more sources).
        public var limitedSamples = 0
        /// Samples the haptic renderer's own limiter touched.
        public var hapticLimitedSamples = 0
    }

    public let settings: MixSettings
    public let timeline: PlaybackTimeline
    /// The preset's duration (after the precedence rules) and the rule that set it.
    public let durationMilliseconds: Double
    public let durationRule: DurationRule
    /// Frames of content (the duration at the output rate).
    public let contentFrames: FrameIndex
    public var channelCount: Int { settings.layout.channelCount }
    /// Format of the preset audio, when there is audio.
    public var audioFormat: AudioFormatInfo? { track?.stream.sourceFormat }
    /// Whether `render` only copies and computes (no decoding, no I/O): true without audio or
    /// with the audio preloaded (`MixSettings.preloadAudio`). A real-time thread needs it; mixers
    /// made by `adjusted` share this one's audio, so they answer the same.
    public var isRealtimeSafe: Bool { track?.isPreloaded ?? true }

    private let forward: ActuatorRenderer
    private let backward: ActuatorRenderer?
    private let hapticShift: FrameIndex
    private let track: AudioTrack?
    private let audioGain: Float

    /// Frames per internal step; longer requests are split.
    static let blockFrames = 4096
    private let hapticBuffer: UnsafeMutableBufferPointer<Float>
    /// The haptic render of the last aligned block of `hapticCacheFrames` a short request
    /// touched: a live player asks for a period at a time, and the synthesis evaluates each of
    /// its 1024-sample chunks from the chunk's start, so without it every period would compute
    /// the chunk up to where it ends. Random access is exact, so the cached block is the same
    /// samples as any render of them.
    private let hapticCache: UnsafeMutableBufferPointer<Float>
    private var hapticCacheStart: FrameIndex?
    private var hapticCacheBackwards = false
    /// Frames of the haptic cache; requests this long or longer render directly.
    static let hapticCacheFrames = 1024
    private let audioBuffer: UnsafeMutableBufferPointer<Float>
    private let channelBuffer: UnsafeMutableBufferPointer<Float>

    /// The preset this mixer plays.
    public let preset: PresetHandle
    /// The segment, loop and duration it was built with.
    public let range: PlaybackRange
    /// Content ms just after the last audio sample, when there is audio.
    private let audioEnd: Double?

    public convenience init(preset: PresetHandle, settings: MixSettings, range: PlaybackRange = PlaybackRange()) throws(SetupError) {
        let rate = settings.sampleRate
        let layout = settings.layout
        let forward: ActuatorRenderer
        do {
            forward = try Self.renderer(preset.pattern, clip: preset.lofeltClip, settings: settings)
        } catch {
            throw .badSettings(error.description)
        }
        var track: AudioTrack?
        var audioEnd: Double?
        if let audio = preset.audio {
            let offset: Double
            do {
                offset = try Limits.milliseconds(settings.audioOffset ?? audio.offset, "the audio offset", signed: true)
            } catch {
                throw .outOfRange(error)
            }
            do {
                let stream = try AudioStream(bytes: audio.bytes, name: audio.source, outputRate: rate,
                                             channels: max(layout.audioChannelsNeeded, 1))
                let t = try AudioTrack(stream: stream, offsetFrames: rate.nearestFrame(atMilliseconds: offset),
                                       preload: settings.preloadAudio && layout.audioChannelsNeeded > 0)
                audioEnd = rate.milliseconds(atFrame: t.endFrame)
                if layout.audioChannelsNeeded > 0 { track = t }
            } catch {
                throw .audio(error)
            }
        }
        try self.init(preset: preset, settings: settings, range: range, forward: forward, track: track, audioEnd: audioEnd)
    }

    /// The values a live player may change, as this mixer has them.
    public var live: LiveMix { LiveMix(settings: settings, range: range) }

    /// A mixer like this one with the live values `live`, sharing its decoded audio and, unless
    /// the haptic gain changes, its pattern renderer: cheap enough to prepare while a player
    /// plays. Allocates: never on the real-time thread.
    public func adjusted(to live: LiveMix) throws(SetupError) -> PresetMixer {
        var s = settings
        var r = range
        live.apply(to: &s, &r)
        var renderer = forward
        if s.profile.gain != settings.profile.gain {
            do {
                renderer = try Self.renderer(preset.pattern, clip: preset.lofeltClip, settings: s)
            } catch {
                throw .badSettings(error.description)
            }
        }
        return try PresetMixer(preset: preset, settings: s, range: r, forward: renderer, track: track, audioEnd: audioEnd)
    }

    /// The exact phase of the haptic carrier at timeline frame `frame`, in 2⁻⁶⁴ cycles: where a
    /// voice's own oscillator (its sharpness) takes over without a jump.
    public func hapticPhaseTurns(at frame: TimelineFrame) -> UInt64 {
        let p = timeline.position(of: frame)
        return (p.backwards ? backward! : forward).phaseTurns(at: (timeline.segmentStart + p.offset).index - hapticShift)
    }

    /// The timeline frame a seek or cue to content time `ms` goes to: `ms` clamped into
    /// 0 … duration, at the nearest frame, clamped into the segment, where the first iteration
    /// plays it — in that iteration's direction (`PlaybackTimeline.timelineFrame(of:inIteration:)`),
    /// so a segment that starts backwards seeks to the same content as a forward one.
    public func timelineFrame(atMs ms: Double) -> TimelineFrame {
        let content = settings.sampleRate.contentFrame(atMilliseconds: min(max(ms, 0), durationMilliseconds))
        return timeline.timelineFrame(of: content, inIteration: 0)
    }

    /// A mixer like this one with `edit` applied to its live values (`adjusted(to:)`).
    public func adjusted(_ edit: (inout LiveMix) -> Void) throws(SetupError) -> PresetMixer {
        try adjusted(to: live.with(edit))
    }

    /// The haptic channel's renderer of `pattern` for the settings' actuator.
    private static func renderer(_ pattern: PatternData, clip: LofeltClip?, settings: MixSettings) throws(PatternRenderer.SetupError) -> ActuatorRenderer {
        try ActuatorRenderer(pattern: pattern, clip: clip, actuator: settings.actuator, profile: settings.profile, sampleRate: settings.sampleRate)
    }

    private init(preset: PresetHandle, settings: MixSettings, range: PlaybackRange, forward: ActuatorRenderer,
                 track: AudioTrack?, audioEnd: Double?) throws(SetupError) {
        self.preset = preset
        self.settings = settings
        self.range = range
        self.forward = forward
        self.track = track
        self.audioEnd = audioEnd
        let rate = settings.sampleRate
        audioGain = Float((preset.audio?.volume ?? 1) * settings.audioGain)
        do {
            try Self.checkLimits(settings: settings, range: range)
        } catch {
            throw .outOfRange(error)
        }

        let resolved = DurationRule.resolve(explicit: range.duration, preset: preset,
                                            patternEnd: rate.milliseconds(atFrame: forward.frameCount), audioEnd: audioEnd)
        durationMilliseconds = resolved.milliseconds
        durationRule = resolved.rule
        contentFrames = rate.nearestFrame(atMilliseconds: resolved.milliseconds)
        if contentFrames == 0, range.duration == nil, range.from == nil, range.to == nil {
            throw .emptyContent("the content lasts \(JSONWriter.format(resolved.milliseconds)) ms (\(resolved.rule.rawValue)): nothing to play")
        }

        let from = range.from ?? 0
        let to = range.to ?? resolved.milliseconds
        guard from.isFinite, to.isFinite, from >= 0 else { throw .badSettings("--from must be 0 or later") }
        guard to <= resolved.milliseconds + 1e-9 else {
            throw .badSettings("--to \(JSONWriter.format(to)) ms is past the preset's end (\(JSONWriter.format(resolved.milliseconds)) ms)")
        }
        do {
            timeline = try PlaybackTimeline(segmentStart: rate.contentFrame(atMilliseconds: from),
                                            segmentEnd: rate.contentFrame(atMilliseconds: to),
                                            loopCount: range.loopCount, reverse: range.reverse,
                                            startsBackwards: range.startsBackwards)
        } catch {
            throw .badSettings(error.description)
        }
        if timeline.loopCount != PlaybackTimeline.endless {
            let total = rate.milliseconds(atFrame: timeline.segmentLength) * Double(timeline.loopCount)
            guard total <= Limits.maximumMilliseconds else {
                // One pass names the content (a pattern ending at 24 h lasts 8 ms more: its fall).
                let what = timeline.loopCount == 1 ? "the content, in ms,"
                    : "the loops' total (\(timeline.loopCount) × \(JSONWriter.format(to - from)) ms)"
                throw .outOfRange(RangeError(what, total, .tooLong,
                                             "is beyond the 24 h limit (\(JSONWriter.format(Limits.maximumMilliseconds)) ms)"))
            }
        }

        hapticShift = rate.nearestFrame(atMilliseconds: settings.hapticOffset)
        if timeline.runsBackwards(iteration: 0) || (timeline.loopCount > 1 && timeline.runsBackwards(iteration: 1)) {
            // Backward iteration frame j must sound the haptic track at content time `to − j`,
            // i.e. the pattern at `to − j − offset`. Rendering the pattern mirrored about
            // a = (from + to) / 2 − offset at frame `from + j − offset` gives exactly that, with the
            // same frame arithmetic as the forward iterations.
            let axis = (rate.milliseconds(at: timeline.segmentStart) + rate.milliseconds(at: timeline.segmentEnd)) / 2
                - rate.milliseconds(atFrame: hapticShift)
            if let actuator = settings.actuator, let config = actuator.burstConfig {
                // A burst actuator: the clip its renderer reads forwards, mirrored (docs/actuators.md, "Backwards").
                let clip = actuator.clip(pattern: preset.pattern, lofeltClip: preset.lofeltClip, through: config)
                backward = ActuatorRenderer(mirroring: clip, around: axis / 1000, config: config, gain: settings.profile.gain, sampleRate: rate)
            } else {
                do {
                    backward = try Self.renderer(preset.pattern.mirrored(around: axis), clip: nil, settings: settings)
                } catch {
                    throw .badSettings(error.description)
                }
            }
        } else {
            backward = nil
        }

        hapticBuffer = .allocate(capacity: Self.blockFrames)
        hapticCache = .allocate(capacity: Self.hapticCacheFrames)
        hapticCache.initialize(repeating: 0)
        audioBuffer = .allocate(capacity: Self.blockFrames * 2)
        channelBuffer = .allocate(capacity: Self.blockFrames)
    }

    /// The settings and range numbers a caller gave, against `Limits`.
    private static func checkLimits(settings: MixSettings, range: PlaybackRange) throws(RangeError) {
        _ = try Limits.number(settings.audioGain, "the audio gain", in: 0...16)
        _ = try Limits.milliseconds(settings.hapticOffset, "the haptic offset", signed: true)
        if let v = range.duration { _ = try Limits.milliseconds(v, "the duration") }
        if let v = range.from { _ = try Limits.milliseconds(v, "--from") }
        if let v = range.to { _ = try Limits.milliseconds(v, "--to") }
    }

    deinit {
        hapticBuffer.deallocate()
        hapticCache.deallocate()
        audioBuffer.deallocate()
        channelBuffer.deallocate()
    }

    /// Frames of the whole timeline.
    public var frameCount: FrameIndex { timeline.frameCount }

    /// Renders timeline frames `frame ..< frame + buffer.count / channelCount` interleaved into
    /// `buffer`. Frames outside the timeline are silence. `hapticGain`: a gain per output frame
    /// on the haptic render before it meets the audio (a voice's live intensity); where it
    /// passes 1 the product goes through the limiter.
    ///
    /// `modulation`: the haptics on a voice's own oscillator with the frequency moved
    /// (`PatternRenderer.renderModulated`, a voice's sharpness), its offsets one per output frame
    /// and its phase advanced by every frame rendered inside the timeline.
    public func render(into buffer: UnsafeMutableBufferPointer<Float>, from frame: TimelineFrame,
                       hapticGain: UnsafePointer<Float>? = nil,
                       modulation: UnsafeMutablePointer<HapticModulation>? = nil) throws(AudioFileError) -> BlockReport {
        var report = BlockReport()
        let frames = buffer.count / channelCount
        var done = 0
        while done < frames {
            let start = frame + FrameIndex(done)
            var n = min(Self.blockFrames, frames - done)
            let out = buffer.baseAddress! + done * channelCount
            guard start >= .zero, start < timeline.end else {
                // Outside the timeline: silence up to the next frame inside it (or the end).
                if start < .zero { n = min(n, Int(-start.index)) }
                out.initialize(repeating: 0, count: n * channelCount)
                done += n
                continue
            }
            // Stay inside one iteration.
            let p = timeline.position(of: start)
            n = min(n, Int(timeline.segmentLength - p.offset))
            try renderRun(into: out, frames: n, backwards: p.backwards, offset: p.offset, gain: hapticGain.map { $0 + done },
                          modulation: modulation, offsetIndex: done, report: &report)
            done += n
        }
        return report
    }

    /// One run of `frames` output frames inside a single iteration, starting `offset` frames in.
    private func renderRun(into out: UnsafeMutablePointer<Float>, frames n: Int, backwards: Bool, offset: FrameIndex,
                           gain: UnsafePointer<Float>?, modulation: UnsafeMutablePointer<HapticModulation>?, offsetIndex: Int,
                           report: inout BlockReport) throws(AudioFileError) {
        let layout = settings.layout
        let haptics = UnsafeMutableBufferPointer(rebasing: hapticBuffer[0..<n])
        if layout.usesHaptics && settings.hapticsEnabled {
            // The pattern's own frames run `hapticShift` behind the content's (the haptic offset).
            let first = (timeline.segmentStart + offset).index - hapticShift
            if let modulation {
                (backwards ? backward! : forward).renderModulated(into: haptics, from: first, offsets: modulation.pointee.offsets + offsetIndex,
                                                                 phase: &modulation.pointee.phase)
            } else if n >= Self.hapticCacheFrames {
                report.hapticLimitedSamples += (backwards ? backward! : forward).render(into: haptics, from: first)
            } else {
                renderCached(into: haptics, from: first, backwards: backwards)
            }
            if let gain {
                for i in 0..<n {
                    let g = gain[i], h = haptics[i] * g
                    haptics[i] = g > 1 ? Limiter.apply(h) : h
                }
            }
        } else {
            haptics.initialize(repeating: 0)
        }

        let audioChannels = track?.channels ?? 0
        if let track {
            let audio = UnsafeMutableBufferPointer(rebasing: audioBuffer[0..<(n * audioChannels)])
            if backwards {
                // Content runs from segmentEnd − 1 − offset downwards: read that range forwards, reverse it.
                let high = timeline.segmentEnd - offset
                try track.read(contentFrames: (high - FrameIndex(n))..<high, into: audio)
                Self.reverseFrames(audio, channels: audioChannels)
            } else {
                let low = timeline.segmentStart + offset
                try track.read(contentFrames: low..<(low + FrameIndex(n)), into: audio)
            }
        }

        let channel = UnsafeMutableBufferPointer(rebasing: channelBuffer[0..<n])
        let channelCount = layout.channelCount
        for (c, sources) in layout.channels.enumerated() {
            channel.initialize(repeating: 0)
            var summed = 0
            for source in sources {
                switch source {
                case .silence:
                    continue
                case .haptic:
                    for i in 0..<n { channel[i] += haptics[i] }
                case .left, .right, .mono:
                    guard audioChannels > 0 else { continue }
                    let g = audioGain
                    if audioChannels == 1 {
                        for i in 0..<n { channel[i] += g * audioBuffer[i] }
                    } else if source == .mono {
                        for i in 0..<n { channel[i] += g * 0.5 * (audioBuffer[2 * i] + audioBuffer[2 * i + 1]) }
                    } else {
                        let k = source == .left ? 0 : 1
                        for i in 0..<n { channel[i] += g * audioBuffer[2 * i + k] }
                    }
                }
                summed += 1
            }
            if summed > 1 { report.limitedSamples += Limiter.process(channel) }
            for i in 0..<n { out[i * channelCount + c] = channel[i] }
        }
    }

    /// Pattern frames `first ..< first + haptics.count` (fewer than a cache block) through the
    /// haptic cache, rendering each aligned block they touch once. Its limiter counts are not
    /// reported (offline renders ask for long blocks, which render directly).
    private func renderCached(into haptics: UnsafeMutableBufferPointer<Float>, from first: FrameIndex, backwards: Bool) {
        let size = FrameIndex(Self.hapticCacheFrames)
        var done = 0
        while done < haptics.count {
            let frame = first + FrameIndex(done)
            let blockStart = (frame >= 0 ? frame / size : (frame - size + 1) / size) * size
            if hapticCacheStart != blockStart || hapticCacheBackwards != backwards {
                (backwards ? backward! : forward).render(into: hapticCache, from: blockStart)
                hapticCacheStart = blockStart
                hapticCacheBackwards = backwards
            }
            let k = min(haptics.count - done, Int(blockStart + size - frame))
            (haptics.baseAddress! + done).update(from: hapticCache.baseAddress! + Int(frame - blockStart), count: k)
            done += k
        }
    }

    static func reverseFrames(_ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        let frames = buffer.count / channels
        var a = 0, b = frames - 1
        while a < b {
            for c in 0..<channels { buffer.swapAt(a * channels + c, b * channels + c) }
            a += 1
            b -= 1
        }
    }
}

/// A voice's haptic frequency moved live, handed to `PresetMixer.render`: a frequency-parameter
/// offset per output frame, and the voice's oscillator phase (2⁻⁶⁴ cycles), which the render
/// advances.
public struct HapticModulation {
    public var offsets: UnsafePointer<Float>
    public var phase: UInt64

    public init(offsets: UnsafePointer<Float>, phase: UInt64) {
        self.offsets = offsets
        self.phase = phase
    }
}
