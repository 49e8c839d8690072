import PulsarBundle
import PulsarCore

/// What an encoded audio file holds, as its decoder reports it: for `pulsar info` and for
/// planning playback.
///
/// A plain value: safe to use from any thread.
public struct AudioFormatInfo: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second of the encoded audio (any positive rate, not only `SampleRate.supported`).
    public var sampleRate: Int
    public var channels: Int
    /// Frames in the file at `sampleRate`. When the container does not state it, counted by
    /// decoding the file once.
    public var frames: FrameIndex
    /// libsndfile's name of the container, e.g. "WAV (Microsoft)", "FLAC (Free Lossless Audio Codec)",
    /// "OGG (OGG Container format)", "MPEG-1/2 Audio".
    public var container: String
    /// libsndfile's name of the encoding, e.g. "Signed 16 bit PCM", "Vorbis", "Opus", "MPEG Layer III".
    public var encoding: String
    /// libsndfile's `SF_INFO.format` code (container | encoding).
    public var formatCode: Int32

    public init(sampleRate: Int, channels: Int, frames: FrameIndex, container: String, encoding: String, formatCode: Int32) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.frames = frames
        self.container = container
        self.encoding = encoding
        self.formatCode = formatCode
    }

    /// Reads the format of `bytes` (decoding nothing, unless the length must be counted).
    /// `name` labels errors.
    ///
    /// Thread rules: any thread but the real-time one (I/O); `bytes` must not be in use elsewhere.
    public init(bytes: ByteSource, name: String) throws(AudioFileError) {
        let file = try SoundFile(reading: bytes, name: name)
        try self.init(file: file)
        try file.close()
    }

    /// The format of an open file. Leaves the file at frame 0.
    init(file: SoundFile) throws(AudioFileError) {
        let names = SoundFile.formatNames(file.formatCode)
        guard file.sampleRate >= 1, file.channels >= 1 else {
            throw AudioFileError(path: file.path, message: "declares \(file.sampleRate) Hz and \(file.channels) channels [value-out-of-range]")
        }
        var frames = file.frames
        // Unstated, or a claim over 10 minutes: counted by decoding, which costs what the file
        // really holds (a header claiming hours over a second of data costs a second).
        if !file.framesKnown || frames > FrameIndex(file.sampleRate) * 600 {
            frames = try Self.countFrames(file)
        }
        // A header's claim is checked before anything is sized by it.
        guard frames >= 0, Double(frames) / Double(file.sampleRate) <= Limits.maximumMilliseconds / 1000 else {
            throw AudioFileError(path: file.path, message: "declares \(frames) frames at \(file.sampleRate) Hz, more than the 24 h limit [too-long]")
        }
        self.init(sampleRate: file.sampleRate, channels: file.channels, frames: frames,
                  container: names.container, encoding: names.encoding, formatCode: file.formatCode)
    }

    /// Decodes `file` through a fixed buffer to count its frames, then rewinds.
    private static func countFrames(_ file: SoundFile) throws(AudioFileError) -> FrameIndex {
        let blockFrames = 8192
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * file.channels)
        defer { buffer.deallocate() }
        var total: FrameIndex = 0
        while true {
            let n = try file.readFrames(into: buffer, count: blockFrames)
            if n == 0 { break }
            total += FrameIndex(n)
        }
        try file.seek(toFrame: 0)
        return total
    }

    /// Length in milliseconds: `frames / sampleRate` seconds.
    public var durationMilliseconds: Double {
        guard sampleRate > 0 else { return 0 }
        if let rate = SampleRate(sampleRate) { return rate.milliseconds(atFrame: frames) }
        return Double(frames) * 1000 / Double(sampleRate)
    }

    /// One line, e.g. "MPEG-1/2 Audio, MPEG Layer III, 44100 Hz, 2 channels, 132300 frames (3000.000 ms)".
    public var description: String {
        let ms = (durationMilliseconds * 1000).rounded() / 1000
        return "\(container), \(encoding), \(sampleRate) Hz, \(channels) channel\(channels == 1 ? "" : "s"), \(frames) frames (\(ms) ms)"
    }
}
