import Foundation
import PulsarBundle
import PulsarCore
import PulsarTestSupport
import Testing
@testable import PulsarAudio

/// Decoding through libsndfile's virtual I/O: the corpus MP3, files of known signals written in
/// each format, format names, and failures of the bytes underneath.
@Suite struct DecodeTests {
    typealias S = DecodeSupport

    // MARK: The corpus MP3

    @Test("The corpus MP3 streams through virtual I/O exactly as libsndfile reads it from its path",
          .enabled(if: DecodeSupport.corpusMP3Available, "needs ../shared/corpus"))
    func corpusMP3() throws {
        let path = try S.corpusMP3
        let info = try AudioFormatInfo(bytes: FileByteSource(path: path), name: "sample-3s.mp3")
        #expect(info.sampleRate == 44_100)
        #expect(info.channels == 2)
        #expect(info.container == "MPEG-1/2 Audio")
        #expect(info.encoding == "MPEG Layer III")
        #expect(info.durationMilliseconds > 3000 && info.durationMilliseconds < 3300, "\(info)")
        print("corpus MP3: \(info)")

        let reference = try AudioFileContents(contentsOf: path)  // sf_open on the path
        #expect(info.frames == FrameIndex(reference.frameCount))

        let fromFile = try S.stream(path, rate: 44_100, channels: 2)
        let streamed = try S.readAll(fromFile, block: 1153)
        #expect(streamed == reference.samples)

        let memory = try MemoryByteSource(Array(Data(contentsOf: URL(fileURLWithPath: path))))
        let fromMemory = try AudioStream(bytes: memory, name: "sample-3s.mp3", outputRate: SampleRate(44_100)!, channels: 2)
        #expect(try S.readAll(fromMemory) == reference.samples)

        // Not silence, not clipped garbage.
        let level = S.rms(streamed[...])
        #expect(level > 0.01 && level < 0.9, "rms \(level)")
    }

    @Test("The corpus MP3 at 48 kHz mono: exact length, level kept",
          .enabled(if: DecodeSupport.corpusMP3Available, "needs ../shared/corpus"))
    func corpusMP3Resampled() throws {
        let path = try S.corpusMP3
        let native = try S.readAll(S.stream(path, rate: 44_100, channels: 1))
        let stream = try S.stream(path, rate: 48_000, channels: 1)
        let expected = (Double(stream.sourceFormat.frames) * 48_000 / 44_100).rounded()
        #expect(stream.frameCount == FrameIndex(expected))
        let out = try S.readAll(stream, block: 999)
        #expect(out.count == Int(stream.frameCount))
        #expect(abs(20 * log10(S.rms(out[...]) / S.rms(native[...]))) < 0.05)
    }

    // MARK: Known signals in each format

