import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottie

/// The figure `pulsar plot` draws of a preset (or of a pattern file made a preset), on one
/// time axis in content milliseconds:
///
/// 1. "pattern": the amplitude curve as the renderer reads it (held from 0, down to 0 at the
///    curves' end), the frequency curve as its 0…1 parameter, and the transients as stems as
///    tall as their amplitude;
/// 2. "frequency": the frequency curve and the transients' frequencies in Hz through the
///    actuator profile, between the band's edges;
/// 3. one panel per distinct output channel of the layout: the mixer's real output, min/max per
///    pixel column;
/// 4. the preset's audio alone (mixed with the haptics off), when it has audio;
/// 5. with `spectrum`, a spectrogram of the haptic render.
///
/// The animation's markers, when the preset has an animation with markers, are vertical lines
/// in every panel, named in the first.
///
/// Thread rules: a value; `figure()` renders on the calling thread (decoding, synthesis) and
/// may run on any thread, not the real-time one.
public struct PresetPlot {
    /// What is plotted and how large.
    public struct Options: Sendable {
        public var width: Int
        public var height: Int
        /// The rate, the profile and the layout whose output channels are plotted (the other
        /// fields are ignored: haptics are always on, gains and offsets neutral).
        public var settings: MixSettings
        /// `from` and `to` choose the time span (the loop fields are ignored).
        public var range: PlaybackRange
        /// Adds the spectrogram panel.
        public var spectrum: Bool

        public init(width: Int = 1600, height: Int = 1000, settings: MixSettings = MixSettings(layout: .haptic),
                    range: PlaybackRange = PlaybackRange(), spectrum: Bool = false) {
            self.width = width
            self.height = height
            self.settings = settings
            self.range = range
            self.spectrum = spectrum
        }
    }

    /// Why the figure could not be made.
    public enum Failure: Error, CustomStringConvertible {
        /// The mixer refused the preset or the options (the rule tells whose fault).
        case mixer(PresetMixer.SetupError)
        /// The preset's audio could not be decoded.
        case audio(AudioFileError)
        /// The preset's animation could not be read (for its markers).
        case animation(LottieError)
        case plot(PlotError)

        public var description: String {
            switch self {
            case .mixer(let e): return e.description
            case .audio(let e): return e.description
            case .animation(let e): return e.description
            case .plot(let e): return e.description
            }
        }
    }

    /// The colours of the figure's series.
    public enum Palette {
        public static let amplitude = PlotColor.blue
        public static let frequency = PlotColor.orange
        public static let transient = PlotColor.vermilion
        public static let haptic = PlotColor.green
        public static let audio = PlotColor.grey
        public static let marker = PlotColor.purple
        public static let band = PlotColor.grey
    }

    /// At most this many distinct output channels are plotted (channels fed alike share a panel).
    public static let maximumChannelPanels = 8

    public let preset: PresetHandle
    public let options: Options

    public init(preset: PresetHandle, options: Options = Options()) {
        self.preset = preset
        self.options = options
    }

    /// The figure, every series filled.
    public func figure() throws(Failure) -> Figure {
        let output = try mixer(layout: options.settings.layout, haptics: true)
        let span = try timeSpan(output)
        let groups = try channelGroups()
        let markers = try markerLines(in: span)
        var figure = Figure(width: options.width, height: options.height, title: preset.name.isEmpty ? preset.id : preset.name,
                            subtitles: subtitles(output, markers: markers.count),
                            xAxis: Axis("time", unit: "ms", range: .fixed(span)))
        figure.add(patternPanel(span: span, markers: markers))
        figure.add(frequencyPanel(span: span, markers: markers))
        for group in groups { figure.add(waveformPanel(title: group.title, color: Palette.haptic, label: "output, min/max per pixel", markers: markers)) }
        if preset.audio != nil { figure.add(waveformPanel(title: "audio (haptics off)", color: Palette.audio, label: "audio, min/max per pixel", markers: markers)) }
        if options.spectrum { figure.add(spectrumPanel(markers: markers)) }
        return try filled(figure, output: output, groups: groups, span: span)
    }

    // MARK: Set-up

