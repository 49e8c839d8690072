import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore

/// Where content came from, as an event log names it: a file (a pattern, or a bundle and one of
/// its presets), or a pattern's bytes given in memory (written beside the log when it is).
public enum ContentOrigin: Sendable, Equatable {
    case file(path: String, preset: String?)
    case bytes([UInt8])
}

/// Something a session's voices play: a pattern or a bundle's preset mixed in a layout at a rate,
/// with its audio decoded up front (a voice renders on the real-time thread, which reads no file).
/// Immutable; any number of voices may play one content.
public struct SessionContent: @unchecked Sendable {
    public let mixer: PresetMixer
    /// The preset's animation frame rate, for a voice's animation clock.
    public let animationFrameRate: Double?
    public let origin: ContentOrigin
    /// Whether the caller chose the layout. Content whose layout was left to its default plays in
    /// the layout of the session it plays in (`inLayout`), as every front end's does.
    public let layoutChosen: Bool
    /// What it was made of, to make it again in another layout.
    private let source: (preset: PresetHandle, settings: MixSettings, range: PlaybackRange)?

    /// `preset` mixed with `settings` over `range`; the audio is preloaded whatever `settings` say.
    /// `layoutChosen` false: `settings.layout` is a default, which a session may replace.
    public init(preset: PresetHandle, settings: MixSettings, range: PlaybackRange = PlaybackRange(), origin: ContentOrigin,
                layoutChosen: Bool = true) throws(PresetMixer.SetupError) {
        var s = settings
        s.preloadAudio = true
        mixer = try PresetMixer(preset: preset, settings: s, range: range)
        animationFrameRate = preset.animation?.effectiveFrameRate
        self.origin = origin
        self.layoutChosen = layoutChosen
        source = (preset, s, range)
    }

    /// `mixer` as it is (it must preload its audio to play in an engine), with where it came from.
    public init(mixer: PresetMixer, animationFrameRate: Double? = nil, origin: ContentOrigin) {
        self.mixer = mixer
        self.animationFrameRate = animationFrameRate
        self.origin = origin
        layoutChosen = true
        source = nil
    }

    /// This content to play where `layout` is wanted: itself when its layout was chosen or has
    /// `layout`'s channels; else the same mixed again in `layout`.
    public func inLayout(_ layout: ChannelLayout) throws(SessionError) -> SessionContent {
        guard !layoutChosen, mixer.settings.layout.channels != layout.channels, let source else { return self }
        var settings = source.settings
        settings.layout = layout
        do {
            return try SessionContent(preset: source.preset, settings: settings, range: source.range, origin: origin, layoutChosen: false)
        } catch {
            throw SessionError(error)
        }
    }

    /// The pattern file at `path` (Pulsar JSON, AHAP or `.haptic`) in `settings`' layout (nil:
    /// the haptic channel alone, or the layout of the session it plays in), as every front end
    /// reads one (`ContentInput`): a `.haptic` clip through `settings.actuator`'s laws, its raw
    /// clip kept for a burst model.
    public static func pattern(at path: String, settings given: MixSettings? = nil,
                               range: PlaybackRange = PlaybackRange()) throws(SessionError) -> SessionContent {
        let settings = given ?? MixSettings(layout: .haptic)
        var warnings: [ContentWarning] = []
        let loaded = try ContentInput.pattern(at: path, warnings: &warnings)
        var device = ContentDevice(rate: settings.sampleRate)
        (device.profile, device.actuator) = (settings.profile, settings.actuator)
        do {
            return try SessionContent(preset: ContentInput.preset(of: loaded, named: "pattern", device: device),
                                      settings: settings, range: range, origin: .file(path: absolutePath(path), preset: nil), layoutChosen: given != nil)
        } catch {
            throw SessionError(error)
        }
    }

    /// The preset `id` (default: the bundle's first) of the `.pulsar` bundle at `path`, with its
    /// audio, in `settings`' layout (nil: audio and haptics as two channels, or the layout of the
    /// session it plays in), on the actuator its manifest names unless `settings` names one
    /// (`ContentDevice.applying`).
    public static func preset(_ id: String? = nil, inBundle path: String, settings given: MixSettings? = nil,
                              range: PlaybackRange = PlaybackRange()) throws(SessionError) -> SessionContent {
        let settings = given ?? MixSettings(layout: .mix)
        var warnings: [ContentWarning] = []
        var device = ContentDevice(rate: settings.sampleRate)
        (device.profile, device.actuator, device.isNamed) = (settings.profile, settings.actuator, settings.actuator != nil)
        let input = try ContentInput(path, device: device, warnings: &warnings)
        guard input.isBundle else { throw SessionError(.usage, "\(MessageText.oneLine(path)) is not a bundle") }
        let preset = try input.select(id ?? input.presets.first?.id)
        let own = try device.applying(preset, warnings: &warnings)
        var s = settings
        (s.profile, s.actuator) = (own.profile, own.actuator)
        do {
            return try SessionContent(preset: preset, settings: s, range: range, origin: .file(path: absolutePath(input.bundle!.path), preset: preset.id),
                                      layoutChosen: given != nil)
        } catch {
            throw SessionError(error)
        }
    }
}

/// `path` made absolute against the working folder (an event log is read from anywhere).
public func absolutePath(_ path: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    return String(cString: buffer) + "/" + path
}
