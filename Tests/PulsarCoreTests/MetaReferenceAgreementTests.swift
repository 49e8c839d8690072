import CMetaHapticsReference
import Foundation
import PulsarCore
import Testing

/// `MetaHapticRenderer` against Meta's own renderer: its C core (`CMetaHapticsReference`, copied
/// unchanged from facebook/meta-haptics-sdk) fed as the SDK's Rust reader feeds it, in f32 as
/// there. The agreement goals of docs/actuators.md ("Agreement with Meta's renderer"), per corpus
/// clip through each of Meta's configs.
struct MetaReferenceAgreementTests {
    static let rate = 48_000

    static func shape(_ s: MetaActuatorConfig.Shape) -> HapticRendererEmphasisShape {
        switch s {
        case .saw: return HAPTIC_RENDERER_EMPHASIS_SHAPE_SAW
        case .sine: return HAPTIC_RENDERER_EMPHASIS_SHAPE_SINE
        case .square: return HAPTIC_RENDERER_EMPHASIS_SHAPE_SQUARE
        case .triangle: return HAPTIC_RENDERER_EMPHASIS_SHAPE_TRIANGLE
        }
    }

    /// The clip rendered by Meta's renderer (unclipped, f32): its sample count and samples.
    static func reference(_ clip: LofeltClip, _ config: MetaActuatorConfig, emphasisGain: Double? = nil) -> [Float] {
        let amplitude = clip.amplitude.map {
            meta_reference_amplitude_point(time: Float($0.time), amplitude: Float($0.amplitude), has_emphasis: $0.emphasis == nil ? 0 : 1,
                                           emphasis_amplitude: Float($0.emphasis?.amplitude ?? 0), emphasis_frequency: Float($0.emphasis?.frequency ?? 0))
        }
        let frequency = clip.frequency.map { meta_reference_frequency_point(time: Float($0.time), frequency: Float($0.frequency)) }
        let c = config.continuous, e = config.emphasis
        let continuous = HapticRendererContinuousOscillatorSettings(gain: Float(c.gain), emphasis_ducking: Float(c.emphasisDucking),
                                                                   frequency_min: Float(c.frequencyMin), frequency_max: Float(c.frequencyMax))
        func end(_ x: MetaActuatorConfig.EmphasisEnd) -> HapticRendererEmphasisFrequencySettings {
            HapticRendererEmphasisFrequencySettings(output_frequency: Float(x.outputFrequency), duration_ms: Float(x.durationMs), shape: shape(x.shape))
        }
        let emphasis = HapticRendererEmphasisOscillatorSettings(gain: Float(emphasisGain ?? e.gain), fade_out_percent: Float(e.fadeOutPercent),
                                                                frequency_min: end(e.frequencyMin), frequency_max: end(e.frequencyMax))
        let count = meta_reference_sample_count(amplitude, Int64(amplitude.count), Float(rate))
        var out = [Float](repeating: 0, count: Int(max(count, 0)))
        meta_reference_render(amplitude, Int64(amplitude.count), frequency, Int64(frequency.count), continuous, emphasis, Float(rate), &out, count)
        return out
    }

    static func ours(_ clip: LofeltClip, _ config: MetaActuatorConfig) -> [Float] {
        let r = MetaHapticRenderer(clip: clip, config: config, sampleRate: SampleRate(rate)!)
        return r.render(frames: 0..<r.frameCount)
    }

    /// The figures of one clip: 10 ms RMS envelope correlation, RMS level difference (dB), the
    /// ratio of zero crossings, the largest onset difference (samples), over the common length;
    /// Meta's output clipped to ±1 as this project's is.
    struct Agreement {
        var correlation = 1.0, levelDB = 0.0, crossings = 1.0, onsetSamples = 0, length = 0, crossingCount = 0
    }

