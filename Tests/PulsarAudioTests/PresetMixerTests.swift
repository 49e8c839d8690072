import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import Testing

/// The mixer against its parts: every output channel equals the resampled audio and the haptic
/// render placed where docs/mixing.md says, for layouts, offsets, segments, loops and boomerangs.
@Suite struct PresetMixerTests {
    static let rate = SampleRate(48_000)!

    /// A temporary directory removed by `remove()`.
    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-mix-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// 1.5 s of stereo-ish "audio" at 44.1 kHz: a rendered tone written as a mono float WAV.
    static func audioFile(in dir: String, rate: Int = 44_100, ms: Double = 1500) throws -> String {
        let tone = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: ms, value: 0.2)],
            frequency: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: ms, value: 0.9)]))
        let renderer = try PatternRenderer(pattern: tone, sampleRate: SampleRate(rate)!)
        let path = dir + "/audio.wav"
        _ = try WAVExporter(format: .float).export(renderer, to: path)
        return path
    }

    static let pattern = PatternData(
        continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.3), ValuePoint(time: 1000, value: 0.1)],
                                             frequency: [ValuePoint(time: 0, value: 0.5)]),
        discretePattern: [DiscretePoint(time: 100, amplitude: 0.3, frequency: 0.8), DiscretePoint(time: 700, amplitude: 0.25, frequency: 0.1)])

    static func preset(audioPath: String?, volume: Double = 0.8, offset: Double = 0, duration: Double = 0) throws -> PresetHandle {
        let audio = try audioPath.map { AudioAsset(source: "audio.wav", bytes: try FileByteSource(path: $0), volume: volume, offset: offset) }
        return PresetHandle(id: "test", name: "Test", duration: duration, pattern: pattern, audio: audio)
    }

    /// All frames of a mixer, interleaved.
    static func renderAll(_ mixer: PresetMixer, block: Int = 1000) throws -> [Float] {
        var out = [Float](repeating: .nan, count: Int(mixer.frameCount) * mixer.channelCount)
        var frame: FrameIndex = 0
        try out.withUnsafeMutableBufferPointer { whole in
            while frame < mixer.frameCount {
                let n = min(block, Int(mixer.frameCount - frame))
                let part = UnsafeMutableBufferPointer(rebasing: whole[(Int(frame) * mixer.channelCount)..<((Int(frame) + n) * mixer.channelCount)])
                _ = try mixer.render(into: part, from: TimelineFrame(frame))
                frame += FrameIndex(n)
            }
        }
        return out
    }

    static func channel(_ interleaved: [Float], _ c: Int, of channels: Int) -> [Float] {
        stride(from: c, to: interleaved.count, by: channels).map { interleaved[$0] }
    }

    /// The audio resampled to 48 kHz, read straight from an `AudioStream` (the reference).
    static func resampledAudio(_ path: String, channels: Int) throws -> [Float] {
        let stream = try AudioStream(bytes: try FileByteSource(path: path), name: "audio.wav", outputRate: rate, channels: channels)
        var out = [Float](repeating: 0, count: Int(stream.frameCount) * channels)
        let n = try out.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: Int(stream.frameCount)) }
        #expect(n == Int(stream.frameCount))
        return out
    }

    static func haptic(from: FrameIndex, count: Int, pattern: PatternData = pattern) throws -> [Float] {
        try PatternRenderer(pattern: pattern, sampleRate: rate).render(frames: from..<(from + FrameIndex(count)))
    }

    static func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).map { abs($0 - $1) }.max() ?? 0
    }

    @Test("Layouts have the right channel counts, and maps parse", arguments: [
        ("mix", 2), ("stereo+haptic", 3), ("quad", 4), ("haptic", 1), ("L+H,R+H", 2), ("H,H,0,0,M", 5),
    ])
    func layouts(name: String, channels: Int) throws {
        let layout = try #require(ChannelLayout(parsing: name))
        #expect(layout.channelCount == channels)
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mixer = try PresetMixer(preset: try Self.preset(audioPath: try Self.audioFile(in: dir)), settings: MixSettings(layout: layout))
        #expect(mixer.channelCount == channels)
        let all = try Self.renderAll(mixer)
        #expect(all.count == Int(mixer.frameCount) * channels)
        #expect(!all.contains { $0.isNaN })
    }

    @Test("Bad maps are refused", arguments: ["", "L,,R", "X", "L+", "H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H,H"])
    func badMaps(text: String) {
        #expect(ChannelLayout(parsing: text) == nil)
    }

    @Test("Per channel, the mix is the resampled audio plus the haptic render")
    func mixEqualsParts() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let audioPath = try Self.audioFile(in: dir)
        let preset = try Self.preset(audioPath: audioPath, volume: 0.8)
        let audio = try Self.resampledAudio(audioPath, channels: 2)
        // Duration: the audio (a 1500 ms tone whose end fades over the model's 8 ms, 1508 ms in
        // all) outlasts the pattern (1008 ms).
        let mixer = try PresetMixer(preset: preset, settings: MixSettings(layout: .stereoHaptic))
        #expect(mixer.durationRule == .content)
        #expect(mixer.frameCount == 72_384)
        #expect(audio.count == 2 * 72_384)
        let out = try Self.renderAll(mixer, block: 777)
        let h = try Self.haptic(from: 0, count: 72_384)
        let left = Self.channel(out, 0, of: 3), right = Self.channel(out, 1, of: 3), hap = Self.channel(out, 2, of: 3)
        #expect(Self.maxDifference(left, Self.channel(audio, 0, of: 2).map { $0 * 0.8 }) <= 1e-6)
        #expect(Self.maxDifference(right, Self.channel(audio, 1, of: 2).map { $0 * 0.8 }) <= 1e-6)
        #expect(hap == h)

        let mix = try Self.renderAll(try PresetMixer(preset: preset, settings: MixSettings(layout: .mix)))
        let expected = zip(Self.channel(audio, 0, of: 2), h).map { $0 * 0.8 + $1 }
        #expect(expected.allSatisfy { abs($0) < 0.8 }, "below the knee: the limiter is the identity")
        #expect(Self.maxDifference(Self.channel(mix, 0, of: 2), expected) <= 1e-6)
        #expect(Self.maxDifference(Self.channel(mix, 1, of: 2), expected) <= 1e-6)

        let quad = try Self.renderAll(try PresetMixer(preset: preset, settings: MixSettings(layout: .quad)))
        #expect(Self.channel(quad, 2, of: 4) == h && Self.channel(quad, 3, of: 4) == h)
    }

    @Test("Haptic offset shifts the haptic channel by exact frames", arguments: [125.0, -40.0])
    func hapticOffset(ms: Double) throws {
        let mixer = try PresetMixer(preset: try Self.preset(audioPath: nil),
                                    settings: MixSettings(layout: .haptic, hapticOffset: ms),
                                    range: PlaybackRange(duration: 1200))
        let out = try Self.renderAll(mixer)
        let shift = FrameIndex((ms * 48).rounded())
        #expect(out == (try Self.haptic(from: -shift, count: out.count)))
    }

    @Test("Audio offset: positive delays the audio, negative trims its start", arguments: [200.0, -300.0])
    func audioOffset(ms: Double) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let audioPath = try Self.audioFile(in: dir)
        let audio = Self.channel(try Self.resampledAudio(audioPath, channels: 2), 0, of: 2)
        let mixer = try PresetMixer(preset: try Self.preset(audioPath: audioPath, volume: 1, offset: ms),
                                    settings: MixSettings(layout: .stereoHaptic))
        let shift = Int((ms * 48).rounded())
        #expect(mixer.frameCount == FrameIndex(audio.count + shift), "the duration follows the shifted audio end")
        let left = Self.channel(try Self.renderAll(mixer), 0, of: 3)
        for n in stride(from: 0, to: left.count, by: 97) {
            let a = n - shift
            let expected: Float = a >= 0 && a < audio.count ? audio[a] : 0
            #expect(abs(left[n] - expected) <= 1e-6, "frame \(n)")
        }
    }

    @Test("Segments and loops: every iteration boundary is sample-exact")
    func loopsAndSegments() throws {
        let range = PlaybackRange(from: 50.5, to: 430.25, loopCount: 3)
        let mixer = try PresetMixer(preset: try Self.preset(audioPath: nil), settings: MixSettings(layout: .haptic), range: range)
        let start = FrameIndex((50.5 * 48).rounded()), end = FrameIndex((430.25 * 48).rounded())
        #expect(mixer.timeline.segmentStart.index == start && mixer.timeline.segmentEnd.index == end)
        #expect(mixer.frameCount == 3 * (end - start))
        let out = try Self.renderAll(mixer, block: 1234)
        let once = try Self.haptic(from: start, count: Int(end - start))
        for k in 0..<3 {
            #expect(Array(out[(k * once.count)..<((k + 1) * once.count)]) == once, "iteration \(k)")
        }
    }

    @Test("Boomerang: transients fire at mirrored times with their forward shape, audio runs backwards")
    func boomerang() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let audioPath = try Self.audioFile(in: dir)
        var preset = try Self.preset(audioPath: audioPath, volume: 1)
        preset.pattern = PatternData(discretePattern: [DiscretePoint(time: 100, amplitude: 0.5, frequency: 0.8)])
        let mixer = try PresetMixer(preset: preset, settings: MixSettings(layout: .stereoHaptic),
                                    range: PlaybackRange(from: 0, to: 500, loopCount: 2, reverse: true))
        let out = try Self.renderAll(mixer)
        let segment = 24_000
        let hap = Self.channel(out, 2, of: 3)
        // Forward: the click at frame 4800. Backward: at 500 − 100 = 400 ms into the iteration.
        let click = try Self.haptic(from: 4800, count: 1000, pattern: preset.pattern)
        #expect(Array(hap[4800..<5800]) == click)
        // The backward pass renders the transient at 400 ms, at rest: bit for bit that render, and
        // the forward click's samples within the model's tolerance (its chunk grid differs).
        let mirrored = try Self.haptic(from: 19_200, count: 1000,
                                       pattern: PatternData(discretePattern: [DiscretePoint(time: 400, amplitude: 0.5, frequency: 0.8)]))
        #expect(Array(hap[(segment + 19_200)..<(segment + 20_200)]) == mirrored, "mirrored time")
        #expect(Self.maxDifference(mirrored, click) <= 2e-5, "same shape")
        #expect(click.contains { abs($0) > 0.4 })
        #expect(hap[segment + 19_199] == 0)
        // Audio of the backward iteration is the forward iteration's, frame-reversed.
        let left = Self.channel(out, 0, of: 3)
        let forward = Array(left[0..<segment]), backward = Array(left[segment..<(2 * segment)])
        #expect(Self.maxDifference(backward, forward.reversed()) < 2e-3, "reversed within the seek tolerance of the stream")
        #expect(Self.maxDifference(Array(backward[0..<100]), Array(forward.reversed()[0..<100])) < 2e-3)
    }

    @Test("Starting backwards: the audio is the forward render of the segment reversed frame by frame, exactly; the haptics are a boomerang's backward iteration")
    func startsBackwards() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let audioPath = try Self.audioFile(in: dir)
        var preset = try Self.preset(audioPath: audioPath, volume: 1)
        preset.pattern.discretePattern.append(DiscretePoint(time: 300, amplitude: 0.4, frequency: 0.6))
        var settings = MixSettings(layout: .stereoHaptic)
        settings.preloadAudio = true
        let forward = try PresetMixer(preset: preset, settings: settings, range: PlaybackRange(from: 100, to: 900))
        let backward = try PresetMixer(preset: preset, settings: settings, range: PlaybackRange(from: 100, to: 900, startsBackwards: true))
        #expect(backward.timeline.startsBackwards && !forward.timeline.startsBackwards)
        #expect(backward.frameCount == forward.frameCount && backward.frameCount == 38_400)
        let ahead = try Self.renderAll(forward), back = try Self.renderAll(backward, block: 777)
        // Written out independently: the forward stream with its frames in reverse order.
        var reversed: [Float] = []
        for frame in stride(from: ahead.count / 3 - 1, through: 0, by: -1) { reversed += ahead[(frame * 3)..<(frame * 3 + 2)] }
        var backAudio: [Float] = []
        for frame in 0..<(back.count / 3) { backAudio += back[(frame * 3)..<(frame * 3 + 2)] }
        #expect(backAudio == reversed, "left and right: the forward frames, last first, bit for bit")
        // The haptic channel is rendered as a boomerang's backward iteration is: mirrored curves,
        // transients at mirrored times with their forward shape.
        let boomerang = try Self.renderAll(try PresetMixer(preset: preset, settings: settings,
                                                           range: PlaybackRange(from: 100, to: 900, loopCount: 2, reverse: true)))
        let backHaptic = Self.channel(back, 2, of: 3)
        #expect(backHaptic == Array(Self.channel(boomerang, 2, of: 3)[38_400...]))
        var clickOnly = preset
        clickOnly.pattern = PatternData(discretePattern: [DiscretePoint(time: 300, amplitude: 0.4, frequency: 0.6)])
        let clicks = Self.channel(try Self.renderAll(try PresetMixer(preset: clickOnly, settings: settings,
                                                                      range: PlaybackRange(from: 100, to: 900, startsBackwards: true))), 2, of: 3)
        // Content 300 ms heard 900 − 300 = 600 ms into the backward pass.
        #expect(Array(clicks[28_800..<29_800]) == (try Self.haptic(from: 14_400, count: 1000, pattern: clickOnly.pattern)))
        #expect(clicks[28_799] == 0)
        // The same direction reached through a live adjustment renders the same stream.
        let adjusted = try forward.adjusted({ $0.startsBackwards = true })
        #expect(adjusted.timeline == backward.timeline)
        #expect(try Self.renderAll(adjusted) == back)
        #expect(try forward.adjusted({ $0.loopCount = 3 }).timeline.startsBackwards == false, "nil keeps the direction")
    }

    @Test("Starting backwards with a boomerang: backwards, forwards, backwards, each iteration exact")
    func startsBackwardsBoomerang() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let audioPath = try Self.audioFile(in: dir)
        var settings = MixSettings(layout: .stereoHaptic)
        settings.preloadAudio = true
        let preset = try Self.preset(audioPath: audioPath)
        let once = try Self.renderAll(try PresetMixer(preset: preset, settings: settings, range: PlaybackRange(from: 50, to: 450)))
        let backOnce = try Self.renderAll(try PresetMixer(preset: preset, settings: settings,
                                                          range: PlaybackRange(from: 50, to: 450, startsBackwards: true)))
        let mixer = try PresetMixer(preset: preset, settings: settings,
                                    range: PlaybackRange(from: 50, to: 450, loopCount: 3, reverse: true, startsBackwards: true))
        #expect([0, 1, 2].map { mixer.timeline.runsBackwards(iteration: $0) } == [true, false, true])
        let out = try Self.renderAll(mixer, block: 1500)
        let n = once.count
        #expect(out.count == 3 * n)
        #expect(Array(out[0..<n]) == backOnce, "iteration 0 runs backwards")
        #expect(Array(out[n..<(2 * n)]) == once, "iteration 1 runs forwards")
        #expect(Array(out[(2 * n)..<(3 * n)]) == backOnce, "iteration 2 runs backwards again")
    }

    @Test("Duration precedence: explicit, preset, animation, content")
    func durationPrecedence() throws {
        var preset = try Self.preset(audioPath: nil)
        #expect(try PresetMixer(preset: preset, settings: MixSettings()).durationRule == .content)
        let animation = Array(#"{"v":"5.5.2","fr":25,"ip":5,"op":55,"w":10,"h":10,"layers":[]}"#.utf8)
        preset.animation = AnimationAsset(source: "a.json", data: animation)
        let fromAnimation = try PresetMixer(preset: preset, settings: MixSettings())
        #expect(fromAnimation.durationRule == .animation && fromAnimation.durationMilliseconds == 2000)
        preset.duration = 750
        let fromPreset = try PresetMixer(preset: preset, settings: MixSettings())
        #expect(fromPreset.durationRule == .preset && fromPreset.frameCount == 36_000)
        let explicit = try PresetMixer(preset: preset, settings: MixSettings(), range: PlaybackRange(duration: 333))
        #expect(explicit.durationRule == .explicit && explicit.frameCount == 15_984)
    }

    @Test("Bad ranges are refused with a reason")
    func badRanges() throws {
        let preset = try Self.preset(audioPath: nil)
        for range in [PlaybackRange(from: 500, to: 400), PlaybackRange(from: -1), PlaybackRange(to: 5000), PlaybackRange(loopCount: 0)] {
            #expect(throws: PresetMixer.SetupError.self) { try PresetMixer(preset: preset, settings: MixSettings(), range: range) }
        }
    }

    @Test("Preloaded audio renders the same stream as streamed audio; backward iterations reverse it exactly")
    func preloadedAudio() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let audioPath = try Self.audioFile(in: dir)
        let range = PlaybackRange(from: 100, to: 900, loopCount: 3, reverse: true)
        var streamedSettings = MixSettings(layout: .stereoHaptic)
        var preloadedSettings = streamedSettings
        preloadedSettings.preloadAudio = true
        streamedSettings.preloadAudio = false
        let streamed = try Self.renderAll(try PresetMixer(preset: try Self.preset(audioPath: audioPath), settings: streamedSettings, range: range))
        let preloaded = try Self.renderAll(try PresetMixer(preset: try Self.preset(audioPath: audioPath), settings: preloadedSettings, range: range), block: 333)
        #expect(streamed.count == preloaded.count)
        let segment = 38_400
        // Streaming seeks (to the segment start, and block by block backwards); memory does not.
        #expect(Self.maxDifference(preloaded, streamed) < 2e-3, "the modes differ only by the stream's seek error")
        let left = Self.channel(preloaded, 0, of: 3)
        let exactlyReversed = Array(left[segment..<(2 * segment)]) == Array(left[0..<segment].reversed())
        #expect(exactlyReversed, "backward iteration = forward iteration reversed, exactly, from memory")
        let repeated = Array(left[(2 * segment)..<(3 * segment)]) == Array(left[0..<segment])
        #expect(repeated, "the third iteration repeats the first exactly")
    }
}
