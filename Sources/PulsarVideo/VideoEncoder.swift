import CFFmpegShim
import Glibc
import PulsarCore
import PulsarLottieRender

/// The containers `pulsar video` writes, each with its codecs (docs/video.md).
public enum VideoContainer: String, Sendable, CaseIterable {
    /// H.264 (libx264, yuv420p) + AAC.
    case mp4
    /// H.264 (libx264, yuv420p) + FLAC.
    case mkv
    /// VP9 (libvpx-vp9, yuv420p) + Opus (48 kHz only).
    case webm

    /// The container named by `path`'s extension (case-insensitive), or nil.
    public init?(forOutput path: String) {
        let name = PathText.lastComponent(path).lowercased()
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(rawValue: String(name[name.index(after: dot)...]))
    }

    /// The quality scale of its video codec (CRF) and the default used.
    public var qualityRange: ClosedRange<Int> { self == .webm ? 0...63 : 0...51 }
    public var defaultQuality: Int { self == .webm ? 32 : 20 }

    var code: Int32 {
        switch self {
        case .mp4: return Int32(PULSAR_VIDEO_MP4)
        case .mkv: return Int32(PULSAR_VIDEO_MKV)
        case .webm: return Int32(PULSAR_VIDEO_WEBM)
        }
    }
}

/// Why a video could not be written: one line, FFmpeg's own words at the end.
public struct VideoError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One audio stream of a video: its channels and its label (`title` and `handler_name`).
public struct VideoAudioTrack: Sendable, Hashable {
    public var channels: Int
    public var title: String
    public init(channels: Int, title: String) {
        self.channels = channels
        self.title = title
    }
}

/// What a video is written with.
public struct VideoSettings: Sendable {
    public var container: VideoContainer
    public var width: Int
    public var height: Int
    public var sampleRate: Int
    public var frameRate: VideoFrameRate
    /// CRF of the video codec; nil: the container's default.
    public var quality: Int?
    /// 0xRRGGBB under the pictures' transparent parts.
    public var background: UInt32
    /// At most two.
    public var audioTracks: [VideoAudioTrack]

    public init(container: VideoContainer, width: Int, height: Int, sampleRate: Int, frameRate: VideoFrameRate,
                quality: Int? = nil, background: UInt32 = 0xF2F2F2, audioTracks: [VideoAudioTrack]) {
        self.container = container
        self.width = width
        self.height = height
        self.sampleRate = sampleRate
        self.frameRate = frameRate
        self.quality = quality
        self.background = background
        self.audioTracks = audioTracks
    }
}

/// A video file being written through FFmpeg (CFFmpegShim): pictures at sample-clock pts, audio
/// streams fed float interleaved samples. `finish()` completes the file; dropping the encoder
/// without it (or `cancel()`) closes it unfinished — the caller removes the file.
///
/// Thread rules: one thread at a time.
public final class VideoEncoder {
    public let settings: VideoSettings
    private var handle: OpaquePointer?

    /// Opens `path` (written as `settings.container` whatever its name) and writes the header.
    public init(path: String, settings: VideoSettings) throws(VideoError) {
        self.settings = settings
        guard settings.audioTracks.count <= Int(PULSAR_VIDEO_MAX_AUDIO) else { throw VideoError("at most two audio tracks") }
        var config = pulsar_video_config()
        config.container = settings.container.code
        config.width = try Self.int32(settings.width, "the width")
        config.height = try Self.int32(settings.height, "the height")
        config.sample_rate = try Self.int32(settings.sampleRate, "the sample rate")
        config.fps_num = try Self.int32(settings.frameRate.numerator, "the frame rate's numerator")
        config.fps_den = try Self.int32(settings.frameRate.denominator, "the frame rate's denominator")
        config.quality = try Self.int32(settings.quality ?? -1, "the quality")
        config.background = settings.background
        config.audio_count = Int32(settings.audioTracks.count)
        for track in settings.audioTracks { _ = try Self.int32(track.channels, "an audio track's channels") }
        let titles = settings.audioTracks.map { strdup($0.title) }
        defer { titles.forEach { free($0) } }
        withUnsafeMutableBytes(of: &config.audio_channels) { raw in
            let channels = raw.bindMemory(to: Int32.self)
            for (i, t) in settings.audioTracks.enumerated() { channels[i] = Int32(t.channels) }
        }
        withUnsafeMutableBytes(of: &config.audio_titles) { raw in
            let slots = raw.bindMemory(to: UnsafePointer<CChar>?.self)
            for (i, t) in titles.enumerated() { slots[i] = UnsafePointer(t) }
        }
        var error = [CChar](repeating: 0, count: 256)
        var opened: OpaquePointer?
        let status = path.withCString { p in
            config.path = p
            return pulsar_video_open(&config, &opened, &error, error.count)
        }
        guard status == 0, let opened else { throw VideoError(Self.text(error)) }
        handle = opened
    }

    deinit { cancel() }

    /// Encodes `image` (the settings' size) shown from output sample `sample` on.
    public func appendFrame(_ image: ARGB32Image, at sample: Int64) throws(VideoError) {
        guard image.width == settings.width, image.height == settings.height else {
            throw VideoError("a \(image.width)×\(image.height) picture in a \(settings.width)×\(settings.height) video")
        }
        let handle = try open()
        let status = image.pixels.withUnsafeBufferPointer { pulsar_video_frame(handle, $0.baseAddress, sample) }
        try check(status)
    }

    /// Appends interleaved float frames (the track's channels each) to audio track `track`.
    public func appendAudio(_ samples: UnsafeBufferPointer<Float>, track: Int) throws(VideoError) {
        let handle = try open()
        guard settings.audioTracks.indices.contains(track) else { throw VideoError("no audio track \(track)") }
        let frames = try Self.int32(samples.count / settings.audioTracks[track].channels, "a block's frames")
        try check(pulsar_video_audio(handle, Int32(track), samples.baseAddress, frames))
    }

    /// The priming the audio codec of `track` puts before the first sample (in samples).
    public func audioDelay(track: Int) -> Int {
        handle.map { Int(pulsar_video_audio_delay($0, Int32(clamping: track))) } ?? 0
    }

    /// Drains the encoders, writes the trailer and closes the file.
    public func finish() throws(VideoError) {
        let handle = try open()
        defer { cancel() }
        try check(pulsar_video_finish(handle))
    }

    /// Closes the file unfinished (nothing more can be appended).
    public func cancel() {
        if let handle { pulsar_video_close(handle) }
        handle = nil
    }

    private func open() throws(VideoError) -> OpaquePointer {
        guard let handle else { throw VideoError("the video is closed") }
        return handle
    }

    private func check(_ status: Int32) throws(VideoError) {
        guard status != 0, let handle else { return }
        throw VideoError(String(cString: pulsar_video_error(handle)))
    }

    /// `value` as the C shim's `int`, or an error naming it: no setting converts unchecked.
    private static func int32(_ value: Int, _ what: String) throws(VideoError) -> Int32 {
        guard let converted = Int32(exactly: value) else { throw VideoError("\(what), \(value), is beyond a 32-bit integer") }
        return converted
    }

    private static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
