import Foundation
import PulsarCore
import Testing

/// A Pulsar pattern as the clip an actuator config's renderer reads (docs/actuators.md, "Other
/// formats through an ACF"), against clips written out by hand.
struct PatternClipTests {
    typealias A = LofeltClip.AmplitudePoint
    typealias F = LofeltClip.FrequencyPoint
    typealias E = LofeltClip.Emphasis

    static func emphasis() throws -> MetaActuatorConfig.Emphasis { try MetaHapticRendererTests.console().emphasis }

    @Test("A steady carrier with a transient: the curve from 0 to its end, then 0; the transient an emphasis on the curve's value at its time")
    func carrierAndTransient() throws {
        let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 1000, value: 0.5)],
                                                                       frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 1000, value: 0)]),
                                  discretePattern: [DiscretePoint(time: 200, amplitude: 1, frequency: 1)])
        let clip = LofeltClip(pattern: pattern, emphasis: try Self.emphasis())
        #expect(clip.amplitude == [A(time: 0, amplitude: 0.5), A(time: 0.2, amplitude: 0.5, emphasis: E(amplitude: 1, frequency: 1)),
                                   A(time: 1, amplitude: 0.5), A(time: 1, amplitude: 0)])
        #expect(clip.frequency == [F(time: 0, frequency: 0), F(time: 1, frequency: 0)])
    }

    @Test("Transients alone: silent points carrying them from 0, the clip lasting until the last burst has sounded (27 ms at frequency 0, 20 ms at 1)")
    func transientsAlone() throws {
        let pattern = PatternData(discretePattern: [DiscretePoint(time: 100, amplitude: 0.8, frequency: 0), DiscretePoint(time: 300, amplitude: 0.4, frequency: 1)])
        let clip = LofeltClip(pattern: pattern, emphasis: try Self.emphasis())
        #expect(clip.amplitude == [A(time: 0, amplitude: 0), A(time: 0.1, amplitude: 0, emphasis: E(amplitude: 0.8, frequency: 0)),
                                   A(time: 0.3, amplitude: 0, emphasis: E(amplitude: 0.4, frequency: 1)), A(time: 0.32, amplitude: 0)])
        #expect(clip.frequency.isEmpty)
    }

    @Test("A ramp starting late, a transient on a point, one mid-slope and one past the curve's end; the frequency curve's first value held from 0")
    func rampAndEdges() throws {
        let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 100, value: 0.2), ValuePoint(time: 300, value: 0.6)],
                                                                       frequency: [ValuePoint(time: 50, value: 0.3), ValuePoint(time: 400, value: 0.7)]),
                                  discretePattern: [DiscretePoint(time: 100, amplitude: 1, frequency: 0.5), DiscretePoint(time: 200, amplitude: 0.5, frequency: 0),
                                                    DiscretePoint(time: 450, amplitude: 0.9, frequency: 0)])
        let clip = LofeltClip(pattern: pattern, emphasis: try Self.emphasis())
        // T_end = 400 ms (the frequency curve's last point): the amplitude holds 0.2 before 100 ms
        // and 0.6 from 300 to 400 ms; mid-slope at 200 ms it is 0.4; past 400 ms, 0; the last
        // burst (27 ms) ends at 477 ms.
        #expect(clip.amplitude == [A(time: 0, amplitude: 0.2), A(time: 0.1, amplitude: 0.2, emphasis: E(amplitude: 1, frequency: 0.5)),
                                   A(time: 0.2, amplitude: 0.4, emphasis: E(amplitude: 0.5, frequency: 0)), A(time: 0.3, amplitude: 0.6),
                                   A(time: 0.4, amplitude: 0.6), A(time: 0.4, amplitude: 0), A(time: 0.45, amplitude: 0, emphasis: E(amplitude: 0.9, frequency: 0)),
                                   A(time: 0.477, amplitude: 0)], "\(clip.amplitude)")
        #expect(clip.frequency == [F(time: 0, frequency: 0.3), F(time: 0.05, frequency: 0.3), F(time: 0.4, frequency: 0.7)])
    }

    @Test("Every corpus AHAP and Pulsar preset maps to a clip starting at 0, in time order, one emphasis per transient, and renders through the DualSense config: its length the clip's, no NaN, within ±1",
          .enabled(if: Corpus.available, "needs ../shared/corpus"))
    func corpusThroughAnACF() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let config = try MetaActuatorConfig.load(path: root.appendingPathComponent("Resources/actuators/dualsense.acf").path).config
        var count = 0
        for (folder, ext) in [("ahap", "ahap"), ("pulsar-presets", "json")] {
            for path in try Corpus.files(in: folder, ext: ext) {
                guard let loaded = try? PatternLoader().load(contentsOf: path) else { continue }
                let clip = LofeltClip(pattern: loaded.pattern, emphasis: config.emphasis)
                let times = clip.amplitude.map(\.time)
                #expect(times.first == 0 && zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(Corpus.name(path))")
                #expect(clip.amplitude.filter { $0.emphasis != nil }.count == loaded.pattern.discretePattern.count, "\(Corpus.name(path))")
                let r = MetaHapticRenderer(clip: clip, config: config, sampleRate: MetaHapticRendererTests.rate)
                #expect(r.frameCount == FrameIndex((times.last! * 48_000 + 1e-6).rounded(.down)), "\(Corpus.name(path))")
                let s = r.render(frames: 0..<min(r.frameCount, 48_000 * 60))
                #expect(!s.contains { $0.isNaN || abs($0) > 1 }, "\(Corpus.name(path))")
                count += 1
            }
        }
        print("measured: \(count) corpus AHAP and Pulsar patterns rendered through the DualSense config")
        #expect(count > 20)
    }
}
