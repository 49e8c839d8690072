import PulsarCore

/// The preset audio placed on the content timeline: stream frame `a` sounds at content frame
/// `a + offsetFrames`. Reads any content range, with silence where the audio is not. Streaming,
/// it seeks only when a read does not continue the previous one; preloaded, it decodes the whole
/// stream once at `init` and then reads from memory.
///
/// Thread rules: one thread at a time. Streaming reads decode (not real-time safe); preloaded
/// reads only copy (real-time safe).
final class AudioTrack {
    let stream: AudioStream
    let offsetFrames: FrameIndex
    let channels: Int
    private var position: FrameIndex = 0
    /// The whole resampled stream, interleaved, when preloaded.
    private let memory: [Float]?

    init(stream: AudioStream, offsetFrames: FrameIndex, preload: Bool = false) throws(AudioFileError) {
        self.stream = stream
        self.offsetFrames = offsetFrames
        self.channels = stream.channels
        if preload {
            // Grown by what decodes, never sized by the header's claim: a file that declares
            // more frames than it holds costs only what it holds (the rest reads as silence).
            let blockFrames = 1 << 15
            var all: [Float] = []
            all.reserveCapacity(min(Int(stream.frameCount), blockFrames * 8) * stream.channels)
            let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * stream.channels)
            defer { block.deallocate() }
            var done = 0
            while done < Int(stream.frameCount) {
                let n = try stream.read(into: block, frames: min(blockFrames, Int(stream.frameCount) - done))
                if n == 0 { break }
                all.append(contentsOf: block.prefix(n * stream.channels))
                done += n
            }
            memory = all
        } else {
            memory = nil
        }
    }

    /// Whether reads come from memory (real-time safe).
    var isPreloaded: Bool { memory != nil }

    /// Content frame just after the last audio sample.
    var endFrame: FrameIndex { stream.frameCount + offsetFrames }

    /// Writes content frames `range` interleaved into `buffer` (`range.count · channels` samples).
    func read(contentFrames range: Range<ContentFrame>, into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioFileError) {
        let base = buffer.baseAddress!
        let count = Int(range.upperBound - range.lowerBound) * channels
        base.initialize(repeating: 0, count: count)
        // Frames of the audio stream: content frames `offsetFrames` behind.
        let lower = range.lowerBound.index, upper = range.upperBound.index
        let first = max(lower - offsetFrames, 0)
        let last = min(upper - offsetFrames, stream.frameCount)
        guard first < last else { return }
        if let memory {
            // Frames the file claimed but did not hold stay silent.
            let held = min(last, FrameIndex(memory.count / channels))
            guard first < held else { return }
            let skip = Int(first + offsetFrames - lower) * channels
            memory.withUnsafeBufferPointer { source in
                (base + skip).update(from: source.baseAddress! + Int(first) * channels, count: Int(held - first) * channels)
            }
            return
        }
        if first != position {
            try stream.seek(to: first)
        }
        let skip = Int(first + offsetFrames - lower) * channels
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