    static func agreement(_ clip: LofeltClip, _ config: MetaActuatorConfig) -> Agreement {
        let meta = reference(clip, config).map { min(max($0, -1), 1) }, here = ours(clip, config)
        let n = min(meta.count, here.count)
        var a = Agreement(length: n)
        guard n > 0 else { return a }
        let (x, y) = (Array(meta[..<n]), Array(here[..<n]))
        a.correlation = MetaHapticRendererTests.envelopeCorrelation(x, y)
        let (rx, ry) = (rms(x), rms(y))
        if rx > 0, ry > 0 { a.levelDB = 20 * log10(ry / rx) }
        let (cx, cy) = (crossings(x), crossings(y))
        a.crossingCount = cx
        a.crossings = cx > 0 ? Double(cy) / Double(cx) : (cy == 0 ? 1 : .infinity)
        // Onsets: where each emphasis first changes the output, in a render with and without the
        // bursts (the same rule on both sides).
        var silent = config
        silent.emphasis.gain = 0
        let (metaSilent, hereSilent) = (reference(clip, config, emphasisGain: 0), ours(clip, silent))
        let rawMeta = reference(clip, config)
        for point in clip.amplitude where point.emphasis != nil {
            let from = max(0, Int((point.time * Double(rate)).rounded(.down)) - 2)
            func onset(_ p: [Float], _ q: [Float]) -> Int? { (from..<min(n, from + 4_800)).first { p[$0] != q[$0] } }
            if let m = onset(rawMeta, metaSilent), let h = onset(here, hereSilent) { a.onsetSamples = max(a.onsetSamples, abs(m - h)) }
        }
        return a
    }

    static func rms(_ x: [Float]) -> Double { (x.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(x.count, 1))).squareRoot() }
    static func crossings(_ x: [Float]) -> Int { zip(x, x.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count }

    @Test("A clip with a ramp, a frequency sweep and three emphases: Meta's renderer and this one agree sample for sample within f32 rounding")
    func handMadeClip() throws {
        typealias A = LofeltClip.AmplitudePoint
        let clip = LofeltClip(amplitude: [A(time: 0, amplitude: 0.2), A(time: 0.1, amplitude: 0.9, emphasis: .init(amplitude: 1, frequency: 0)),
                                          A(time: 0.2, amplitude: 0.5, emphasis: .init(amplitude: 0.5, frequency: 0.5)),
                                          A(time: 0.4, amplitude: 0.1, emphasis: .init(amplitude: 0.8, frequency: 1)), A(time: 0.6, amplitude: 0)],
                              frequency: [.init(time: 0, frequency: 0), .init(time: 0.3, frequency: 1), .init(time: 0.6, frequency: 0.2)])
        let config = try MetaHapticRendererTests.console()
        let meta = Self.reference(clip, config), here = Self.ours(clip, config)
        #expect(meta.count == here.count, "\(meta.count) vs \(here.count)")
        let worst = zip(meta, here).map { abs(Double(min(max($0, -1), 1)) - Double($1)) }.max() ?? 0
        print("measured: hand-made clip, largest |Meta − here| \(worst) over \(meta.count) samples")
        #expect(worst < 1e-3, "\(worst)")
    }

    @Test("Every corpus clip through Meta's console and Quest configs: envelope correlation ≥ 0.99, level within 0.1 dB, zero crossings within 1 %, emphasis onsets within a sample",
          .enabled(if: Corpus.available, "needs ../shared/corpus"), arguments: ["meta-console", "meta-quest"])
    func corpusAgreement(name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let config = try MetaActuatorConfig.load(path: root.appendingPathComponent("Resources/actuators/\(name).acf").path).config
        var worst = (correlation: 1.0, level: 0.0, crossings: 0.0, onset: 0), clips = 0
        for path in try Corpus.files(in: "lofelt/clips", ext: "haptic") {
            let clip = try #require(try PatternLoader().load(contentsOf: path).lofeltClip)
            let a = Self.agreement(clip, config)
            guard a.length > 0 else { continue }
            clips += 1
            #expect(a.correlation >= 0.99, "\(Corpus.name(path)): correlation \(a.correlation)")
            #expect(abs(a.levelDB) <= 0.1, "\(Corpus.name(path)): level \(a.levelDB) dB")
            if a.crossingCount >= 200 { #expect(abs(a.crossings - 1) <= 0.01, "\(Corpus.name(path)): crossings × \(a.crossings)") }
            #expect(a.onsetSamples <= 1, "\(Corpus.name(path)): onsets \(a.onsetSamples) samples apart")
            worst = (min(worst.correlation, a.correlation), max(worst.level, abs(a.levelDB)),
                     max(worst.crossings, a.crossingCount >= 200 ? abs(a.crossings - 1) : 0), max(worst.onset, a.onsetSamples))
        }
        print("measured: \(name), \(clips) corpus clips against Meta's renderer: envelope correlation ≥ \(worst.correlation), level within \(worst.level) dB, zero crossings within \(worst.crossings * 100) %, onsets within \(worst.onset) samples")
        #expect(clips > 100)
    }
}