    /// A 16-bit two-channel test signal: 440 Hz and 1 kHz sines at different levels.
    static func int16Signal(frames: Int, rate: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(i) / Double(rate)
            out[2 * i] = Int16((0.5 * sin(2 * .pi * 440 * t) * 32767).rounded())
            out[2 * i + 1] = Int16((0.25 * sin(2 * .pi * 1000 * t) * 32767).rounded())
        }
        return out
    }

    @Test("Lossless formats decode sample-exactly", arguments: [
        ("x.wav", SoundFileEncoding.wavPCM16, "WAV (Microsoft)", "Signed 16 bit PCM"),
        ("x.aiff", .aiffPCM16, "AIFF (Apple/SGI)", "Signed 16 bit PCM"),
        ("x.flac", .flacPCM16, "FLAC (Free Lossless Audio Codec)", "Signed 16 bit PCM"),
        ("x24.flac", .flacPCM24, "FLAC (Free Lossless Audio Codec)", "Signed 24 bit PCM"),
    ])
    func lossless(file: String, encoding: SoundFileEncoding, container: String, codec: String) throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = 96_001
        let signal = Self.int16Signal(frames: frames, rate: 48_000)
        try S.write(int16: signal, to: dir + "/" + file, rate: 48_000, channels: 2, encoding: encoding)
        let stream = try S.stream(dir + "/" + file, rate: 48_000, channels: 2)
        #expect(stream.sourceFormat.container == container)
        #expect(stream.sourceFormat.encoding == codec)
        #expect(stream.sourceFormat.frames == FrameIndex(frames))
        #expect(stream.frameCount == FrameIndex(frames))
        let decoded = try S.readAll(stream, block: 777)
        #expect(decoded == signal.map { Float($0) / 32768 })
    }

    @Test("A float WAV decodes bit-exactly")
    func floatWAV() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix(seed: 7)
        let noise = (0..<50_000).map { _ in Float(rng.unit() * 2 - 1) }
        try S.write(noise, to: dir + "/n.wav", rate: 44_100, channels: 1, encoding: .wavFloat)
        let stream = try S.stream(dir + "/n.wav", rate: 44_100, channels: 1)
        #expect(stream.sourceFormat.encoding == "32 bit float")
        #expect(try S.readAll(stream) == noise)
    }

    @Test("Lossy formats keep a sine's frequency and level", arguments: [
        ("v.ogg", SoundFileEncoding.oggVorbis(quality: 0.5), 44_100, "OGG (OGG Container format)", "Vorbis"),
        ("o.opus", .oggOpus, 48_000, "OGG (OGG Container format)", "Opus"),
        ("m.mp3", .mp3, 44_100, "MPEG-1/2 Audio", "MPEG Layer III"),
    ])
    func lossy(file: String, encoding: SoundFileEncoding, rate: Int, container: String, codec: String) throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = 3 * rate
        let signal = S.sine(frames: frames, rate: rate, channels: 2, hz: [440, 1000], amplitude: 0.5)
        do {
            try S.write(signal, to: dir + "/" + file, rate: rate, channels: 2, encoding: encoding)
        } catch {
            // MP3 writing needs libsndfile built with LAME; reading is what is under test.
            try Test.cancel("libsndfile cannot write \(encoding) here: \(error)")
        }
        let stream = try S.stream(dir + "/" + file, rate: rate, channels: 2)
        #expect(stream.sourceFormat.container == container)
        #expect(stream.sourceFormat.encoding == codec)
        #expect(stream.sourceFormat.sampleRate == rate)
        #expect(stream.sourceFormat.frames == FrameIndex(frames), "decoder length \(stream.sourceFormat.frames)")
        let decoded = try S.readAll(stream, block: 1000)
        #expect(decoded.count == Int(stream.frameCount) * 2)
        for (c, hz) in [(0, 440.0), (1, 1000.0)] {
            let x = S.middle(S.channel(decoded, c, of: 2), edge: rate / 4)
            let f = S.zeroCrossingFrequency(Array(x), rate: rate)
            let level = S.levelError(x, amplitude: 0.5)
            print("\(file) channel \(c): \(f) Hz (\((f / hz - 1) * 100) %), level \(level) dB")
            #expect(abs(f / hz - 1) < 0.001)
            #expect(abs(level) < 0.5)
        }
    }

    // MARK: Format information

    @Test("Format info without decoding, and its one-line description")
    func formatInfo() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try S.write(int16: [Int16](repeating: 0, count: 22_050), to: dir + "/a.flac", rate: 22_050, channels: 1, encoding: .flacPCM16)
        let info = try AudioFormatInfo(bytes: FileByteSource(path: dir + "/a.flac"), name: "a.flac")
        #expect(info.sampleRate == 22_050 && info.channels == 1 && info.frames == 22_050)
        #expect(info.durationMilliseconds == 1000)
        #expect(info.description == "FLAC (Free Lossless Audio Codec), Signed 16 bit PCM, 22050 Hz, 1 channel, 22050 frames (1000.0 ms)")
        #expect(SoundFile.formatNames(0x7FF_0000 | 0x7FFF).container == "format 0x7ff0000")
    }

    // MARK: Failures

    @Test("Bytes that are not audio fail with the name and libsndfile's reason")
    func notAudio() {
        let garbage = MemoryByteSource(Array("{\"this\": \"is JSON, not audio\"}".utf8) + [UInt8](repeating: 7, count: 4000))
        #expect {
            _ = try AudioStream(bytes: garbage, name: "bundle.pulsar:audio/x.mp3", outputRate: SampleRate(48_000)!, channels: 2)
        } throws: { error in
            guard let e = error as? AudioFileError else { return false }
            return e.path == "bundle.pulsar:audio/x.mp3" && !e.message.isEmpty
        }
        #expect(throws: AudioFileError.self) {
            _ = try AudioFormatInfo(bytes: MemoryByteSource([]), name: "empty")
        }
    }

    @Test("A byte source failing mid-file surfaces as an AudioFileError, not silence")
    func sourceFailure() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try S.write(int16: Self.int16Signal(frames: 200_000, rate: 48_000), to: dir + "/x.flac", rate: 48_000, channels: 2, encoding: .flacPCM16)
        let failing = FailingByteSource(try FileByteSource(path: dir + "/x.flac"), failAfter: 100_000)
        let stream = try AudioStream(bytes: failing, name: "x.flac", outputRate: SampleRate(48_000)!, channels: 2)
        #expect {
            _ = try S.readAll(stream)
        } throws: { error in
            guard let e = error as? AudioFileError else { return false }
            return e.path == "x.flac" && e.message.contains("simulated I/O failure")
        }
    }

    @Test("Small reads by libsndfile reach the byte source as few larger reads")
    func readAhead() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try S.write(S.sine(frames: 441_000, rate: 44_100, channels: 2, hz: [440], amplitude: 0.5),
                    to: dir + "/v.ogg", rate: 44_100, channels: 2, encoding: .oggVorbis(quality: 0.4))
        let counting = FailingByteSource(try FileByteSource(path: dir + "/v.ogg"))
        let stream = try AudioStream(bytes: counting, name: "v.ogg", outputRate: SampleRate(44_100)!, channels: 2)
        _ = try S.readAll(stream)
        let windows = Int(counting.size) / VirtualIOContext.windowBytes + 1
        #expect(counting.reads <= 2 * windows + 16, "\(counting.reads) source reads for \(counting.size) bytes")
    }
}

typealias SplitMix = SplitMix64
