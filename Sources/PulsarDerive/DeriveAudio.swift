import PulsarAudio
import PulsarBundle
import PulsarCore

/// A sound decoded for derivation: mono samples at the file's own rate.
///
/// A plain value type: safe to use from any thread.
public struct DecodedAudio: Sendable {
    /// The part's samples, mono.
    public var samples: [Float]
    /// Their rate: the file's own, or the nearest of `SampleRate.supported` when the file's lies
    /// outside (then `warnings` says so).
    public var sampleRate: Int
    /// The file's format as its decoder reports it.
    public var format: AudioFormatInfo
    /// The part's first frame in the decoded stream (at `sampleRate`).
    public var startFrame: Int
    public var warnings: [DeriveDiagnostic]
}

/// Reading any audio file libsndfile reads (WAV, AIFF, FLAC, Ogg Vorbis, Opus, MP3) for either
/// method, through `AudioStream`: its audio channels only (an Android haptic-coupled file's own
/// haptic channels are left out), non-finite samples as 0.
///
/// Thread rules: any thread but the real-time one (file I/O and decoding).
public enum DeriveAudio {
    /// Which mono signal of the file's audio channels.
    public enum Channels: String, Sendable, CaseIterable {
        /// The mean of every audio channel (`AudioStream`'s down-mix): the `envelope` method's.
        case mean
        /// Channel 0 alone: the `android` method's, as AOSP's `hapticChannelSource`.
        case first
    }

    /// The channels a method reads.
    public static func channels(for method: DeriveSettings.Method) -> Channels {
        method == .envelope ? .mean : .first
    }

    /// Decodes `from` … `to` (ms; `to` nil for the end) of the file at `path` to mono at its own
    /// rate. The whole part is held in memory. A file that cannot be opened is `missing-audio`.
    public static func read(_ path: String, channels: Channels, fromMilliseconds: Double = 0,
                            toMilliseconds: Double? = nil) throws(DeriveError) -> DecodedAudio {
        let bytes: ByteSource
        do {
            bytes = try FileByteSource(path: path)
        } catch let error as FileByteSource.OpenError {
            throw DeriveError(.missingAudio, file: path, message: error.reason)
        } catch {
            throw DeriveError(.missingAudio, file: path, message: "\(error)")
        }
        return try read(bytes: bytes, name: path, channels: channels, fromMilliseconds: fromMilliseconds, toMilliseconds: toMilliseconds)
    }

    /// Decodes `from` … `to` of the audio `bytes` hold (a file, a bundle's entry) to mono at its
    /// own rate; `name` names it in diagnostics. Reads `bytes` from its start.
    public static func read(bytes: ByteSource, name path: String, channels: Channels, fromMilliseconds: Double = 0,
                            toMilliseconds: Double? = nil) throws(DeriveError) -> DecodedAudio {
        func unreadable(_ message: String) -> DeriveError { DeriveError(.unreadableAudio, file: path, message: message) }
        let stream: AudioStream
        var warnings: [DeriveDiagnostic] = []
        do {
            let format = try AudioFormatInfo(bytes: bytes, name: path)
            let supported = SampleRate.supported
            let rate = min(max(format.sampleRate, supported.lowerBound), supported.upperBound)
            if rate != format.sampleRate {
                warnings.append(.warning(.resampled, file: path, "the file's rate \(format.sampleRate) Hz is outside \(supported.lowerBound)...\(supported.upperBound) Hz: resampled to \(rate) Hz"))
            }
            stream = try AudioStream(bytes: bytes, name: path, outputRate: SampleRate(rate)!, channels: channels == .mean ? 1 : 2, part: .audio)
        } catch {
            throw unreadable(error.message)
        }
        let (range, partWarnings) = try DerivePart.frames(from: fromMilliseconds, to: toMilliseconds, total: Int(stream.frameCount),
                                                          sampleRate: stream.outputRate.hertz, file: path)
        warnings += partWarnings
        let width = stream.channels
        var samples = [Float](repeating: 0, count: range.count)
        do {
            if range.lowerBound > 0 { try stream.seek(to: FrameIndex(range.lowerBound)) }
            let blockFrames = 16_384
            var block = [Float](repeating: 0, count: blockFrames * width)
            var done = 0
            while done < range.count {
                let wanted = min(blockFrames, range.count - done)
                let got = try block.withUnsafeMutableBufferPointer { (b: inout UnsafeMutableBufferPointer<Float>) throws(AudioFileError) -> Int in
                    try stream.read(into: b, frames: wanted)
                }
                if got == 0 { break }
                for f in 0..<got { samples[done + f] = block[f * width] }
                done += got
            }
        } catch {
            throw unreadable(error.message)
        }
        if stream.nonFiniteSamples > 0 {
            warnings.append(.warning(.nonFiniteSamples, file: path, "\(stream.nonFiniteSamples) samples were NaN or infinite and were read as 0"))
        }
        return DecodedAudio(samples: samples, sampleRate: stream.outputRate.hertz, format: stream.sourceFormat,
                            startFrame: range.lowerBound, warnings: warnings)
    }
}
