import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarDerive
import PulsarSession

/// An audio file as the INPUT of `pulsar info` and `pulsar render`: its audio and, for Android
/// haptic-coupled audio (an Ogg Vorbis file with `ANDROID_HAPTIC=N`), its haptic channels —
/// which `render --layout haptic` extracts and any layout's `H` takes.
enum AudioFileInput {

    /// One warning when the file's `ANDROID_HAPTIC` comment is not read as written.
    private static func warnAboutHapticComment(_ path: String, _ bytes: ByteSource, channels: Int) {
        if let why = AudioStream.androidHapticWarning(of: bytes, channels: channels) {
            Console.error("pulsar: warning: \(MessageText.oneLine(path)): \(why) [android-haptic]")
        }
    }

    /// Whether INPUT is read as audio (`ContentInput.audioExtensions`).
    static func isAudio(_ path: String) -> Bool { ContentInput.isAudio(input: path) }

    /// The file's bytes, read as `InputFile` reads every input (a regular file, never a FIFO).
    private static func open(_ path: String) throws(CommandFailure) -> ByteSource {
        do {
            return try FileByteSource(path: path)
        } catch {
            throw CommandFailure(.noInput, "pulsar: error: \(MessageText.oneLine(path)): \(error)")
        }
    }

    /// `pulsar info FILE.ogg`: the format, the length and Android's haptic channels.
    static func info(_ path: String, json: Bool) throws(CommandFailure) {
        let bytes = try open(path)
        let format: AudioFormatInfo
        do {
            format = try AudioFormatInfo(bytes: bytes, name: path)
        } catch {
            throw CommandFailure(error, input: path)
        }
        let haptic = AudioStream.androidHapticChannels(of: bytes, channels: format.channels)
        warnAboutHapticComment(path, bytes, channels: format.channels)
        let ms = Double(format.frames) * 1000 / Double(max(format.sampleRate, 1))
        if json {
            let doc: JSONValue = .obj([
                "file": .str(path), "kind": .str("audio"), "container": .str(format.container), "encoding": .str(format.encoding),
                "sampleRate": .num(Double(format.sampleRate)), "channels": .num(Double(format.channels)),
                "frames": .num(Double(format.frames)), "durationMs": .num(ms),
                "androidHapticChannels": haptic.map { .num(Double($0)) } ?? JSONValue(.null),
            ])
            Console.out(JSONWriter().write(doc), terminator: "")
            return
        }
        Console.out("\(path): audio, \(format.container), \(format.encoding), \(format.sampleRate) Hz, \(format.channels) channels, \(String(printf: "%.3f", ms)) ms (\(format.frames) frames)")
        if let haptic {
            let audio = format.channels - haptic
            Console.out("  haptic channels: \(haptic) (ANDROID_HAPTIC=\(haptic)): channel\(haptic == 1 ? "" : "s") \(haptic == 1 ? "\(format.channels)" : "\(audio + 1)–\(format.channels)") \(haptic == 1 ? "vibrates" : "vibrate"); \(audio == 1 ? "channel 1 is" : "channels 1–\(audio) are") audio")
        } else {
            Console.out("  haptic channels: none (no ANDROID_HAPTIC comment)")
        }
    }

    /// `pulsar render FILE.ogg --layout L -o OUT`: the file's audio as L, R and M, its Android
    /// haptic channels (their mean) as H, at `rate`; a layout with H needs a file that has them.
    /// With `generated` (`--haptics-from-audio android`), H is Android's HapticGenerator on the
    /// audio's first channel at `rate` instead, as a phone generates it from the stream it plays.
    static func render(_ path: String, layout: ChannelLayout, rate: SampleRate, output: String, format: SampleFormat,
                       quiet: Bool, generated: Bool = false, budget: OutputBudget) throws(CommandFailure) {
        let bytes = try open(path)
        let audio: AudioStream
        do {
            audio = try AudioStream(bytes: bytes, name: path, outputRate: rate, channels: 2, part: .audio)
        } catch {
            throw CommandFailure(error, input: path)
        }
        var generator: HapticGenerator?
        if generated {
            do {
                generator = try HapticGenerator(sampleRate: rate.hertz)
            } catch {
                throw CommandFailure(error)
            }
        }
        let usesAudio = generator != nil || layout.channels.joined().contains { $0 == .left || $0 == .right || $0 == .mono }
        var haptic: AudioStream?
        if !quiet { warnAboutHapticComment(path, bytes, channels: audio.sourceFormat.channels) }
        if layout.usesHaptics, generator == nil {
            guard audio.androidHapticChannels != nil else {
                throw CommandFailure(.dataError, "pulsar: error: \(MessageText.oneLine(path)): has no haptic channels to extract (an Ogg Vorbis file with ANDROID_HAPTIC=1 or 2 has); layout \(layout.name) takes H [no-haptic-channels]")
            }
            let again = try open(path)
            do {
                haptic = try AudioStream(bytes: again, name: path, outputRate: rate, channels: 1, part: .androidHaptics)
            } catch {
                throw CommandFailure(error, input: path)
            }
        }
        let channels = layout.channelCount
        try RenderCommand.checkBudget(budget, frames: audio.frameCount, channels: channels, rate: rate, format: format, output: output)
        var stereo = [Float](repeating: 0, count: 4096 * 2), mono = [Float](repeating: 0, count: 4096)
        InterruptCleanup.arm(WAVExporter.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        let report: WAVExporter.Report
        do {
            let container = WAVExporter.Container(forOutput: output, layout: layout)
            report = try WAVExporter(format: format, container: container).export(to: output, sampleRate: rate, channels: channels,
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
        } catch {
            throw CommandFailure(error, input: path)
        }
        if !quiet {
            Console.error("wrote \(output): \(report.frames) frames × \(channels) channels (\(layout.name)) of \(path) at \(rate.hertz) Hz\(haptic != nil ? ", H from its ANDROID_HAPTIC channels" : generator != nil ? ", H from Android's HapticGenerator" : "")")
        }
    }
}
