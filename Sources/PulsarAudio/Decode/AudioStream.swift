import PulsarBundle
import PulsarCore

/// Decoded, resampled and channel-mapped audio from encoded bytes (anything libsndfile reads:
/// WAV, AIFF, FLAC, Ogg Vorbis, Opus, MP3, …), read sequentially in blocks with random seeks.
/// The bytes are streamed through `ByteSource` (a file, a ZIP entry, memory) and never loaded
/// whole: the stream owns fixed-size buffers (`bufferSamples`, set in `init`) whatever the
/// file's length.
///
/// **Length.** `frameCount` is exactly `round(sourceFrames · outputRate / sourceRate)` (halves
/// up); the resampler's flush fills the tail, and if the decoder delivers fewer frames than its
/// header promised, the rest is silence; frames beyond `frameCount` are dropped.
///
/// **Channels** (`N` in the file, `M` requested):
/// - `N == M`: unchanged.
/// - `N == 1`: every output channel carries the mono signal.
/// - `M == 1`: the mean of all input channels (stereo → `(L + R) / 2`).
/// - otherwise (`N, M ≥ 2`): output channel `c` is input channel `c` for `c < N`; extra output
///   channels (`M > N`) are silent, extra input channels (`N > M`) are dropped.
/// Down-mixing happens before resampling and up-mixing after, so the resampler works on
/// `min(N, M)` channels.
///
/// **Rates.** Equal rates pass the decoded samples through unchanged (bit-exact). Otherwise
/// `Resampler` (libsoxr HQ) converts; measured on a 1 kHz sine at 44.1 ↔ 48, 22.05 → 48,
/// 48 → 96 and 96 → 44.1 kHz: frequency error below 2e-7 %, level error below 1e-6 dB, largest
/// difference from the ideal sine 3.6e-7.
///
/// **Seeking.** The decoder restarts at the source frame the seek needs — for codecs other than
/// PCM and FLAC `decoderSeekPreroll` frames earlier, dropping those, since libsndfile's Vorbis seek
/// leaves up to one block wrong; and for Vorbis never inside the last ~22 s (at 48 kHz) of the
/// file, where libsndfile 1.2.0's seek lands late (`SoundFile.seekTailGuard`), so seeks near the
/// end of a Vorbis file decode up to that much extra — so with equal rates a seek gives exactly
/// the samples of a continuous read (measured: identical for WAV, FLAC, MP3, Vorbis, Opus). With different rates
/// the stream starts the resampler `seekPreroll` source frames or more before the
/// target, at a source frame whose time is a whole output frame (a multiple of
/// `sourceRate / gcd(sourceRate, outputRate)`), runs a fresh resampler from there and discards
/// output up to the target. The output grid therefore matches the continuous stream exactly, and
/// the only difference is the resampler's start-up transient, decayed over the pre-roll: measured
/// against a continuous read (48 kHz WAV, FLAC, Vorbis, Opus, MP3 to 44.1, 96 and 22.05 kHz; the
/// corpus MP3 to 48 kHz), the largest sample difference after a seek is 3.6e-7 (−129 dBFS, float
/// rounding). With a pre-roll of 128 frames it would be 1.5e-5 at 2:1 ratios; from 256 on, 4e-7.
/// When the rates share only a small common divisor the pre-roll can grow up to one
/// `sourceRate / gcd` period (at most one second of audio).
///
/// **Non-finite samples.** A float file may hold NaN or ±∞. Each decoded block is scanned as it
/// leaves the decoder, before down-mixing and resampling, and every non-finite sample becomes 0
/// (silence); `nonFiniteSamples` counts them once per source frame and `NonFiniteSamples.drain()`
/// hands the totals to whoever reports them. So no NaN or infinity reaches the mixer.
///
/// Thread rules: one thread at a time; never the real-time thread (`read` and `seek` decode,
/// do I/O and may block). The mixer should read ahead on a worker and hand blocks to the
/// real-time thread through its own buffer.
public final class AudioStream {
    /// Label for errors (e.g. the bundle path of the audio).
    public let name: String
    /// The encoded file's format.
    public let sourceFormat: AudioFormatInfo
    /// Rate of the frames `read` returns.
    public let outputRate: SampleRate
    /// Samples per output frame.
    public let channels: Int
    /// Exact number of output frames the whole file yields at the output rate: round(sourceFrames * outRate / inRate).
    public let frameCount: FrameIndex
    /// Output frame the next `read` starts at.
    public private(set) var position: FrameIndex = 0

