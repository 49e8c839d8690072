import PulsarAudio
import PulsarBundle
import PulsarCommandLine
import PulsarCore
import PulsarLottie

// `CLI/` holds links to the sources of `pulsar` (an executable, which no library can import)
// that the `script-play` entry runs: the same code the command runs, compiled here once more. What else those files use of the command's own types is below, cut to what
// they read.

/// What `PlayVoices` reads of one `pulsar play` INPUT (the command's `PlayContent`).
struct PlayContent {
    struct Input {
        var path: String
        var isBundle: Bool
    }

    let input: Input
    let preset: PresetHandle
    let settings: MixSettings
    let range: PlaybackRange
    let mixer: PresetMixer
    let timing: LottieTiming?
}
