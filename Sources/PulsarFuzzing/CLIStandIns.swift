import PulsarAudio
import PulsarBundle
import PulsarCommandLine
import PulsarCore

// `CLI/` holds links to the sources of `pulsar` (an executable, which no library can import)
// that the `ahap-audio` entry runs: the same code the command runs, compiled here once more.
// (`script-play` runs the session layer's `SessionVoices`, as the command does.) What else those
// files use of the command's own types is below, cut to what they read.

extension CommandFailure {
    /// An audio file failure, as the command maps it: writing is I/O (74), reading is data (65).
    init(_ error: AudioFileError, input: String) {
        switch error.side {
        case .output: self.init(.ioError, "pulsar: error: cannot write \(error)")
        case .input: self.init(.dataError, "pulsar: error: \(MessageText.oneLine(input)): audio \(error)")
        }
    }
}