    /// Source frames, at least, decoded before a seek target when resampling.
    public static let seekPreroll: Int64 = 512
    /// Source frames decoded and dropped before a seek's start point for codecs whose own seek
    /// leaves the decoder unprimed (see `decoderPreroll(formatCode:)`): Vorbis blocks are at
    /// most 8192 frames.
    public static let decoderSeekPreroll: Int64 = 8192
    /// Source frames decoded per step.
    static let sourceBlockFrames = 4096
    /// Resampled frames held per step.
    static let pendingFrames = 4096

    private let file: SoundFile
    private let resampler: Resampler
    /// The file's channels read (a range of them), and Android's haptic channels at its end.
    public let selection: Range<Int>
    public let androidHapticChannels: Int?
    /// Channels between down-mix and up-mix: `min(N, M)`.
    private let workChannels: Int
    private let sourceChannels: Int
    /// Decoded frames (`sourceChannels` wide as read, `workChannels` wide after the down-mix).
    private let sourceBuffer: UnsafeMutableBufferPointer<Float>
    private var sourceStart = 0
    private var sourceCount = 0
    /// Resampled frames, `workChannels` wide.
    private let pending: UnsafeMutableBufferPointer<Float>
    private var pendingStart = 0
    private var pendingCount = 0
    /// Output frames still to drop after a seek (the pre-roll).
    private var discard: Int64 = 0
    /// Decoded source frames still to drop after a seek (the decoder's pre-roll).
    private var sourceSkip: Int64 = 0
    private let decoderPreroll: Int64
    /// See `SoundFile.seekTailGuard(formatCode:)`.
    private let decoderTailGuard: Int64
    /// `seekPreroll` for this stream (tests vary it to measure the start-up transient).
    var resamplerPreroll: Int64 = AudioStream.seekPreroll
    private var decoderEnded = false
    private var flushEnded = false
    /// Source frames in one resampling alignment period (`sourceRate / gcd`) and the output
    /// frames it spans (`outputRate / gcd`).
    private let alignSource: Int64
    private let alignOutput: Int64
    /// Output frames filled with silence because the decoder ended early (diagnostics).
    private(set) var paddedFrames: Int64 = 0
    /// Source frame of the next decoded frame, and the end of the furthest range decoded so far.
    private var decoderFrame: Int64 = 0
    private var decodedEnd: Int64 = 0
    /// Non-finite samples (NaN, ±∞) the file held in the source frames decoded so far, each
    /// counted once however often a seek or a loop decodes it again; all were decoded as 0.
    public private(set) var nonFiniteSamples: Int64 = 0

    /// Which of the file's channels a stream reads.
    public enum SourceChannels: Sendable {
        /// The audio: every channel but the haptic ones of Android haptic-coupled audio
        /// (`ANDROID_HAPTIC=N` in an Ogg Vorbis file: its last N channels vibrate).
        case audio
        /// An Android file's haptic channels alone (an error for a file without them).
        case androidHaptics
    }

    /// Opens `bytes` (any format libsndfile reads) for output at `outputRate` with `channels`
    /// output channels, from the file's channels `part` names (its audio, by default).
    public init(bytes: ByteSource, name: String, outputRate: SampleRate, channels: Int, part: SourceChannels = .audio) throws(AudioFileError) {
        guard (1...64).contains(channels) else {
            throw AudioFileError(path: name, message: "cannot produce \(channels) output channels (1...64)")
        }
        let file = try SoundFile(reading: bytes, name: name)
        let format = try AudioFormatInfo(file: file)
        self.file = file
        self.name = name
        self.sourceFormat = format
        self.outputRate = outputRate
        self.channels = channels
        sourceChannels = format.channels
        let haptic = Self.androidHapticChannels(of: bytes, channels: format.channels)
        androidHapticChannels = haptic
        switch part {
        case .audio:
            selection = 0..<(format.channels - (haptic ?? 0))
        case .androidHaptics:
            guard let haptic else {
                throw AudioFileError(path: name, message: "has no haptic channels (an Ogg Vorbis file with ANDROID_HAPTIC=1 or 2 has)")
            }
            selection = (format.channels - haptic)..<format.channels
        }
        workChannels = min(selection.count, channels)
        frameCount = Self.outputFrames(sourceFrames: format.frames, from: format.sampleRate, to: outputRate.hertz)
        let g = Self.gcd(Int64(format.sampleRate), Int64(outputRate.hertz))
        alignSource = Int64(format.sampleRate) / g
        alignOutput = Int64(outputRate.hertz) / g
        do {
            resampler = try Resampler(inputRate: format.sampleRate, outputRate: outputRate.hertz, channels: min(selection.count, channels))
        } catch {
            throw AudioFileError(path: name, message: error.description)
        }
        decoderPreroll = SoundFile.seeksExactly(formatCode: format.formatCode) ? 0 : Self.decoderSeekPreroll
        decoderTailGuard = SoundFile.seekTailGuard(formatCode: format.formatCode)
        sourceBuffer = .allocate(capacity: Self.sourceBlockFrames * format.channels)
        pending = .allocate(capacity: Self.pendingFrames * workChannels)
    }

