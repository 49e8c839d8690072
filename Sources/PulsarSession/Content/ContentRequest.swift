import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarDerive

/// What a run plays, as every front end asks for it (`pulsar render`/`play`, libpulsar, Python,
/// C#, a Swift app): an input, a preset, the device, derive and the mix. `resolve()` turns it into
/// the `SessionContent` a session plays, with the same defaults and refusals for every caller:
///
/// - the input: a bundle (`.pulsar`, a folder with `manifest.json`), a pattern file (Pulsar JSON,
///   AHAP, `.haptic` — a `.haptic` clip through the actuator's laws, kept raw for a burst model),
///   or an audio file (`ContentInput.audioExtensions`), which is a preset of audio alone;
/// - the preset: the one named, else the only one;
/// - the device: the actuator or profile named, else the preset's own actuator (its manifest's),
///   else wideband;
/// - derive: a preset of audio alone gets haptics derived from its audio (docs/derive.md),
///   or plays silent haptics with a `no-haptics` warning;
/// - the layout when none is given: `haptic` for a pattern file, `stereo+haptic` for an audio
///   file, `mix` for a bundle's preset.
public struct ContentRequest: Sendable {
    public var input: String
    public var preset: String?
    /// A shipped actuator's name or a `.acf` path (at most one of `actuator` and `profile`).
    public var actuator: String?
    /// `wideband`, `lra`, `lra:HZ` or `FMIN:FMAX`.
    public var profile: String?
    /// The gain on the haptics' render (the profile's or the actuator's).
    public var gain: Double?
    public var rate: SampleRate
    public var timeUnit: TimeUnitPolicy = .automatic
    public var derive = false
    /// Refuse a bundle's warnings as errors.
    public var strict = false
    /// nil: chosen from the content (see above).
    public var layout: ChannelLayout?
    public var audioGain: Double = 1
    public var hapticsEnabled = true
    public var hapticOffset: Double = 0
    public var audioOffset: Double?
    public var range = PlaybackRange()

    public init(input: String, preset: String? = nil, rate: SampleRate = SampleRate(48_000)!) {
        self.input = input
        self.preset = preset
        self.rate = rate
    }

    /// The content, resolved as described above.
    public func resolve() throws(SessionError) -> ResolvedContent {
        var warnings: [ContentWarning] = []
        let device = try ContentDevice(rate: rate, profile: profile, actuator: actuator, gain: gain, warnings: &warnings)
        let input: ContentInput
        let isAudio = ContentInput.isAudio(input: self.input)
        if isAudio {
            input = try ContentInput(audioFile: self.input)
        } else {
            input = try ContentInput(self.input, device: device, timeUnit: timeUnit, strict: strict, warnings: &warnings)
        }
        let (preset, derived) = try input.select(self.preset, derive: derive, profile: device.profile, warnings: &warnings)
        let own = try device.applying(preset, warnings: &warnings)
        var settings = own.settings(layout: layout ?? (isAudio ? .stereoHaptic : input.isBundle ? .mix : .haptic))
        settings.audioGain = audioGain
        settings.hapticsEnabled = hapticsEnabled
        settings.hapticOffset = hapticOffset
        settings.audioOffset = audioOffset
        let origin: ContentOrigin = .file(path: absolutePath(input.bundle?.path ?? self.input), preset: input.isBundle ? preset.id : nil)
        let content: SessionContent
        do {
            content = try SessionContent(preset: preset, settings: settings, range: range, origin: origin, layoutChosen: layout != nil)
        } catch {
            throw SessionError(error)
        }
        return ResolvedContent(content: content, preset: preset, device: own, isBundle: input.isBundle, derived: derived, warnings: warnings)
    }
}

/// A request resolved: what plays, and what was found on the way.
public struct ResolvedContent: @unchecked Sendable {
    public let content: SessionContent
    /// The preset chosen (derived haptics in it when derive made them).
    public let preset: PresetHandle
    /// The device the content renders for (the preset's own actuator when it was used).
    public let device: ContentDevice
    public let isBundle: Bool
    /// The derivation, when the preset's haptics were derived from its audio.
    public let derived: DerivedPattern?
    public let warnings: [ContentWarning]
}

extension SessionError {
    /// A mixer that could not be built: damaged audio or empty content is data, settings out of
    /// range are the caller's (usage).
    public init(_ error: PresetMixer.SetupError) {
        switch error {
        case .audio, .emptyContent: self.init(.data, "\(error)")
        case .badSettings, .outOfRange: self.init(.usage, "\(error)")
        }
    }
}
