import PulsarCore

/// The preset audio placed on the content timeline: stream frame `a` sounds at content frame
/// `a + offsetFrames`. Reads any content range, with silence where the audio is not, seeking
/// the stream only when a read does not continue the previous one.
///
/// Thread rules: one thread at a time; not real-time safe (decodes, may do I/O).
final class AudioTrack {
    let stream: AudioStream
    let offsetFrames: FrameIndex
    let channels: Int
    private var position: FrameIndex = 0

    init(stream: AudioStream, offsetFrames: FrameIndex) {
        self.stream = stream
        self.offsetFrames = offsetFrames
        self.channels = stream.channels
    }

    /// Content frame just after the last audio sample.
    var endFrame: FrameIndex { stream.frameCount + offsetFrames }

    /// Writes content frames `range` interleaved into `buffer` (`range.count · channels` samples).
    func read(contentFrames range: Range<FrameIndex>, into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) {
        let base = buffer.baseAddress!
        let count = Int(range.count) * channels
        base.initialize(repeating: 0, count: count)
        let first = max(range.lowerBound - offsetFrames, 0)
        let last = min(range.upperBound - offsetFrames, stream.frameCount)
        guard first < last else { return }
        if first != position {
            try stream.seek(to: first)
        }
        let skip = Int(first + offsetFrames - range.lowerBound) * channels
        var done = 0
        let wanted = Int(last - first)
        while done < wanted {
            let target = UnsafeMutableBufferPointer(start: base + skip + done * channels, count: (wanted - done) * channels)
            let n = try stream.read(into: target, frames: wanted - done)
            if n == 0 { break }
            done += n
        }
        position = first + FrameIndex(done)
    }
}
