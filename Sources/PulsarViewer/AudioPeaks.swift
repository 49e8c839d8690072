import PulsarAudio
import PulsarCore

/// The loudness outline of a preset's audio for the curve view: per bucket of content time, the
/// largest absolute sample of any channel, rendered through the mixer with the haptics off (so
/// the audio as it is mixed: its volume, offset and gain).
///
/// Thread rules: `init` renders on the calling thread (not the real-time one); the value is
/// immutable after.
public struct AudioPeaks: Sendable, Equatable {
    /// Peaks 0…1 of equal spans of the first `coveredMs` of content.
    public let buckets: [Float]
    /// Content time the buckets cover (the whole content, or the first `limitMs` of it).
    public let coveredMs: Double

    /// Nil when the preset has no audio or the render fails. Renders at most `limitMs` of content.
    public init?(mixer: PresetMixer, buckets count: Int = 1024, limitMs: Double = 60_000) {
        guard mixer.audioFormat != nil, count > 0,
              let audio = try? mixer.adjusted(to: LiveMix(hapticsEnabled: false, audioGain: mixer.live.audioGain,
                                                          hapticGain: mixer.live.hapticGain)) else { return nil }
        let rate = audio.settings.sampleRate
        let total = min(audio.frameCount, max(rate.nearestFrame(atMilliseconds: limitMs), 1))
        guard total > 0 else { return nil }
        let channels = audio.channelCount
        var peaks = [Float](repeating: 0, count: count)
        var block = [Float](repeating: 0, count: 4096 * channels)
        var frame: FrameIndex = 0
        while frame < total {
            let n = Int(min(4096, total - frame))
            let ok = block.withUnsafeMutableBufferPointer { buffer -> Bool in
                (try? audio.render(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * channels)]), from: TimelineFrame(frame))) != nil
            }
            guard ok else { return nil }
            for i in 0..<n {
                var peak: Float = 0
                for c in 0..<channels { peak = max(peak, abs(block[i * channels + c])) }
                let bucket = Int((frame + FrameIndex(i)) * FrameIndex(count) / total)
                peaks[bucket] = max(peaks[bucket], min(peak, 1))
            }
            frame += FrameIndex(n)
        }
        buckets = peaks
        coveredMs = Double(total) * 1000 / Double(rate.hertz)
    }

    /// The peak over content `fromMs ..< toMs` (0 outside what is covered).
    public func peak(fromMs: Double, toMs: Double) -> Float {
        guard coveredMs > 0, toMs > 0, fromMs < coveredMs else { return 0 }
        let a = max(Int(fromMs / coveredMs * Double(buckets.count)), 0)
        let b = min(max(Int((toMs / coveredMs * Double(buckets.count)).rounded(.up)), a + 1), buckets.count)
        return buckets[a..<b].max() ?? 0
    }
}