    /// A mixer of the preset with the options' rate, profile and span, and `layout`.
    func mixer(layout: ChannelLayout, haptics: Bool) throws(Failure) -> PresetMixer {
        var settings = MixSettings(sampleRate: options.settings.sampleRate, layout: layout, profile: options.settings.profile)
        settings.hapticsEnabled = haptics
        let range = PlaybackRange(from: options.range.from, to: options.range.to, duration: options.range.duration)
        do {
            return try PresetMixer(preset: preset, settings: settings, range: range)
        } catch {
            throw .mixer(error)
        }
    }

    /// Content ms from the span's first frame to its end.
    private func timeSpan(_ mixer: PresetMixer) throws(Failure) -> ClosedRange<Double> {
        let rate = mixer.settings.sampleRate
        let from = rate.milliseconds(at: mixer.timeline.segmentStart), to = rate.milliseconds(at: mixer.timeline.segmentEnd)
        guard from < to else { throw .mixer(.badSettings("the time span \(JSONWriter.format(from))…\(JSONWriter.format(to)) ms is empty")) }
        return from...to
    }

    /// `ms` with at most three decimals.
    static func milliseconds(_ ms: Double) -> String {
        JSONWriter.format((ms * 1000).rounded() / 1000)
    }

    /// The layout's output channels, those fed alike together, silent ones left out.
    func channelGroups() throws(Failure) -> [ChannelGroup] {
        let layout = options.settings.layout
        var groups: [ChannelGroup] = []
        for (index, sources) in layout.channels.enumerated() where sources.contains(where: { $0 != .silence }) {
            if let g = groups.firstIndex(where: { $0.sources == sources }) {
                groups[g].channels.append(index)
            } else {
                groups.append(ChannelGroup(sources: sources, channels: [index]))
            }
        }
        guard groups.count <= Self.maximumChannelPanels else {
            throw .mixer(.badSettings("the layout \(layout.name) feeds \(groups.count) channels differently; a plot shows at most \(Self.maximumChannelPanels)"))
        }
        if layout == .haptic, groups.count == 1 { groups[0].heading = "haptic output" }
        return groups
    }

    /// The animation's markers inside `span`, as vertical lines named by the markers.
    private func markerLines(in span: ClosedRange<Double>) throws(Failure) -> [ReferenceLine] {
        guard let asset = preset.animation else { return [] }
        let animation: LottieAnimation
        do {
            animation = try LottieAnimation(bytes: asset.data, source: asset.source)
        } catch {
            throw .animation(error)
        }
        var lines: [ReferenceLine] = animation.markers.compactMap { marker in
            let ms = animation.timing.milliseconds(atFrame: marker.start)
            guard span.contains(ms) else { return nil }
            return ReferenceLine(ms, color: Palette.marker, width: 2, dash: [6, 3],
                                 label: marker.name.isEmpty ? "marker" : MessageText.excerpt(marker.name, limit: 40))
        }
        if !lines.isEmpty { lines[0].legend = "animation markers" }
        return lines
    }

    private func subtitles(_ mixer: PresetMixer, markers: Int) -> [String] {
        let s = mixer.settings, p = preset.pattern
        var first = "preset \(MessageText.excerpt(preset.id, limit: 60)) · \(Self.milliseconds(mixer.durationMilliseconds)) ms (\(mixer.durationRule.rawValue))"
        first += " · \(s.sampleRate.hertz) Hz · profile \(s.profile.description) · layout \(s.layout.name)"
        var second = "\(p.continuousPattern.amplitude.count) amplitude points · \(p.continuousPattern.frequency.count) frequency points"
        second += " · \(p.discretePattern.count) transients"
        if let audio = preset.audio { second += " · audio \(MessageText.excerpt(audio.source, limit: 60))" }
        if markers > 0 { second += " · \(markers) marker\(markers == 1 ? "" : "s")" }
        return [first, second]
    }
}

/// Output channels fed by the same sources, drawn in one panel.
struct ChannelGroup {
    var sources: [ChannelLayout.Source]
    var channels: [Int]
    /// Replaces the panel title made of the channel numbers and sources.
    var heading: String?

    var title: String {
        if let heading { return heading }
        let numbers = channels.map { String($0 + 1) }.joined(separator: ", ")
        return "output channel\(channels.count == 1 ? "" : "s") \(numbers) (\(sources.map(\.rawValue).joined(separator: "+")))"
    }
}
