import PulsarCore

extension WAVExporter {
    /// Renders a mixer's whole stream into `path` (all or nothing, like every export). The
    /// report's `limitedSamples` counts both the mix limiter and the haptic renderer's.
    public func export(_ mixer: PresetMixer, to path: String,
                       progress: ((Double) -> Void)? = nil) throws(AudioFileError) -> Report {
        try export(to: path, sampleRate: mixer.settings.sampleRate, channels: mixer.channelCount,
                   frames: mixer.frameCount, progress: progress) { buffer, frame throws(AudioFileError) in
            let block = try mixer.render(into: buffer, from: TimelineFrame(frame))
            return block.limitedSamples + block.hapticLimitedSamples
        }
    }
}
