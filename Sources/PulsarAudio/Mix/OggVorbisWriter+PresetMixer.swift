import PulsarCore

extension OggVorbisWriter {
    /// The `ANDROID_HAPTIC` count for a layout: its trailing haptic-only channels when there
    /// are 1 or 2 after at least one other channel (what Android reads), else nil.
    public static func androidHapticChannels(_ layout: ChannelLayout) -> Int? {
        let n = layout.trailingHapticChannels
        return (1...2).contains(n) && layout.channels.count > n ? n : nil
    }

    /// Renders a mixer's whole stream into an Ogg Vorbis file at `path` (all or nothing), with
    /// the comment `ANDROID_HAPTIC=N` when the layout ends in N haptic channels after its audio
    /// (`android`: L, R, H). The report's `limitedSamples` counts both limiters.
    public static func export(_ mixer: PresetMixer, to path: String, quality: Float = 0.6,
                              blockFrames: Int = 1 << 16) throws(AudioFileError) -> WAVExporter.Report {
        let channels = mixer.channelCount
        let comments = androidHapticChannels(mixer.settings.layout).map { [(tag: "ANDROID_HAPTIC", value: String($0))] } ?? []
        let writer = try OggVorbisWriter(writing: path, sampleRate: mixer.settings.sampleRate, channels: channels,
                                         quality: quality, comments: comments)
        var report = WAVExporter.Report(frames: mixer.frameCount, channels: channels, limitedSamples: 0, peak: 0)
        let whole = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * channels)
        defer { whole.deallocate() }
        var position: FrameIndex = 0
        while position < mixer.frameCount {
            let n = Int(min(FrameIndex(blockFrames), mixer.frameCount - position))
            let block = UnsafeMutableBufferPointer(rebasing: whole[0..<(n * channels)])
            let rendered = try mixer.render(into: block, from: TimelineFrame(position))
            report.limitedSamples += rendered.limitedSamples + rendered.hapticLimitedSamples
            report.peak = WAVExporter.larger(report.peak, WAVExporter.peak(block))
            try writer.write(UnsafeBufferPointer(block))
            position += FrameIndex(n)
        }
        try writer.close()
        return report
    }
}
