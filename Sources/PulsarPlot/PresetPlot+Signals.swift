import Glibc
import PulsarAudio
import PulsarCore

/// The rendered signals of a preset's figure: the output channels' and the audio's envelopes
/// (one bucket per pixel column) and the spectrogram.
extension PresetPlot {
    /// The audio alone, both channels (mono audio feeds both).
    static let audioLayout = ChannelLayout(name: "L,R", channels: [[.left], [.right]])
    /// The waveform panels follow the pattern and frequency panels.
    public static let firstWaveformPanel = 2

    /// `figure` with its placeholder envelopes and heat map replaced by the rendered ones.
    func filled(_ figure: Figure, output: PresetMixer, groups: [ChannelGroup], span: ClosedRange<Double>) throws(Failure) -> Figure {
        var figure = figure
        let columns: Int
        do {
            columns = try figure.geometry().columns
        } catch {
            throw .plot(error)
        }
        var panel = Self.firstWaveformPanel
        var envelopes = groups.indices.map { Self.envelope(of: figure.panels[panel + $0], span: span, columns: columns) }
        try Self.accumulate(output, channels: groups.map { [$0.channels[0]] }, into: &envelopes, span: span)
        for e in envelopes {
            figure.panels[panel].series[0] = .envelope(e)
            panel += 1
        }
        if preset.audio != nil {
            var audio = [Self.envelope(of: figure.panels[panel], span: span, columns: columns)]
            try Self.accumulate(try mixer(layout: Self.audioLayout, haptics: false), channels: [[0, 1]], into: &audio, span: span)
            figure.panels[panel].series[0] = .envelope(audio[0])
            panel += 1
        }
        if options.spectrum {
            let haptic = options.settings.layout == .haptic ? output : try mixer(layout: .haptic, haptics: true)
            figure.panels[panel].series[0] = .heatMap(try spectrogram(haptic, span: span, columns: max(columns / 2, 1)))
        }
        return figure
    }

    /// An empty envelope over `span` with the colour and label of `panel`'s placeholder.
    private static func envelope(of panel: Panel, span: ClosedRange<Double>, columns: Int) -> Envelope {
        guard case .envelope(let placeholder) = panel.series[0] else { return Envelope(span: span, columns: columns, color: .black) }
        return Envelope(span: span, columns: columns, color: placeholder.color, label: placeholder.label)
    }

    /// Renders the whole of `mixer`'s stream once; envelope `i` takes the samples of the
    /// channels `channels[i]`.
    static func accumulate(_ mixer: PresetMixer, channels: [[Int]], into envelopes: inout [Envelope],
                           span: ClosedRange<Double>) throws(Failure) {
        let width = mixer.channelCount, block = 4096
        let step = 1000 / Double(mixer.settings.sampleRate.hertz)
        var buffer = [Float](repeating: 0, count: block * width)
        var lane = [Float](repeating: 0, count: block)
        var frame: FrameIndex = 0
        while frame < mixer.frameCount {
            let n = Int(min(FrameIndex(block), mixer.frameCount - frame))
            try render(mixer, into: &buffer, frames: n, from: frame)
            let firstX = span.lowerBound + Double(frame) * step
            for (index, sources) in channels.enumerated() {
                for channel in sources where channel < width {
                    for i in 0..<n { lane[i] = buffer[i * width + channel] }
                    lane.withUnsafeBufferPointer { envelopes[index].add(UnsafeBufferPointer(rebasing: $0[0..<n]), firstX: firstX, xStep: step) }
                }
            }
            frame += FrameIndex(n)
        }
    }

    /// Output frames `frame ..< frame + frames` of `mixer`, interleaved, into `buffer`.
    private static func render(_ mixer: PresetMixer, into buffer: inout [Float], frames: Int, from frame: FrameIndex) throws(Failure) {
        let count = frames * mixer.channelCount
        let result: Result<Void, AudioFileError> = buffer.withUnsafeMutableBufferPointer { all in
            do throws(AudioFileError) {
                _ = try mixer.render(into: UnsafeMutableBufferPointer(rebasing: all[0..<count]), from: TimelineFrame(frame))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result { throw .audio(error) }
    }

    /// The haptic render's spectrogram: `columns` Hann windows of about 40 ms centred on equal
    /// steps of `span`, each zero-padded to twice its length, levels in dBFS.
    func spectrogram(_ haptic: PresetMixer, span: ClosedRange<Double>, columns: Int) throws(Failure) -> HeatMap {
        let rate = Double(haptic.settings.sampleRate.hertz)
        let window = 1 << Int(log2(rate * 0.04).rounded())
        let fft = FFT(size: window * 2)!
        let binHertz = rate / Double(fft.size)
        let rows = min(Int((spectrumTopHertz / binHertz).rounded(.up)) + 2, fft.size / 2 + 1)
        var map = HeatMap(xSpan: span, ySpan: (-binHertz / 2)...((Double(rows) - 0.5) * binHertz), columns: columns, rows: rows,
                          valueRange: Self.spectrumLevels, label: "level", unit: "dBFS", smooth: true)
        var samples = [Float](repeating: 0, count: window)
        let width = span.upperBound - span.lowerBound
        for column in 0..<columns {
            let centre = (Double(column) + 0.5) / Double(columns) * width / 1000 * rate
            try Self.render(haptic, into: &samples, frames: window, from: FrameIndex(centre.rounded()) - FrameIndex(window / 2))
            map.setColumn(column, Array(fft.levels(of: samples).prefix(rows)))
        }
        return map
    }
}
