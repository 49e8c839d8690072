import PulsarCommandLine
import PulsarAudio
import PulsarBundle
import PulsarCore

/// The layout, gain, offset and timeline options `render` and `play` share, as library values.
struct MixOptions {
    var settings: MixSettings
    var range: PlaybackRange

    /// `isBundle` picks the default layout: `mix` for bundles, `haptic` for pattern files.
    /// `endlessLoops` accepts `--loop forever` (a live player; an offline render would not end).
    /// `defaultLayout` (the device's preferred one) comes before the input kind's default.
    init(_ args: Arguments, setup: RenderSetup, isBundle: Bool, endlessLoops: Bool = false, defaultLayout: String? = nil,
         command: String) throws(CommandFailure) {
        let layoutText = args.value("--layout") ?? defaultLayout ?? (isBundle ? "mix" : "haptic")
        guard let layout = ChannelLayout(parsing: layoutText) else {
            throw CommandFailure(.usage, "\(command): --layout must be mix, stereo+haptic, quad, haptic, android or a map like L+H,R+H, not '\(layoutText)'")
        }
        settings = MixSettings(sampleRate: setup.rate, layout: layout, profile: setup.profile)
        settings.actuator = setup.actuator
        settings.audioGain = try args.number("--audio-gain", in: 0...16, command: command) ?? 1
        settings.hapticsEnabled = !args.flag("--no-haptics")
        settings.hapticOffset = try args.milliseconds("--offset", signed: true, command: command) ?? 0
        settings.audioOffset = try args.milliseconds("--audio-offset", signed: true, command: command)
        range = PlaybackRange(from: try args.milliseconds("--from", command: command),
                              to: try args.milliseconds("--to", command: command),
                              loopCount: args.value("--loop") == "forever" && endlessLoops
                                ? PlaybackTimeline.endless
                                : try args.integer("--loop", default: 1, in: 1...1_000_000, command: command),
                              reverse: args.flag("--reverse"),
                              duration: try args.milliseconds("--duration", command: command))
    }
}

extension MixOptions {
    /// The settings for `preset`: these, on the actuator its manifest names when the command line
    /// names no device (`RenderSetup.applying`).
    func settings(for preset: PresetHandle, setup: RenderSetup, command: String) throws(CommandFailure) -> MixSettings {
        var s = settings
        let own = try setup.applying(preset, command: command)
        (s.profile, s.actuator) = (own.profile, own.actuator)
        return s
    }
}

extension CommandFailure {
    /// An audio file failure: writing an output is an I/O error (74); reading `input`'s audio
    /// (damaged or unreadable) is data (65), whatever the command.
    init(_ error: AudioFileError, input: String) {
        switch error.side {
        case .output: self.init(.ioError, "pulsar: error: cannot write \(error)")
        case .input: self.init(.dataError, "pulsar: error: \(MessageText.oneLine(input)): audio \(error)")
        }
    }

    /// A mixer that could not be built, with one exit code per kind of failure whatever the
    /// command: damaged or unreadable audio is data (65); settings out of range are usage (64)
    /// when `fromCommandLine`, else data (65: they came from a manifest or a log).
    init(_ error: PresetMixer.SetupError, input: String, command: String, fromCommandLine: Bool) {
        switch error {
        case .audio(let e):
            self.init(.dataError, "pulsar: error: \(MessageText.oneLine(input)): audio \(e)")
        case .emptyContent:
            self.init(.dataError, "pulsar: error: \(MessageText.oneLine(input)): \(error)")
        case .badSettings, .outOfRange:
            self.init(fromCommandLine ? .usage : .dataError,
                      fromCommandLine ? "\(command): \(error)" : "pulsar: error: \(MessageText.oneLine(input)): \(error)")
        }
    }
}
