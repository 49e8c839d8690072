import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarPlot
import PulsarTestSupport
import Testing

/// `PresetPlot`: the pattern's points, the transients, the rendered output, the markers and the
/// spectrogram land where the pattern puts them, read back from the decoded PNG at the pixels
/// the figure's geometry names.
@Suite("Preset plot")
struct PresetPlotTests {
    static func preset(_ pattern: PatternData, duration: Double = 1000, animation: AnimationAsset? = nil) -> PresetHandle {
        PresetHandle(id: "test", name: "test", duration: duration, pattern: pattern, animation: animation)
    }

    static func options(layout: ChannelLayout = .haptic, spectrum: Bool = false) -> PresetPlot.Options {
        PresetPlot.Options(width: 800, height: 600, settings: MixSettings(layout: layout), spectrum: spectrum)
    }

    static let flat = ContinuousPattern(amplitude: [], frequency: [])

    @Test("a transient at 400 ms: its pixel column holds the transient colour up its stem, columns 40 px away do not")
    func transientColumn() throws {
        let pattern = PatternData(discretePattern: [DiscretePoint(time: 400, amplitude: 0.8, frequency: 0.5)])
        let figure = try PresetPlot(preset: Self.preset(pattern), options: Self.options()).figure()
        let g = try figure.geometry(), p = g.panels[0]
        let picture = try Picture(figure)
        let column = g.column(400), colour = PresetPlot.Palette.transient
        for value in [0.1, 0.4, 0.7] {
            #expect(picture.holds(colour, at: column, p.row(value)), "stem at \(value)")
            for away in [column - 40, column + 40] { #expect(!picture.holds(colour, at: away, p.row(value))) }
        }
        #expect(!picture.holds(colour, at: column, p.row(0.95)), "no taller than its amplitude")
        // The frequency panel: a disc at 0.5 of the wideband band, 180 Hz.
        let hz = g.panels[1]
        #expect(picture.holds(colour, at: column, hz.row(180)))
        #expect(!picture.holds(colour, at: column, hz.row(260)))
    }

    @Test("an amplitude step from 0.2 to 0.8 at 500 ms: the curve is on row(0.2) before and on row(0.8) after")
    func amplitudeStep() throws {
        let curves = ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 500, value: 0.2),
                                                   ValuePoint(time: 500, value: 0.8), ValuePoint(time: 1000, value: 0.8)],
                                       frequency: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 1000, value: 0.5)])
        let figure = try PresetPlot(preset: Self.preset(PatternData(continuousPattern: curves)), options: Self.options()).figure()
        let g = try figure.geometry(), p = g.panels[0]
        let picture = try Picture(figure)
        let line = PresetPlot.Palette.amplitude
        for ms in [100.0, 250, 450] {
            #expect(picture.holds(line, at: g.column(ms), p.row(0.2)), "at \(ms) ms")
            #expect(!picture.holds(line, at: g.column(ms), p.row(0.8)))
        }
        for ms in [550.0, 750, 950] {
            #expect(picture.holds(line, at: g.column(ms), p.row(0.8)), "at \(ms) ms")
            #expect(!picture.holds(line, at: g.column(ms), p.row(0.2)), "under the curve is its light fill, not the line")
        }
        // The step itself: a vertical run of the line's colour in the column of 500 ms.
        let run = picture.rows(holding: line, inColumn: g.column(500), from: p.row(0.75), to: p.row(0.25))
        #expect(run.count >= (p.row(0.25) - p.row(0.75)) * 9 / 10, "\(run.count) rows")
        #expect(picture.holds(PresetPlot.Palette.frequency, at: g.column(250), p.row(0.5)), "the frequency line at 0.5")
    }

    @Test("the haptic output: silent before the carrier starts, swinging past ±0.5 in every period after, drawn where its buckets say")
    func outputEnvelope() throws {
        // 300 Hz: a period (3.3 ms) inside any 4 columns of 1.4 ms.
        let curves = ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0), ValuePoint(time: 500, value: 0),
                                                   ValuePoint(time: 500, value: 1), ValuePoint(time: 1000, value: 1)],
                                       frequency: [ValuePoint(time: 0, value: 1)])
        let figure = try PresetPlot(preset: Self.preset(PatternData(continuousPattern: curves)), options: Self.options()).figure()
        let g = try figure.geometry()
        let panel = figure.panels[PresetPlot.firstWaveformPanel]
        guard case .envelope(let envelope) = panel.series[0] else { Issue.record("no envelope"); return }
        #expect(envelope.columns == g.columns && envelope.span == g.xRange)
        let before = g.column(495) - Int(g.plotLeft), after = g.column(600) - Int(g.plotLeft)
        #expect(envelope.maximum[0..<before].allSatisfy { $0 == 0 } && envelope.minimum[0..<before].allSatisfy { $0 == 0 })
        for start in stride(from: after, to: envelope.columns - 4, by: 4) {
            #expect(envelope.maximum[start..<(start + 4)].max()! > 0.5 && envelope.minimum[start..<(start + 4)].min()! < -0.5, "at column \(start)")
        }
        let picture = try Picture(figure), p = g.panels[PresetPlot.firstWaveformPanel]
        let late = g.column(750)
        #expect((late..<(late + 4)).contains { picture.holds(PresetPlot.Palette.haptic, at: $0, p.row(0.4)) })
        #expect((late..<(late + 4)).contains { picture.holds(PresetPlot.Palette.haptic, at: $0, p.row(-0.4)) })
        #expect(picture.holds(PresetPlot.Palette.haptic, at: g.column(250), p.row(0)), "silence: a line at 0")
        #expect(!picture.holds(PresetPlot.Palette.haptic, at: g.column(250), p.row(0.4)))
    }

    @Test("an animation's markers are named vertical lines at their content times, in every panel")
    func markers() throws {
        let json = #"{"v":"5.7.0","fr":60,"ip":0,"op":60,"w":100,"h":100,"layers":[],"#
            + #""markers":[{"cm":"hit","tm":30,"dr":0},{"cm":"late","tm":54,"dr":6}]}"#
        let animation = AnimationAsset(source: "animation/a.json", data: Array(json.utf8))
        let pattern = PatternData(discretePattern: [DiscretePoint(time: 100, amplitude: 0.5, frequency: 0.5)])
        let figure = try PresetPlot(preset: Self.preset(pattern, duration: 0, animation: animation), options: Self.options()).figure()
        let g = try figure.geometry()
        #expect(g.xRange == 0...1000, "the animation sets the duration: 60 frames at 60 fps")
        let lines = figure.panels[0].series.compactMap { s -> ReferenceLine? in if case .vertical(let l) = s { return l } else { return nil } }
        #expect(lines.map(\.value) == [500, 900] && lines.map(\.label) == ["hit", "late"])
        for panel in figure.panels.dropFirst() {
            #expect(panel.series.filter { if case .vertical = $0 { return true } else { return false } }.count == 2)
        }
        let picture = try Picture(figure), p = g.panels[0]
        let rows = Array(p.row(0.8)..<p.row(0.2))
        let marked = rows.filter { picture.holds(PresetPlot.Palette.marker, at: g.column(500), $0) }
        #expect(marked.count > rows.count / 3, "a dashed line: \(marked.count) of \(rows.count) rows")
        #expect(!rows.contains { picture.holds(PresetPlot.Palette.marker, at: g.column(700), $0) })
    }

    @Test("the spectrogram of a steady 180 Hz carrier is brightest at 180 Hz")
    func spectrogramPeak() throws {
        let curves = ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 1), ValuePoint(time: 1000, value: 1)],
                                       frequency: [ValuePoint(time: 0, value: 0.5)])
        let figure = try PresetPlot(preset: Self.preset(PatternData(continuousPattern: curves)), options: Self.options(spectrum: true)).figure()
        guard case .heatMap(let map) = figure.panels.last?.series[0] else { Issue.record("no heat map"); return }
        let binHertz = (map.ySpan.upperBound - map.ySpan.lowerBound) / Double(map.rows)
        for column in map.columns / 4..<(map.columns * 3 / 4) {
            let levels = (0..<map.rows).map { map[column, $0] }
            let peak = levels.indices.max { levels[$0] < levels[$1] }!
            #expect(abs(Double(peak) * binHertz - 180) <= binHertz, "column \(column): peak at \(Double(peak) * binHertz) Hz")
            #expect(levels[peak] > -3 && levels[peak] <= 0.5, "a full-scale carrier reads near 0 dBFS: \(levels[peak])")
        }
    }

    @Test("quad: channels fed alike share a panel; a silent channel has none")
    func channelPanels() throws {
        let pattern = PatternData(discretePattern: [DiscretePoint(time: 100, amplitude: 1, frequency: 0.5)])
        let quad = try PresetPlot(preset: Self.preset(pattern), options: Self.options(layout: .quad)).figure()
        #expect(quad.panels.dropFirst(PresetPlot.firstWaveformPanel).map(\.title)
            == ["output channel 1 (L)", "output channel 2 (R)", "output channels 3, 4 (H)"])
        let map = try #require(ChannelLayout(parsing: "H,0,L+H"))
        let mapped = try PresetPlot(preset: Self.preset(pattern), options: Self.options(layout: map)).figure()
        #expect(mapped.panels.dropFirst(PresetPlot.firstWaveformPanel).map(\.title) == ["output channel 1 (H)", "output channel 3 (L+H)"])
    }

    @Test("a span past the end or backwards is the mixer's refusal, not a picture")
    func badSpans() throws {
        let pattern = PatternData(discretePattern: [DiscretePoint(time: 100, amplitude: 1, frequency: 0.5)])
        for range in [PlaybackRange(from: 0, to: 5000), PlaybackRange(from: 600, to: 400)] {
            var options = Self.options()
            options.range = range
            #expect {
                _ = try PresetPlot(preset: Self.preset(pattern), options: options).figure()
            } throws: { error in
                guard case .mixer = error as? PresetPlot.Failure else { return false }
                return true
            }
        }
    }

    @Test("the demo bundle's verified preset: its audio panel holds the audio alone, through the mixer with haptics off",
          .enabled(if: SharedCorpus.available("bundles/demo.pulsar"), "needs ../shared/corpus"))
    func audioPanel() throws {
        let bundle = try PresetBundle.open(try SharedCorpus.path("bundles/demo.pulsar"))
        let preset = try #require(bundle.presets.first { $0.id == "verified" })
        let figure = try PresetPlot(preset: preset, options: Self.options()).figure()
        #expect(figure.panels.map(\.title) == ["pattern", "frequency in Hz (profile wideband)", "haptic output", "audio (haptics off)"])
        guard case .envelope(let audio) = figure.panels[3].series[0], case .envelope(let haptic) = figure.panels[2].series[0] else {
            Issue.record("no envelopes")
            return
        }
        let audible = audio.maximum.filter { $0 > 0.05 }.count
        #expect(audible > audio.columns / 2, "the audio sounds most of the time: \(audible) of \(audio.columns) columns")
        #expect(zip(audio.maximum, haptic.maximum).contains { $0 != $1 }, "not the haptic render")
    }
}