    deinit {
        sourceBuffer.deallocate()
        pending.deallocate()
    }

    /// `round(sourceFrames · to / from)`, halves up, without overflow.
    static func outputFrames(sourceFrames: FrameIndex, from: Int, to: Int) -> FrameIndex {
        guard from > 0, sourceFrames > 0 else { return 0 }
        if from == to { return sourceFrames }
        let n = Int128(sourceFrames) * Int128(to) * 2 + Int128(from)
        return FrameIndex(n / (2 * Int128(from)))
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// Samples (floats) the stream's own buffers hold; fixed in `init`, whatever the file's
    /// length (libsndfile's and libsoxr's internal state is bounded as well).
    public var bufferSamples: Int { sourceBuffer.count + pending.count }

    /// Next frames, interleaved (`channels` samples per frame), sequentially from the current position; returns frames written (< frames only at the end).
    ///
    /// `buffer` must hold at least `frames · channels` samples.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(AudioFileError) -> Int {
        precondition(frames >= 0 && buffer.count >= frames * channels, "buffer holds \(buffer.count) samples, \(frames) frames of \(channels) channels need more")
        guard let out = buffer.baseAddress else { return 0 }
        let wanted = Int(min(FrameIndex(frames), frameCount - position))
        var written = 0
        while written < wanted {
            if pendingCount == 0 {
                try refill()
                if pendingCount == 0 {
                    // Decoder and resampler are drained: the rest of `frameCount` is silence.
                    let rest = wanted - written
                    (out + written * channels).update(repeating: 0, count: rest * channels)
                    paddedFrames += FrameIndex(rest)
                    written = wanted
                    break
                }
            }
            if discard > 0 {
                let d = Int(min(discard, Int64(pendingCount)))
                pendingStart += d
                pendingCount -= d
                discard -= Int64(d)
                continue
            }
            let n = min(pendingCount, wanted - written)
            upmix(from: pending.baseAddress! + pendingStart * workChannels, frames: n, into: out + written * channels)
            pendingStart += n
            pendingCount -= n
            written += n
        }
        position += FrameIndex(written)
        return written
    }

    /// Moves to output frame `frame` (0 ..< frameCount); the next read starts there.
    ///
    /// `frame == frameCount` is allowed (the next read returns 0).
    public func seek(to frame: FrameIndex) throws(AudioFileError) {
        guard frame >= 0, frame <= frameCount else {
            throw AudioFileError(path: name, message: "seek to frame \(frame) outside 0...\(frameCount)")
        }
        let sourceFrames = sourceFormat.frames
        let start: Int64
        if resampler.isPassthrough {
            start = min(frame, sourceFrames)
            discard = 0
        } else {
            // Source time of the target, rounded down, minus the pre-roll, down to a frame whose
            // time is a whole output frame.
            let target = Int64(Int128(frame) * Int128(sourceFormat.sampleRate) / Int128(outputRate.hertz))
            let early = max(0, min(target, sourceFrames) - resamplerPreroll)
            let period = early / alignSource
            start = period * alignSource
            discard = frame - period * alignOutput
            try resetResampler()
        }
        if start < sourceFrames || start == 0 {
            // Lossy decoders (Vorbis) produce wrong samples for up to a block after their own
            // seek: start earlier and drop the difference.
            var decoderStart = max(0, start - decoderPreroll)
            if decoderTailGuard > 0 {
                // libsndfile's Vorbis seek into the last page lands late: start before it.
                decoderStart = max(0, min(decoderStart, sourceFrames - decoderTailGuard))
            }
            try file.seek(toFrame: decoderStart)
            decoderFrame = decoderStart
            sourceSkip = start - decoderStart
            decoderEnded = false
        } else {
            sourceSkip = 0
            decoderEnded = true
        }
        flushEnded = false
        sourceStart = 0
        sourceCount = 0
        pendingStart = 0
        pendingCount = 0
        position = frame
    }

    private func resetResampler() throws(AudioFileError) {
        do {
            try resampler.reset()
        } catch {
            throw AudioFileError(path: name, message: error.description)
        }
    }

