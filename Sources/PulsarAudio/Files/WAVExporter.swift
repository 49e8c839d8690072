import Glibc
import PulsarCore

/// Writes a render to a WAV file (or, `container`, an Ogg Vorbis file) all or nothing: the samples
/// go to a hidden temporary file next to the destination, which is put in place only when
/// complete (`OutputFile.commit`: renamed, or copied into a device or FIFO such as `/dev/null`),
/// and removed on any failure.
///
/// Thread rules: call from any thread except the real-time one; `export` blocks until done. The
/// progress callback runs on the calling thread.
public struct WAVExporter: Sendable {
    /// What an export produced.
    public struct Report: Sendable {
        public var frames: FrameIndex
        public var channels: Int
        /// Samples the limiter touched.
        public var limitedSamples: Int
        /// Largest absolute sample written (NaN if a NaN was among them: a peak never hides one).
        public var peak: Float
    }

    /// The file written: WAV (RF64 past 4 GiB) in `format`, or Ogg Vorbis through
    /// `OggVorbisWriter` (quality 0.6; `format` does not apply), whose comments say
    /// `ANDROID_HAPTIC=N` when N is given: Android's haptic-coupled audio.
    public enum Container: Sendable, Equatable {
        case wav
        case oggVorbis(androidHapticChannels: Int?)

        /// Ogg Vorbis for a path ending in `.ogg` (any case), with the layout's Android haptic
        /// channels; WAV otherwise.
        public init(forOutput path: String, layout: ChannelLayout) {
            self = path.lowercased().hasSuffix(".ogg") ? .oggVorbis(androidHapticChannels: layout.androidHapticChannels) : .wav
        }
    }

    /// Frames rendered and written per step.
    public var blockFrames: Int = 1 << 16
    public var format: SampleFormat
    public var container: Container

    public init(format: SampleFormat = .float, container: Container = .wav) {
        self.format = format
        self.container = container
    }

