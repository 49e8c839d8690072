import Foundation
import PulsarBundle
import PulsarCore
import PulsarTestSupport
import Testing
@testable import PulsarAudio

/// Helpers shared by the decode, resampler and stream tests: the corpus location, temporary
/// directories, known signals written with libsndfile, and measurements independent of the code
/// under test (zero-crossing frequency, RMS level).
enum DecodeSupport {
    /// The package root: this file is `<root>/Tests/PulsarAudioTests/DecodeSupport.swift`.
    static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .standardizedFileURL.path

    static let corpusMP3Name = "bundles/demo-unpacked/audio/sample-3s.mp3"

    /// Whether the tests of the corpus MP3 run: it is present, or required (`CI=true`, where its
    /// absence fails them).
    static let corpusMP3Available = SharedCorpus.available(corpusMP3Name)

    /// The corpus bundle's 3 s stereo 44.1 kHz MP3; throws when it is absent.
    static var corpusMP3: String { get throws { try SharedCorpus.path(corpusMP3Name) } }

    /// A fresh temporary directory; remove it with `FileManager.removeItem`.
    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-decode-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Interleaved sine: channel `c` has frequency `hz[c]` (a single value applies to all
    /// channels), amplitude `amplitude`, phase 0 at frame 0. 64-bit phase, one `sin` per sample.
    static func sine(frames: Int, rate: Int, channels: Int = 1, hz: [Double], amplitude: Double) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for c in 0..<channels {
            let f = hz.count == 1 ? hz[0] : hz[c]
            let w = 2 * Double.pi * f / Double(rate)
            for i in 0..<frames { out[i * channels + c] = Float(amplitude * sin(w * Double(i))) }
        }
        return out
    }

    /// Writes interleaved float samples with libsndfile in `encoding`.
    static func write(_ samples: [Float], to path: String, rate: Int, channels: Int, encoding: SoundFileEncoding) throws {
        let file = try SoundFile(writing: path, sampleRate: rate, channels: channels, encoding: encoding)
        try samples.withUnsafeBufferPointer { try file.write($0) }
        try file.close()
    }

    /// Writes interleaved 16-bit samples (lossless encodings read them back as `s / 32768`).
    static func write(int16 samples: [Int16], to path: String, rate: Int, channels: Int, encoding: SoundFileEncoding) throws {
        let file = try SoundFile(writing: path, sampleRate: rate, channels: channels, encoding: encoding)
        try samples.withUnsafeBufferPointer { try file.write(int16: $0) }
        try file.close()
    }

    /// Opens a stream on a file on disk.
    static func stream(_ path: String, rate: Int, channels: Int) throws -> AudioStream {
        try AudioStream(bytes: FileByteSource(path: path), name: path, outputRate: SampleRate(rate)!, channels: channels)
    }

    /// Reads `stream` to its end in blocks of `block` frames.
    static func readAll(_ stream: AudioStream, block: Int = 4096) throws -> [Float] {
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: block * stream.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: block) }
            out.append(contentsOf: buffer[0..<(n * stream.channels)])
            if n < block { break }
        }
        return out
    }

    /// Reads `frames` frames (fewer at the end).
    static func read(_ stream: AudioStream, frames: Int) throws -> [Float] {
        var buffer = [Float](repeating: 0, count: frames * stream.channels)
        let n = try buffer.withUnsafeMutableBufferPointer { try stream.read(into: $0, frames: frames) }
        return Array(buffer[0..<(n * stream.channels)])
    }

    /// Channel `c` of interleaved samples.
    static func channel(_ samples: [Float], _ c: Int, of channels: Int) -> [Float] {
        stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Frequency from upward zero crossings (linear interpolation between samples), over the
    /// span from the first to the last crossing.
    static func zeroCrossingFrequency(_ x: [Float], rate: Int) -> Double {
        var crossings: [Double] = []
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
            let a = Double(x[i - 1]), b = Double(x[i])
            crossings.append(Double(i - 1) + (-a) / (b - a))
        }
        guard crossings.count >= 2 else { return 0 }
        return Double(crossings.count - 1) / (crossings.last! - crossings.first!) * Double(rate)
    }

    /// RMS of `x`.
    static func rms(_ x: ArraySlice<Float>) -> Double {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
    }

    /// Level in dB of `x` against a sine of amplitude `amplitude`.
    static func levelError(_ x: ArraySlice<Float>, amplitude: Double) -> Double {
        20 * log10(rms(x) / (amplitude / 2.0.squareRoot()))
    }

    /// Largest absolute difference.
    static func maxDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        zip(a, b).reduce(0.0) { max($0, abs(Double($1.0) - Double($1.1))) }
    }

    /// The middle of a signal, skipping `edge` frames at each end (decoder and filter edges).
    static func middle(_ x: [Float], edge: Int) -> ArraySlice<Float> {
        x.count > 2 * edge ? x[edge..<(x.count - edge)] : x[...]
    }

    /// Resident set size in bytes, from /proc/self/statm (nil where unavailable).
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// A `ByteSource` that fails after `limit` bytes have been served, or counts reads.
final class FailingByteSource: ByteSource {
    struct Failure: Error, CustomStringConvertible { var description: String { "simulated I/O failure" } }
    let inner: ByteSource
    let limit: Int64
    var served: Int64 = 0
    var reads = 0

    init(_ inner: ByteSource, failAfter limit: Int64 = .max) {
        self.inner = inner
        self.limit = limit
    }

    var size: Int64 { inner.size }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        reads += 1
        if served >= limit { throw Failure() }
        let n = try inner.read(at: offset, into: buffer)
        served += Int64(n)
        return n
    }
}