    /// Fills `pending` with at least one resampled frame, unless everything is drained.
    private func refill() throws(AudioFileError) {
        pendingStart = 0
        pendingCount = 0
        let pendingOut = pending.baseAddress!
        do {
            while pendingCount == 0 {
                if sourceCount == 0, !decoderEnded {
                    let got = try file.readFrames(into: sourceBuffer.baseAddress!, count: Self.sourceBlockFrames)
                    if got == 0 {
                        decoderEnded = true
                    } else {
                        zeroNonFinite(frames: got)
                        downmix(frames: got)
                        let skip = Int(min(sourceSkip, Int64(got)))
                        sourceSkip -= Int64(skip)
                        sourceStart = skip
                        sourceCount = got - skip
                    }
                }
                if sourceCount > 0 {
                    let (consumed, produced) = try resampler.process(
                        sourceBuffer.baseAddress! + sourceStart * workChannels, inputFrames: sourceCount,
                        into: pendingOut, outputCapacity: Self.pendingFrames)
                    sourceStart += consumed
                    sourceCount -= consumed
                    pendingCount = produced
                } else if decoderEnded {
                    if flushEnded { return }
                    let produced = try resampler.flush(into: pendingOut, outputCapacity: Self.pendingFrames)
                    if produced == 0 { flushEnded = true }
                    pendingCount = produced
                }
            }
        } catch let error as AudioFileError {
            throw error
        } catch let error as ResamplerError {
            throw AudioFileError(path: name, message: error.description)
        } catch {
            throw AudioFileError(path: name, message: "\(error)")
        }
    }

    /// Sets the non-finite samples of the `frames` frames just decoded to 0, before a down-mix
    /// or the resampler spreads them, and counts those in source frames not decoded before.
    private func zeroNonFinite(frames: Int) {
        let p = sourceBuffer.baseAddress!
        let fresh = Int(max(0, min(Int64(frames), decoderFrame + Int64(frames) - decodedEnd)))
        let seen = frames - fresh
        _ = NonFiniteSamples.zero(p, count: seen * sourceChannels)
        let found = NonFiniteSamples.zero(p + seen * sourceChannels, count: fresh * sourceChannels)
        decoderFrame += Int64(frames)
        decodedEnd = max(decodedEnd, decoderFrame)
        if found > 0 {
            nonFiniteSamples += Int64(found)
            NonFiniteSamples.note(name, total: nonFiniteSamples)
        }
    }

    /// Reduces the first `frames` decoded frames in place from `sourceChannels` to `workChannels`
    /// of the selected ones (their mean for mono output, else the first of them). Writes never
    /// pass unread input.
    private func downmix(frames: Int) {
        let n = sourceChannels, first = selection.lowerBound, s = selection.count
        let k = workChannels
        guard k < n else { return }
        let p = sourceBuffer.baseAddress!
        if k == 1, s > 1 {
            if s == 2 {
                for i in 0..<frames { p[i] = (p[n * i + first] + p[n * i + first + 1]) * 0.5 }
            } else {
                let scale = 1 / Float(s)
                for i in 0..<frames {
                    var sum: Float = 0
                    for c in selection { sum += p[i * n + c] }
                    p[i] = sum * scale
                }
            }
        } else {
            for i in 0..<frames {
                for c in 0..<k { p[i * k + c] = p[i * n + first + c] }
            }
        }
    }

    /// `ANDROID_HAPTIC=N` of an Ogg Vorbis file (its first bytes' comment header), or nil.
    public static func androidHapticChannels(of bytes: ByteSource, channels: Int) -> Int? {
        oggComments(of: bytes).flatMap { OggVorbisComments.androidHapticChannels(channels: channels, comments: $0) }
    }

    /// `OggVorbisComments.androidHapticWarning` of an Ogg Vorbis file's comments, or nil.
    public static func androidHapticWarning(of bytes: ByteSource, channels: Int) -> String? {
        oggComments(of: bytes).flatMap { OggVorbisComments.androidHapticWarning(channels: channels, comments: $0) }
    }

    /// The comments of the Ogg Vorbis stream starting in `bytes` (its first bytes' comment
    /// header), or nil for anything else.
    private static func oggComments(of bytes: ByteSource) -> [String]? {
        var head = [UInt8](repeating: 0, count: Int(min(bytes.size, Int64(OggVorbisComments.headerBytes))))
        let got = (try? head.withUnsafeMutableBytes { try bytes.read(at: 0, into: $0) }) ?? 0
        guard got >= 4 else { return nil }
        return OggVorbisComments.read(Array(head.prefix(got)))?.comments
    }

    /// Writes `frames` frames from `workChannels` wide `source` to `channels` wide `out`.
    private func upmix(from source: UnsafeMutablePointer<Float>, frames: Int, into out: UnsafeMutablePointer<Float>) {
        let k = workChannels
        let m = channels
        if k == m {
            out.update(from: source, count: frames * m)
        } else if k == 1 {
            for i in 0..<frames {
                let v = source[i]
                for c in 0..<m { out[i * m + c] = v }
            }
        } else {
            for i in 0..<frames {
                for c in 0..<k { out[i * m + c] = source[i * k + c] }
                for c in k..<m { out[i * m + c] = 0 }
            }
        }
    }
}