    /// Writes `frames` frames of `channels` interleaved channels from `source` (called with a
    /// buffer of whole frames and the first frame's index; returns the number of limited samples)
    /// into `path` at `sampleRate`.
    public func export(to path: String, sampleRate: SampleRate, channels: Int = 1, frames: FrameIndex,
                       progress: ((Double) -> Void)? = nil,
                       source: (UnsafeMutableBufferPointer<Float>, FrameIndex) throws(AudioFileError) -> Int) throws(AudioFileError) -> Report {
        let temporary = Self.temporaryPath(for: path)
        var report = Report(frames: frames, channels: channels, limitedSamples: 0, peak: 0)
        /// `body`, its failure marked as the output's.
        func writing<T>(_ body: () throws(AudioFileError) -> T) throws(AudioFileError) -> T {
            do {
                return try body()
            } catch {
                var e = error
                e.side = .output
                throw e
            }
        }
        do throws(AudioFileError) {
            let file = try writing { () throws(AudioFileError) in try open(temporary, sampleRate: sampleRate, channels: channels, frames: frames) }
            let whole = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * channels)
            defer { whole.deallocate() }
            let integers = UnsafeMutableRawBufferPointer.allocate(byteCount: format == .float || container != .wav ? 0 : blockFrames * channels * 4,
                                                                  alignment: 16)
            defer { integers.deallocate() }
            var position: FrameIndex = 0
            while position < frames {
                let n = Int(min(FrameIndex(blockFrames), frames - position))
                let block = UnsafeMutableBufferPointer(rebasing: whole[0..<(n * channels)])
                report.limitedSamples += try source(block, position)
                report.peak = Self.larger(report.peak, Self.peak(block))
                try writing { () throws(AudioFileError) in try file.write(UnsafeBufferPointer(block), format: format, through: integers) }
                position += FrameIndex(n)
                progress?(Double(position) / Double(frames))
            }
            try writing { () throws(AudioFileError) in try file.close() }
            do {
                try OutputFile.commit(temporary, to: path)
            } catch {
                throw AudioFileError(path: path, message: error.message, side: .output)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        return report
    }

    /// The file being written: libsndfile's WAV or the Vorbis encoder.
    private enum Sink {
        case wav(SoundFile)
        case oggVorbis(OggVorbisWriter)

        /// Writes `block`: Vorbis takes floats; a WAV takes them in `format`, integer formats
        /// converted through `SampleConversion` (saturating, NaN as 0) into `integers`, which
        /// holds a block.
        func write(_ block: UnsafeBufferPointer<Float>, format: SampleFormat,
                   through integers: UnsafeMutableRawBufferPointer) throws(AudioFileError) {
            guard let source = block.baseAddress else { return }
            switch (self, format) {
            case (.oggVorbis(let writer), _):
                try writer.write(block)
            case (.wav(let file), .float):
                try file.write(block)
            case (.wav(let file), .s16):
                let target = integers.baseAddress!.assumingMemoryBound(to: Int16.self)
                SampleConversion.convert(source, count: block.count, into: target)
                try file.write(int16: UnsafeBufferPointer(start: target, count: block.count))
            case (.wav(let file), .s24):
                let target = integers.baseAddress!.assumingMemoryBound(to: Int32.self)
                SampleConversion.convert(source, count: block.count, into24: target)
                try file.write(int32: UnsafeBufferPointer(start: target, count: block.count))
            }
        }

        func close() throws(AudioFileError) {
            switch self {
            case .wav(let file): try file.close()
            case .oggVorbis(let writer): try writer.close()
            }
        }
    }

    /// Opens the container at `path` (the temporary).
    private func open(_ path: String, sampleRate: SampleRate, channels: Int, frames: FrameIndex) throws(AudioFileError) -> Sink {
        switch container {
        case .wav:
            let dataBytes = Int64(frames) * Int64(channels) * Int64(format.bytesPerSample)
            return .wav(try SoundFile(writing: path, sampleRate: sampleRate.hertz, channels: channels, format: format,
                                      large: dataBytes > Self.largestRIFFData))
        case .oggVorbis(let haptic):
            return .oggVorbis(try OggVorbisWriter(writing: path, sampleRate: sampleRate, channels: channels,
                                                  comments: haptic.map { [(tag: "ANDROID_HAPTIC", value: String($0))] } ?? []))
        }
    }

    /// Renders a whole pattern to `path`.
    public func export(_ renderer: PatternRenderer, to path: String,
                       progress: ((Double) -> Void)? = nil) throws(AudioFileError) -> Report {
        try export(to: path, sampleRate: renderer.sampleRate, frames: renderer.frameCount, progress: progress) { buffer, frame in
            renderer.render(into: buffer, from: frame)
        }
    }

    /// Writes interleaved samples already in memory (whole frames of `channels`).
    public func export(_ samples: [Float], to path: String, sampleRate: SampleRate, channels: Int) throws(AudioFileError) -> Report {
        try samples.withUnsafeBufferPointer { (source: UnsafeBufferPointer<Float>) throws(AudioFileError) -> Report in
            try export(to: path, sampleRate: sampleRate, channels: channels, frames: FrameIndex(samples.count / channels)) { buffer, frame in
                buffer.baseAddress!.update(from: source.baseAddress! + Int(frame) * channels, count: buffer.count)
                return 0
            }
        }
    }

    /// Most data bytes written as plain RIFF WAV (its sizes are 32-bit); larger renders are RF64.
    public static let largestRIFFData: Int64 = 0xFFFF_0000

    /// The hidden sibling a file is written to before it is renamed to `path`.
    public static func temporaryPath(for path: String) -> String { OutputFile.temporaryPath(for: path) }

    /// The larger of two peaks; NaN once either is NaN (a peak never hides one).
    static func larger(_ a: Float, _ b: Float) -> Float {
        a.isNaN || b.isNaN ? .nan : Swift.max(a, b)
    }

    /// The largest magnitude in `block`: +∞ if it holds an infinity, NaN if it holds a NaN.
    static func peak(_ block: UnsafeMutableBufferPointer<Float>) -> Float {
        // Magnitudes compared as bit patterns: non-negative floats order like their bits, and a
        // NaN's bits are above +∞'s.
        guard let base = block.baseAddress else { return 0 }
        var lanes = SIMD8<UInt32>()
        let magnitudeMask = SIMD8<UInt32>(repeating: 0x7FFF_FFFF)
        var i = 0
        while i + 8 <= block.count {
            let bits = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<UInt32>.self) & magnitudeMask
            lanes.replace(with: bits, where: bits .> lanes)
            i += 8
        }
        var m: UInt32 = 0
        for lane in 0..<8 { m = Swift.max(m, lanes[lane]) }
        while i < block.count {
            m = Swift.max(m, base[i].bitPattern & 0x7FFF_FFFF)
            i += 1
        }
        return Float(bitPattern: m)
    }
}
