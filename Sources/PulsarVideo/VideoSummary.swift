import PulsarCore

extension VideoAudioTrack {
    /// The tracks of a preset's video: "audio", the stereo mix (L, R), and "haptics", the haptic
    /// channel alone (H), mono — for a mix in layout stereo+haptic, routed by `mixRouting`.
    public static let mixTracks = [VideoAudioTrack(channels: 2, title: "audio"), VideoAudioTrack(channels: 1, title: "haptics")]
    /// The mixer channels (L, R, H) each of `mixTracks` takes.
    public static let mixRouting = [[0, 1], [2]]
}

extension VideoOptions {
    /// The frame: `given` (checked already), else `natural` with each side rounded up to even
    /// (yuv420p), refused beyond `VideoPicture`'s limits; `origin` says where `natural` came from.
    public func frameSize(given: (width: Int, height: Int)?, natural: (width: Int, height: Int), origin: String,
                          input: String) throws(VideoRefusal) -> (width: Int, height: Int) {
        if let given { return given }
        let size = (width: natural.width + natural.width % 2, height: natural.height + natural.height % 2)
        try checkPicture(width: size.width, height: size.height, given: false, input: input, origin: origin)
        return size
    }
}

extension VideoReport {
    /// "wrote OUT: N frames at F fps, W×H, D ms, codecs; tracks at R Hz[, K samples limited]".
    public func summary(settings: VideoSettings, output: String) -> String {
        let codecs: String
        switch settings.container {
        case .mp4: codecs = "H.264, AAC"
        case .mkv: codecs = "H.264, FLAC"
        case .webm: codecs = "VP9, Opus"
        }
        let ms = Double(samples) * 1000 / Double(settings.sampleRate)
        let audio = settings.audioTracks.isEmpty ? "no audio" : settings.audioTracks.map { "\($0.title) (\($0.channels) ch)" }.joined(separator: ", ")
        var line = "wrote \(output): \(frames) frames at \(settings.frameRate) fps, \(settings.width)×\(settings.height), "
            + "\(String(printf: "%.3f", ms)) ms, \(codecs); \(audio) at \(settings.sampleRate) Hz"
        if limitedSamples > 0 { line += ", \(limitedSamples) samples limited" }
        return line
    }
}
