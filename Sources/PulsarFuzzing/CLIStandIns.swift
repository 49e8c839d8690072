import PulsarAudio
import PulsarBundle
import PulsarCommandLine
import PulsarCore
import PulsarLottie

// `CLI/` holds links to the sources of `pulsar` (an executable, which no library can import)
// that the `script-play` and `ahap-audio` entries run: the same code the command runs, compiled
// here once more. What else those files use of the command's own types is below, cut to what
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

extension CommandFailure {
    /// An audio file failure, as the command maps it: writing is I/O (74), reading is data (65).
    init(_ error: AudioFileError, input: String) {
        switch error.side {
        case .output: self.init(.ioError, "pulsar: error: cannot write \(error)")
        case .input: self.init(.dataError, "pulsar: error: \(MessageText.oneLine(input)): audio \(error)")
        }
    }
}
