import PulsarAudio
import PulsarBundle
import PulsarCore

/// A named instant on a timeline: an animation's marker, at content ms.
public struct TimelineMarker: Sendable, Equatable {
    public var ms: Double
    public var name: String

    public init(ms: Double, name: String) {
        self.ms = ms
        self.name = name
    }
}

/// What a preset's timeline shows, computed once (the viewer's strip under the picture, the
/// video's): over content ms `0 … durationMs`, the pattern's curves and transients as
/// `pulsar plot` reads them, the haptic render's and the audio's min/max per bucket, and the
/// animation's markers.
///
/// Thread rules: `init` renders (decoding, synthesis) on the calling thread, never the
/// real-time one; the value is immutable after.
public struct TimelineData: Sendable {
    /// Content ms the timeline spans: `0 … durationMs`.
    public let span: ClosedRange<Double>
    /// The amplitude curve as synthesis reads it (empty: no carrier), values 0…1.
    public let amplitude: [PlotPoint]
    /// The frequency curve's 0…1 parameter, its ends held (nil: no curves); `frequencyIsDefault`
    /// when the pattern has no frequency points (0.5 throughout).
    public let frequency: [PlotPoint]?
    public let frequencyIsDefault: Bool
    /// Transients at (ms, amplitude).
    public let transients: [PlotPoint]
    /// The haptic channel rendered alone (layout `haptic`), min/max per bucket.
    public let haptic: Envelope
    /// The preset's audio with the haptics off, both channels, min/max per bucket (nil: none).
    public let audio: Envelope?
    public let markers: [TimelineMarker]

    /// The timeline of what `mixer` plays: its preset, rate, profile, gains, offset and range
    /// (loops left out: the timeline is the content once), `buckets` buckets per envelope.
    public init(mixer: PresetMixer, markers: [TimelineMarker], buckets: Int = 2048) throws(PresetPlot.Failure) {
        let range = PlaybackRange(from: mixer.range.from, to: mixer.range.to, duration: mixer.range.duration)
        var settings = mixer.settings
        settings.layout = .haptic
        settings.hapticsEnabled = true
        let haptic = try Self.mixer(mixer.preset, settings, range)
        let duration = max(haptic.durationMilliseconds, 1e-3)
        span = 0...duration
        let curves = mixer.preset.pattern.continuousPattern
        amplitude = PresetPlot.amplitudePoints(curves)
        frequency = PresetPlot.frequencyPoints(curves, span: span, map: { $0 })
        frequencyIsDefault = curves.frequency.isEmpty
        transients = mixer.preset.pattern.discretePattern.map { PlotPoint($0.time, $0.amplitude) }
        var envelopes = [Envelope(span: span, columns: buckets, color: PresetPlot.Palette.haptic)]
        try PresetPlot.accumulate(haptic, channels: [[0]], into: &envelopes, span: span)
        self.haptic = envelopes[0]
        if mixer.audioFormat != nil {
            settings.layout = PresetPlot.audioLayout
            settings.hapticsEnabled = false
            var audio = [Envelope(span: span, columns: buckets, color: PresetPlot.Palette.audio)]
            try PresetPlot.accumulate(try Self.mixer(mixer.preset, settings, range), channels: [[0, 1]], into: &audio, span: span)
            self.audio = audio[0]
        } else {
            self.audio = nil
        }
        let inside = 0...duration
        self.markers = markers.filter { inside.contains($0.ms) }.sorted { $0.ms < $1.ms }
    }

    public var durationMs: Double { span.upperBound }

    private static func mixer(_ preset: PresetHandle, _ settings: MixSettings, _ range: PlaybackRange) throws(PresetPlot.Failure) -> PresetMixer {
        do {
            return try PresetMixer(preset: preset, settings: settings, range: range)
        } catch {
            throw .mixer(error)
        }
    }
}
