import PulsarAudio
import PulsarBundle
import PulsarCore

/// An audio file rendered into a channel layout (`pulsar render FILE.ogg --layout L`): its audio
/// as L, R and M, and its Android haptic channels (their mean) as H — or, generated, Android's
/// HapticGenerator on the audio's first channel as H, as a phone makes haptics from the stream
/// it plays. A layout with H needs a file that has them, unless generated.
///
/// Thread rules: one thread at a time; `export` once.
public final class AudioFileRender {
    /// Why the render cannot start.
    public enum Failure: Error, CustomStringConvertible {
        case input(AudioInputError)
        /// HapticGenerator refused the rate.
        case generator(DeriveError)

        public var description: String {
            switch self {
            case .input(let error): "\(error)"
            case .generator(let error): "\(error)"
            }
        }
    }

    /// Where H comes from.
    public enum HapticSource: Sendable, Equatable {
        /// The layout takes no H (and nothing was generated).
        case none
        /// The file's `ANDROID_HAPTIC` channels.
        case androidChannels
        /// Android's HapticGenerator on the audio.
        case generator
    }

    public let path: String
    public let layout: ChannelLayout
    public let rate: SampleRate
    private let audio: AudioStream
    private let haptic: AudioStream?
    private let generator: HapticGenerator?

    /// Opens the file (twice when H takes its haptic channels). `warning` hears why the file's
    /// `ANDROID_HAPTIC` comment is not read as written, before any failure of H.
    public init(path: String, layout: ChannelLayout, rate: SampleRate, generated: Bool = false,
                warning: (String) -> Void = { _ in }) throws(Failure) {
        self.path = path
        self.layout = layout
        self.rate = rate
        let bytes: ByteSource
        do throws(AudioInputError) { bytes = try AudioInputError.open(path) } catch { throw .input(error) }
        do {
            audio = try AudioStream(bytes: bytes, name: path, outputRate: rate, channels: 2, part: .audio)
        } catch {
            throw .input(.audio(error))
        }
        if generated {
            do {
                generator = try HapticGenerator(sampleRate: rate.hertz)
            } catch {
                throw .generator(error)
            }
        } else {
            generator = nil
        }
        if let why = AudioStream.androidHapticWarning(of: bytes, channels: audio.sourceFormat.channels) { warning(why) }
        guard layout.usesHaptics, generator == nil else {
            haptic = nil
            return
        }
        guard audio.androidHapticChannels != nil else { throw .input(.noHapticChannels(path: path, layout: layout.name)) }
        let again: ByteSource
        do throws(AudioInputError) { again = try AudioInputError.open(path) } catch { throw .input(error) }
        do {
            haptic = try AudioStream(bytes: again, name: path, outputRate: rate, channels: 1, part: .androidHaptics)
        } catch {
            throw .input(.audio(error))
        }
    }

    /// The frames the render has, at `rate`.
    public var frames: FrameIndex { audio.frameCount }

    public var hapticSource: HapticSource { haptic != nil ? .androidChannels : generator != nil ? .generator : .none }

    /// Writes the render to `output` (WAV, or the container its extension names), whole or not
    /// at all.
    public func export(to output: String, format: SampleFormat) throws(AudioFileError) -> WAVExporter.Report {
        let (audio, haptic, generator, layout) = (self.audio, self.haptic, self.generator, self.layout)
        let usesAudio = generator != nil || layout.channels.joined().contains { $0 == .left || $0 == .right || $0 == .mono }
        let channels = layout.channelCount
        var stereo = [Float](repeating: 0, count: 4096 * 2), mono = [Float](repeating: 0, count: 4096)
        let container = WAVExporter.Container(forOutput: output, layout: layout)
        return try WAVExporter(format: format, container: container).export(to: output, sampleRate: rate, channels: channels,
                                                                           frames: audio.frameCount) { block, _ throws(AudioFileError) in
            let frames = block.count / channels
            var done = 0
            while done < frames {
                let n = min(frames - done, 4096)
                if usesAudio { _ = try stereo.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in try audio.read(into: b, frames: n) } }
                if let haptic { _ = try mono.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) in try haptic.read(into: b, frames: n) } }
                if let generator {
                    for f in 0..<n { mono[f] = stereo[2 * f] }
                    mono.withUnsafeMutableBufferPointer { generator.process(UnsafeMutableBufferPointer(rebasing: $0[0..<n])) }
                }
                for f in 0..<n {
                    let l = stereo[2 * f], r = stereo[2 * f + 1], h = mono[f]
                    for (c, sources) in layout.channels.enumerated() {
                        var v: Float = 0
                        for s in sources {
                            switch s {
                            case .left: v += l
                            case .right: v += r
                            case .mono: v += (l + r) * 0.5
                            case .haptic: v += h
                            case .silence: break
                            }
                        }
                        block[(done + f) * channels + c] = v
                    }
                }
                done += n
            }
            return 0
        }
    }
}
