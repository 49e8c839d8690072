import PulsarAudio
import PulsarBundle
import PulsarCore

/// Android haptic-coupled audio: an Ogg Vorbis file's comments and `ANDROID_HAPTIC`, read as
/// `pulsar info` and `pulsar render` read them.
enum OggEntry {
    /// Frames decoded of each stream (the audio's and the haptic channels').
    static let framesRead = 2_048

    static func run(_ bytes: [UInt8]) {
        // The comment reader alone, and what Android makes of its comments at every channel count.
        if let read = OggVorbisComments.read(bytes) {
            for channels in [read.channels, 1, 2, 3] {
                _ = OggVorbisComments.androidHapticChannels(channels: channels, comments: read.comments)
                _ = OggVorbisComments.androidHapticWarning(channels: channels, comments: read.comments)
            }
        }
        _ = OggVorbisComments.androidHapticChannels(bytes)
        // `pulsar info`: the format, the haptic channels, the warning.
        let source = MemoryByteSource(bytes)
        guard let format = try? AudioFormatInfo(bytes: source, name: "fuzz.ogg") else { return }
        _ = AudioStream.androidHapticChannels(of: source, channels: format.channels)
        _ = AudioStream.androidHapticWarning(of: source, channels: format.channels)
        // `pulsar render`: the audio as a pair, and the haptic channels as one, decoded in part.
        guard let audio = try? AudioStream(bytes: source, name: "fuzz.ogg", outputRate: SampleRate(8_000)!, channels: 2, part: .audio) else { return }
        decode(audio, channels: 2)
        guard audio.androidHapticChannels != nil,
              let haptic = try? AudioStream(bytes: MemoryByteSource(bytes), name: "fuzz.ogg", outputRate: SampleRate(8_000)!, channels: 1,
                                            part: .androidHaptics) else { return }
        decode(haptic, channels: 1)
    }

    /// Reads the stream's first `framesRead` frames, in blocks as `render` reads them.
    private static func decode(_ stream: AudioStream, channels: Int) {
        var block = [Float](repeating: 0, count: 512 * channels)
        var done = 0
        while done < framesRead {
            let got = block.withUnsafeMutableBufferPointer { (try? stream.read(into: $0, frames: 512)) ?? 0 }
            guard got > 0 else { return }
            done += got
        }
    }
}
