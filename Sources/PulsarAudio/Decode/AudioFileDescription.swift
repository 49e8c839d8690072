import PulsarBundle
import PulsarCore

/// Why an audio file cannot be read as content (`AudioFileDescription`, and the render of one
/// into a channel layout).
public enum AudioInputError: Error, CustomStringConvertible, Sendable {
    /// The file would not open (missing, unreadable, not a regular file): `why` says so.
    case unreadable(path: String, why: String)
    /// The file opened but does not decode.
    case audio(AudioFileError)
    /// The layout takes H, and the file has no Android haptic channels to take it from.
    case noHapticChannels(path: String, layout: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "\(path): \(why)"
        case .audio(let error): "\(error)"
        case .noHapticChannels(let path, let layout): "\(path): \(AudioInputError.noHapticChannelsText(layout: layout))"
        }
    }

    /// What `.noHapticChannels` says after the file's name, with its rule.
    public static func noHapticChannelsText(layout: String) -> String {
        "has no haptic channels to extract (an Ogg Vorbis file with ANDROID_HAPTIC=1 or 2 has); layout \(layout) takes H [no-haptic-channels]"
    }

    /// The file's bytes, read as every input is read (a regular file, never a FIFO).
    package static func open(_ path: String) throws(AudioInputError) -> ByteSource {
        do {
            return try FileByteSource(path: path)
        } catch {
            throw .unreadable(path: path, why: "\(error)")
        }
    }
}

/// An audio file as `pulsar info` describes it: its format, its length and, for Android
/// haptic-coupled audio (an Ogg Vorbis file with `ANDROID_HAPTIC=N`), its haptic channels.
///
/// Thread rules: a value; any thread.
public struct AudioFileDescription: Sendable {
    public let path: String
    public let format: AudioFormatInfo
    /// The file's last `N` channels that vibrate (`ANDROID_HAPTIC=N`), or nil.
    public let androidHapticChannels: Int?
    /// Why the file's `ANDROID_HAPTIC` comment is not read as written, or nil.
    public let hapticCommentWarning: String?

    /// Reads the file's header and comments.
    public init(path: String) throws(AudioInputError) {
        let bytes = try AudioInputError.open(path)
        do {
            format = try AudioFormatInfo(bytes: bytes, name: path)
        } catch {
            throw .audio(error)
        }
        self.path = path
        androidHapticChannels = AudioStream.androidHapticChannels(of: bytes, channels: format.channels)
        hapticCommentWarning = AudioStream.androidHapticWarning(of: bytes, channels: format.channels)
    }

    /// The length in milliseconds.
    public var durationMs: Double { Double(format.frames) * 1000 / Double(max(format.sampleRate, 1)) }

    /// `pulsar info --json`'s object: `file`, `kind` ("audio"), `container`, `encoding`,
    /// `sampleRate`, `channels`, `frames`, `durationMs`, `androidHapticChannels` (null without).
    public var json: JSONValue {
        .obj([
            "file": .str(path), "kind": .str("audio"), "container": .str(format.container), "encoding": .str(format.encoding),
            "sampleRate": .num(Double(format.sampleRate)), "channels": .num(Double(format.channels)),
            "frames": .num(Double(format.frames)), "durationMs": .num(durationMs),
            "androidHapticChannels": androidHapticChannels.map { .num(Double($0)) } ?? JSONValue(.null),
        ])
    }
}
