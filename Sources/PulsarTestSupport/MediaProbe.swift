import Foundation

/// Measurements of a media file made by the `ffmpeg` and `ffprobe` command-line tools — not by
/// the project's own code — for the tests of `pulsar video`: its streams, its decoded frames and
/// timestamps, its decoded audio, and the comparisons (PSNR, correlation at the best lag).
public enum MediaProbe {
    public static let ffmpeg = "/usr/bin/ffmpeg"
    public static let ffprobe = "/usr/bin/ffprobe"

    /// Whether both tools are installed (`make test` installs the `ffmpeg` package).
    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: ffmpeg) && FileManager.default.isExecutableFile(atPath: ffprobe)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One stream as ffprobe reports it.
    public struct Stream: Sendable {
        public var codec: String
        public var type: String
        public var channels: Int?
        public var sampleRate: Int?
        public var width: Int?
        public var height: Int?
        /// `title` or, failing that, `handler_name` (whatever case the container gives the key).
        public var title: String?
        public var handlerName: String?
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let r = try ChildProcess.run(tool, arguments)
        guard r.status == 0 else { throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): exit \(r.status): \(r.stderr)") }
        return r.stdout
    }

    /// The streams of `path`, in order.
    public static func streams(_ path: String) throws -> [Stream] {
        let text = try run(ffprobe, ["-v", "error", "-show_streams", "-of", "json", path])
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let list = object?["streams"] as? [[String: Any]] ?? []
        return list.map { s in
            let tags = (s["tags"] as? [String: Any] ?? [:]).reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value as? String }
            return Stream(codec: s["codec_name"] as? String ?? "", type: s["codec_type"] as? String ?? "",
                          channels: s["channels"] as? Int, sampleRate: (s["sample_rate"] as? String).flatMap { Int($0) },
                          width: s["width"] as? Int, height: s["height"] as? Int,
                          title: tags["title"], handlerName: tags["handler_name"])
        }
    }

    /// The container's duration in seconds.
    public static func duration(_ path: String) throws -> Double {
        let text = try run(ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", path])
        guard let d = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw Failure(description: "no duration: \(text)") }
        return d
    }

    /// The presentation time (s) of every decoded video frame, in display order.
    public static func framePTS(_ path: String) throws -> [Double] {
        let text = try run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        return text.split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }
    }

    /// Every video frame decoded to rgb24 (`width × height × 3` bytes each).
    public static func rgbFrames(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
        let raw = NSTemporaryDirectory() + "pulsar-frames-\(UUID().uuidString).rgb"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try run(ffmpeg, ["-v", "error", "-y", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = width * height * 3
        return stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<($0 + size)]) }
    }

    /// An image file (PNG, straight RGBA) composited over `background` (0xRRGGBB), as rgb24.
    public static func rgbImage(_ path: String, over background: UInt32) throws -> [UInt8] {
        let raw = NSTemporaryDirectory() + "pulsar-image-\(UUID().uuidString).rgba"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try run(ffmpeg, ["-v", "error", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", raw])
        let rgba = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let bg = [Double((background >> 16) & 0xFF), Double((background >> 8) & 0xFF), Double(background & 0xFF)]
        var out = [UInt8](repeating: 0, count: rgba.count / 4 * 3)
        for p in 0..<(rgba.count / 4) {
            let a = Double(rgba[p * 4 + 3]) / 255
            for c in 0..<3 { out[p * 3 + c] = UInt8((Double(rgba[p * 4 + c]) * a + bg[c] * (1 - a)).rounded()) }
        }
        return out
    }

    /// Audio stream `index` of `path` (or the only one of a WAV) decoded to float, interleaved.
    public static func audio(_ path: String, stream index: Int = 0) throws -> [Float] {
        let raw = NSTemporaryDirectory() + "pulsar-audio-\(UUID().uuidString).f32"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try run(ffmpeg, ["-v", "error", "-y", "-i", path, "-map", "0:a:\(index)", "-f", "f32le", "-acodec", "pcm_f32le", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Channel `channel` of interleaved `samples` with `channels` channels.
    public static func channel(_ samples: [Float], _ channel: Int, of channels: Int) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    /// PSNR (dB) of two equal-length 8-bit pictures; 99 when they are equal.
    public static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sum = 0.0
        for i in 0..<a.count {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// The Pearson correlation of `decoded` against `reference` at the lag (`decoded` delayed by
    /// 0 … `maxLag` samples, or ahead by as many) where it is highest, over the reference's
    /// length less the lag; the lag is found by the correlation itself.
    public static func bestCorrelation(_ reference: [Float], _ decoded: [Float], maxLag: Int) -> (correlation: Double, lag: Int) {
        var best = (correlation: -2.0, lag: 0)
        for lag in -maxLag...maxLag {
            let c = correlation(reference, decoded, lag: lag)
            if c > best.correlation { best = (c, lag) }
        }
        return best
    }

    /// Pearson correlation of reference[i] with decoded[i + lag] where both exist.
    public static func correlation(_ x: [Float], _ y: [Float], lag: Int) -> Double {
        let start = max(0, -lag), end = min(x.count, y.count - lag)
        guard end - start > 1 else { return 0 }
        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
        for i in start..<end {
            let a = Double(x[i]), b = Double(y[i + lag])
            sx += a; sy += b; sxx += a * a; syy += b * b; sxy += a * b
        }
        let n = Double(end - start)
        let cov = sxy - sx * sy / n, vx = sxx - sx * sx / n, vy = syy - sy * sy / n
        return vx > 0 && vy > 0 ? cov / (vx * vy).squareRoot() : 0
    }
}
