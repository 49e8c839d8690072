import Foundation
import PulsarBundle
import PulsarCore
import Testing
@testable import PulsarAudio

/// `AudioStream`: channel mapping, block-size independence, seek accuracy and bounded memory.
@Suite struct AudioStreamTests {
    typealias S = DecodeSupport

    /// Writes an `channels`-channel float WAV where channel c is a sine of 300·(c+1) Hz at
    /// amplitude 0.6/(c+1); returns the samples.
    static func multichannelWAV(_ path: String, rate: Int, channels: Int, frames: Int) throws -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channels)
        for c in 0..<channels {
            let one = S.sine(frames: frames, rate: rate, hz: [300 * Double(c + 1)], amplitude: 0.6 / Double(c + 1))
            for i in 0..<frames { samples[i * channels + c] = one[i] }
        }
        try S.write(samples, to: path, rate: rate, channels: channels, encoding: .wavFloat)
        return samples
    }

    // MARK: Channels

    @Test("Channel mapping at the same rate, sample-exact",
          arguments: [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (4, 2), (4, 1), (3, 5)])
    func channelMapping(inChannels n: Int, outChannels m: Int) throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = 10_000
        let input = try Self.multichannelWAV(dir + "/c.wav", rate: 48_000, channels: n, frames: frames)
        let out = try S.readAll(S.stream(dir + "/c.wav", rate: 48_000, channels: m), block: 999)
        #expect(out.count == frames * m)
        var expected = [Float](repeating: 0, count: frames * m)
        for i in 0..<frames {
            for c in 0..<m {
                let v: Float
                if n == m { v = input[i * n + c] }
                else if n == 1 { v = input[i] }
                else if m == 1 {
                    v = n == 2 ? (input[2 * i] + input[2 * i + 1]) * 0.5
                               : (0..<n).reduce(Float(0)) { $0 + input[i * n + $1] } * (1 / Float(n))
                } else { v = c < n ? input[i * n + c] : 0 }
                expected[i * m + c] = v
            }
        }
        #expect(out == expected)
    }

    @Test("Channel mapping commutes with resampling (stereo → mono at 44.1 → 48 kHz)")
    func downmixResampled() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.multichannelWAV(dir + "/c.wav", rate: 44_100, channels: 2, frames: 44_100)
        let stereo = try S.readAll(S.stream(dir + "/c.wav", rate: 48_000, channels: 2))
        let mono = try S.readAll(S.stream(dir + "/c.wav", rate: 48_000, channels: 1))
        let upmixed = try S.readAll(S.stream(dir + "/c.wav", rate: 48_000, channels: 4))
        #expect(mono.count * 2 == stereo.count)
        var mean = [Float](repeating: 0, count: mono.count)
        var expectedUpmix = [Float](repeating: 0, count: mono.count * 4)
        for i in 0..<mono.count {
            let left: Float = stereo[2 * i]
            let right: Float = stereo[2 * i + 1]
            mean[i] = (left + right) * 0.5
            expectedUpmix[4 * i] = left
            expectedUpmix[4 * i + 1] = right
        }
        #expect(S.maxDifference(mono[...], mean[...]) < 1e-6)
        #expect(upmixed == expectedUpmix)
    }

    // MARK: Blocks

    @Test("Sequential reads in odd block sizes equal one big read", arguments: [
        (44_100, 48_000, 2, 1), (48_000, 44_100, 1, 2), (48_000, 48_000, 2, 2), (22_050, 48_000, 2, 3),
    ])
    func oddBlocks(from: Int, to: Int, inChannels: Int, outChannels: Int) throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.multichannelWAV(dir + "/b.wav", rate: from, channels: inChannels, frames: 3 * from + 17)
        let whole = try S.stream(dir + "/b.wav", rate: to, channels: outChannels)
        let reference = try S.read(whole, frames: Int(whole.frameCount) + 100)
        #expect(reference.count == Int(whole.frameCount) * outChannels)

        let stream = try S.stream(dir + "/b.wav", rate: to, channels: outChannels)
        var pieces: [Float] = []
        let sizes = [1, 7, 333, 4097, 10_000, 2, 4096, 65_537]
        var k = 0
        while true {
            let size = sizes[k % sizes.count]
            k += 1
            let piece = try S.read(stream, frames: size)
            pieces += piece
            if piece.count < size * outChannels { break }
        }
        #expect(pieces == reference)
    }

    // MARK: Seeking

    /// Largest difference between reads after seeks to `count` pseudo-random targets and the
    /// continuous stream.
    static func seekError(_ path: String, rate: Int, channels: Int, count: Int = 40, read: Int = 1500) throws -> Double {
        let stream = try S.stream(path, rate: rate, channels: channels)
        let continuous = try S.readAll(stream, block: 4096)
        var rng = SplitMix(seed: UInt64(rate) &* 31 &+ UInt64(path.utf8.count))
        var worst = 0.0
        var targets: [FrameIndex] = [0, 1, stream.frameCount - 1, stream.frameCount / 2, stream.frameCount - 2000]
        for _ in 0..<count { targets.append(FrameIndex(rng.unit() * Double(stream.frameCount))) }
        // The last second, where Ogg's last page is.
        for _ in 0..<(count / 4) { targets.append(stream.frameCount - 1 - FrameIndex(rng.unit() * Double(min(stream.frameCount, FrameIndex(rate))))) }
        for target in targets {
            try stream.seek(to: target)
            #expect(stream.position == target)
            let part = try S.read(stream, frames: read)
            let start = Int(target) * channels
            #expect(part.count == min(read, Int(stream.frameCount - target)) * channels)
            worst = max(worst, S.maxDifference(part[...], continuous[start..<(start + part.count)]))
        }
        return worst
    }

    @Test("A seek lands on the continuous stream: exact at the same rate, within 1e-6 when resampling",
          arguments: ["f.wav", "f.flac", "v.ogg", "o.opus", "m.mp3"])
    func seekAccuracy(file: String) throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48_000
        // A chirp: no two places look alike, so landing off by any amount shows.
        var chirp = [Float](repeating: 0, count: 2 * 5 * rate)
        for i in 0..<(5 * rate) {
            let t = Double(i) / Double(rate)
            chirp[2 * i] = Float(0.5 * sin(2 * .pi * (100 * t + 200 * t * t)))
            chirp[2 * i + 1] = Float(0.3 * sin(2 * .pi * (3000 * t - 250 * t * t)))
        }
        let encoding: SoundFileEncoding = switch file {
        case "f.wav": .wavFloat
        case "f.flac": .flacPCM24
        case "v.ogg": .oggVorbis(quality: 0.5)
        case "o.opus": .oggOpus
        default: .mp3
        }
        do {
            try S.write(chirp, to: dir + "/" + file, rate: rate, channels: 2, encoding: encoding)
        } catch {
            // Writing some encodings needs optional libsndfile codecs; reading is what is under test.
            try Test.cancel("libsndfile cannot write \(file) here: \(error)")
        }
        for (out, channels) in [(48_000, 2), (44_100, 2), (96_000, 1), (22_050, 1)] {
            let worst = try Self.seekError(dir + "/" + file, rate: out, channels: channels)
            print("seek error \(file) 48000 → \(out) Hz: \(worst)")
            if out == rate { #expect(worst == 0) } else { #expect(worst < 1e-6) }
        }
    }

    @Test("Vorbis seeks near the end of a long, low-bit-rate file are exact (libsndfile's last-page seek is avoided)")
    func vorbisTail() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 44_100
        let frames = 40 * rate
        var chirp = [Float](repeating: 0, count: frames)
        for i in 0..<frames {
            let t = Double(i) / Double(rate)
            chirp[i] = Float(0.4 * sin(2 * .pi * (200 * t + 20 * t * t)))
        }
        try S.write(chirp, to: dir + "/q.ogg", rate: rate, channels: 1, encoding: .oggVorbis(quality: 0.05))
        let stream = try S.stream(dir + "/q.ogg", rate: rate, channels: 1)
        let continuous = try S.readAll(stream)
        var rng = SplitMix(seed: 99)
        var worst = 0.0
        for _ in 0..<30 {
            let target = stream.frameCount - 1 - FrameIndex(rng.unit() * Double(3 * rate))
            try stream.seek(to: target)
            let part = try S.read(stream, frames: 1000)
            worst = max(worst, S.maxDifference(part[...], continuous[Int(target)..<(Int(target) + part.count)]))
        }
        #expect(worst == 0)
    }

    @Test("Seeking in the corpus MP3", .enabled(if: DecodeSupport.corpusMP3Available, "needs ../shared/corpus"))
    func seekCorpusMP3() throws {
        let path = try S.corpusMP3
        for rate in [44_100, 48_000] {
            let worst = try Self.seekError(path, rate: rate, channels: 2)
            print("seek error sample-3s.mp3 44100 → \(rate) Hz: \(worst)")
            if rate == 44_100 { #expect(worst == 0) } else { #expect(worst < 1e-6) }
        }
    }

    @Test("Seek bounds: the end reads nothing, outside is an error, back to 0 restarts")
    func seekBounds() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.multichannelWAV(dir + "/s.wav", rate: 44_100, channels: 2, frames: 20_000)
        let stream = try S.stream(dir + "/s.wav", rate: 48_000, channels: 2)
        let all = try S.readAll(stream)
        try stream.seek(to: stream.frameCount)
        #expect(try S.read(stream, frames: 100).isEmpty)
        #expect(throws: AudioFileError.self) { try stream.seek(to: stream.frameCount + 1) }
        #expect(throws: AudioFileError.self) { try stream.seek(to: -1) }
        try stream.seek(to: 0)
        #expect(try S.readAll(stream) == all)
        try stream.seek(to: stream.frameCount - 5)
        let tail = try S.read(stream, frames: 100)
        #expect(tail.count == 10)
        #expect(S.maxDifference(tail[...], all[(all.count - 10)...]) < 1e-6)
    }

    // MARK: Claims

    /// A FLAC whose STREAMINFO claims 2³⁶ − 1 samples but holds 4000: the length is the one
    /// decoding finds, so nothing is sized by the claim (a preset would otherwise last 99 days
    /// and a preload try to hold 26 PB).
    @Test func aFalseFrameClaimIsCountedNotBelieved() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/claim.flac"
        try S.write(S.sine(frames: 4000, rate: 8000, hz: [200], amplitude: 0.5), to: path, rate: 8000, channels: 1, encoding: .flacPCM16)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count > 26 && bytes[0..<4] == [0x66, 0x4C, 0x61, 0x43], "fLaC")
        // STREAMINFO's 64 bits at byte 18: rate (20), channels − 1 (3), bits − 1 (5), total samples (36).
        var field = bytes[18..<26].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(field & 0xF_FFFF_FFFF == 4000)
        field |= 0xF_FFFF_FFFF
        for k in 0..<8 { bytes[18 + k] = UInt8(truncatingIfNeeded: field >> (56 - 8 * UInt64(k))) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let stream = try S.stream(path, rate: 48_000, channels: 1)
        #expect(stream.sourceFormat.frames == 4000)
        #expect(stream.frameCount == 24_000)
        #expect(try S.readAll(stream).count == 24_000)
    }

    // MARK: Memory

    @Test("A 10-minute FLAC streams with fixed buffers and no memory growth")
    func longFile() throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/long.flac"
        let rate = 48_000
        let minutes = 10
        // One second of a 1 kHz sine (a whole number of periods), written 600 times.
        let second = S.sine(frames: rate, rate: rate, hz: [1000], amplitude: 0.5).map { Int16(($0 * 32767).rounded()) }
        let writer = try SoundFile(writing: path, sampleRate: rate, channels: 1, encoding: .flacPCM16)
        try second.withUnsafeBufferPointer { block in
            for _ in 0..<(minutes * 60) { try writer.write(int16: block) }
        }
        try writer.close()

        let stream = try S.stream(path, rate: 44_100, channels: 2)
        let sourceFrames = FrameIndex(minutes * 60 * rate)
        #expect(stream.sourceFormat.frames == sourceFrames)
        #expect(stream.frameCount == sourceFrames * 44_100 / 48_000)
        let buffers = stream.bufferSamples
        let block = 4096
        var buffer = [Float](repeating: 0, count: block * 2)
        var total = 0
        var rssAfterWarmUp: Int?
        var lastBlock: [Float] = []
        try buffer.withUnsafeMutableBufferPointer { out in
            while true {
                let n = try stream.read(into: out, frames: block)
                total += n
                if total == 100 * block { rssAfterWarmUp = S.residentBytes() }
                if n == block, total >= Int(stream.frameCount) - 3 * block, lastBlock.isEmpty {
                    lastBlock = Array(out)
                }
                if n < block { break }
            }
        }
        let rssAtEnd = S.residentBytes()
        #expect(total == Int(stream.frameCount))
        #expect(stream.bufferSamples == buffers)
        #expect(buffers <= 64 * 1024, "stream buffers \(buffers) samples")
        if let before = rssAfterWarmUp, let after = rssAtEnd {
            let growth = after - before
            print("10-minute FLAC: \(total) frames, stream buffers \(buffers) samples, RSS \(before / 1024) KiB → \(after / 1024) KiB")
            // The process's RSS includes other tests running in parallel (measured noise up to
            // 76 MiB in a full `make test`); holding the decoded audio would add total · 8 bytes
            // = 212 MB: 128 MiB separates the two.
            #expect(growth < 128 << 20, "RSS grew by \(growth) bytes")
        }
        let f = S.zeroCrossingFrequency(S.channel(lastBlock, 1, of: 2), rate: 44_100)
        #expect(abs(f / 1000 - 1) < 0.001)
    }
}
