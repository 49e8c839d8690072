import PulsarAudio
import PulsarCore

/// The layout, gain, offset and timeline options `render` and `play` share, as library values.
struct MixOptions {
    var settings: MixSettings
    var range: PlaybackRange

    /// `isBundle` picks the default layout: `mix` for bundles, `haptic` for pattern files.
    /// `endlessLoops` accepts `--loop forever` (a live player; an offline render would not end).
    init(_ args: Arguments, setup: RenderSetup, isBundle: Bool, endlessLoops: Bool = false, command: String) throws(CommandFailure) {
        let layoutText = args.value("--layout") ?? (isBundle ? "mix" : "haptic")
        guard let layout = ChannelLayout(parsing: layoutText) else {
            throw CommandFailure(.usage, "\(command): --layout must be mix, stereo+haptic, quad, haptic or a map like L+H,R+H, not '\(layoutText)'")
        }
        settings = MixSettings(sampleRate: setup.rate, layout: layout, profile: setup.profile)
        settings.audioGain = try args.number("--audio-gain", command: command) ?? 1
        settings.hapticsEnabled = !args.flag("--no-haptics")
        settings.hapticOffset = try args.number("--offset", command: command) ?? 0
        settings.audioOffset = try args.number("--audio-offset", command: command)
        range = PlaybackRange(from: try args.number("--from", command: command),
                              to: try args.number("--to", command: command),
                              loopCount: args.value("--loop") == "forever" && endlessLoops
                                ? PlaybackTimeline.endless
                                : try args.integer("--loop", default: 1, in: 1...1_000_000, command: command),
                              reverse: args.flag("--reverse"),
                              duration: try args.number("--duration", command: command))
    }
}
