/// A whole audio file read into memory as interleaved float samples.
public struct AudioFileContents: Sendable {
    public var samples: [Float]
    public var sampleRate: Int
    public var channels: Int
    /// libsndfile's `SF_INFO.format` code (container | encoding).
    public var formatCode: Int32

    /// Frames in the file.
    public var frameCount: Int { channels == 0 ? 0 : samples.count / channels }

    /// Reads `path` completely. Loads the whole file: meant for tests and short files.
    public init(contentsOf path: String) throws(AudioFileError) {
        let r = try SoundFile.readAll(path)
        samples = r.samples
        sampleRate = r.sampleRate
        channels = r.channels
        formatCode = r.format
    }
}
