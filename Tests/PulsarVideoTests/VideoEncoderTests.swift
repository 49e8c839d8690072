import Foundation
import PulsarLottieRender
import PulsarTestSupport
@testable import PulsarVideo
import Testing

/// `VideoEncoder` on its own, read back by the `ffmpeg` and `ffprobe` tools.
@Suite struct VideoEncoderTests {
    static let tools = MediaProbe.available || ProcessInfo.processInfo.environment["CI"] == "true"

    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "pulsar-video-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Ten pictures at 10 fps and 48 kHz (pts 4800 k), each a premultiplied colour at half alpha,
    /// over a black background; a 1 kHz tone on track 1, a 100 Hz one on track 2.
    @Test("Pictures land at their sample pts, composited over the background; both tones decode",
          .enabled(if: tools, "needs ffmpeg"), .timeLimit(.minutes(2)))
    func encodesPicturesAndTones() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/t.mp4"
        let settings = VideoSettings(container: .mp4, width: 64, height: 48, sampleRate: 48_000,
                                     frameRate: VideoFrameRate(numerator: 10, denominator: 1)!, background: 0x000000,
                                     audioTracks: [VideoAudioTrack(channels: 2, title: "audio"), VideoAudioTrack(channels: 1, title: "haptics")])
        let encoder = try VideoEncoder(path: path, settings: settings)
        #expect(encoder.audioDelay(track: 0) == 1024, "AAC primes 1024 samples")
        for k in 0..<10 {
            // Premultiplied half-alpha red of straight value 200 (100 stored): over black, 100.
            let pixel: UInt32 = 0x80 << 24 | 100 << 16 | UInt32(k * 10) << 8
            try encoder.appendFrame(ARGB32Image(width: 64, height: 48, pixels: [UInt32](repeating: pixel, count: 64 * 48)), at: Int64(4800 * k))
            let stereo = (0..<4800).flatMap { i -> [Float] in
                let x = Float(sin(2 * Double.pi * 1000 * Double(4800 * k + i) / 48_000)) * 0.5
                return [x, -x]
            }
            let mono = (0..<4800).map { i in Float(sin(2 * Double.pi * 100 * Double(4800 * k + i) / 48_000)) * 0.5 }
            try stereo.withUnsafeBufferPointer { try encoder.appendAudio($0, track: 0) }
            try mono.withUnsafeBufferPointer { try encoder.appendAudio($0, track: 1) }
        }
        try encoder.finish()
        let pts = try MediaProbe.framePTS(path)
        #expect(pts.count == 10)
        for (k, t) in pts.enumerated() { #expect(abs(t - Double(k) / 10) < 1e-6, "frame \(k) at \(t)") }
        let frames = try MediaProbe.rgbFrames(path, width: 64, height: 48)
        for (k, f) in frames.enumerated() {
            let middle = (24 * 64 + 32) * 3
            #expect(abs(Int(f[middle]) - 100) <= 4 && abs(Int(f[middle + 1]) - k * 10) <= 4 && f[middle + 2] <= 4, "frame \(k): \(f[middle..<middle + 3])")
        }
        let tone = MediaProbe.audio
        let left = MediaProbe.channel(try tone(path, 0), 0, of: 2)
        let reference = (0..<48_000).map { i in Float(sin(2 * Double.pi * 1000 * Double(i) / 48_000)) * 0.5 }
        #expect(MediaProbe.bestCorrelation(reference, left, maxLag: 1200).correlation > 0.99)
        let haptic = try tone(path, 1)
        let low = (0..<48_000).map { i in Float(sin(2 * Double.pi * 100 * Double(i) / 48_000)) * 0.5 }
        #expect(MediaProbe.bestCorrelation(low, haptic, maxLag: 1200).correlation > 0.99)
    }

    @Test("An unwritable path fails at open with one line naming FFmpeg's reason")
    func refusesUnwritablePath() throws {
        let settings = VideoSettings(container: .mkv, width: 16, height: 16, sampleRate: 48_000,
                                     frameRate: VideoFrameRate(numerator: 30, denominator: 1)!, audioTracks: [])
        #expect {
            _ = try VideoEncoder(path: "/nonexistent-folder/x.mkv", settings: settings)
        } throws: { error in
            let text = "\(error)"
            return text.contains("No such file or directory") && !text.contains("\n")
        }
    }
}
