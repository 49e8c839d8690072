import Foundation
import PulsarBundle
import PulsarCore
import Testing
@testable import PulsarAudio

/// The libsoxr resampler alone and inside `AudioStream`: frequency, level, exact lengths and
/// same-rate passthrough.
@Suite struct ResamplerTests {
    typealias S = DecodeSupport

    /// Runs `input` (mono) through `resampler` in blocks of varying size, then flushes.
    static func run(_ resampler: Resampler, _ input: [Float]) throws -> [Float] {
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: 1500)
        let blocks = [1, 997, 4096, 13, 2500]
        var position = 0
        var k = 0
        try input.withUnsafeBufferPointer { source in
            try buffer.withUnsafeMutableBufferPointer { dest in
                while position < input.count {
                    let n = min(blocks[k % blocks.count], input.count - position)
                    k += 1
                    var offset = 0
                    while offset < n {
                        let (consumed, produced) = try resampler.process(source.baseAddress! + position + offset, inputFrames: n - offset,
                                                                         into: dest.baseAddress!, outputCapacity: dest.count)
                        out.append(contentsOf: dest[0..<produced])
                        offset += consumed
                    }
                    position += n
                }
                while true {
                    let produced = try resampler.flush(into: dest.baseAddress!, outputCapacity: dest.count)
                    if produced == 0 { break }
                    out.append(contentsOf: dest[0..<produced])
                }
            }
        }
        return out
    }

    @Test("A 1 kHz sine keeps its frequency within 0.1 % and level within 0.1 dB",
          arguments: [(44_100, 48_000), (48_000, 44_100), (22_050, 48_000), (48_000, 96_000), (96_000, 44_100)])
    func sineThroughResampler(from: Int, to: Int) throws {
        let input = S.sine(frames: 5 * from, rate: from, hz: [1000], amplitude: 0.5)
        let out = try Self.run(Resampler(inputRate: from, outputRate: to, channels: 1), input)
        let exact = Int((Double(input.count) * Double(to) / Double(from)).rounded())
        #expect(abs(out.count - exact) <= 2, "soxr produced \(out.count), exact \(exact)")
        let x = S.middle(out, edge: to / 10)
        let f = S.zeroCrossingFrequency(Array(x), rate: to)
        let level = S.levelError(x, amplitude: 0.5)
        print("resampler \(from) → \(to): \(f) Hz (error \((f / 1000 - 1) * 100) %), level error \(level) dB, \(out.count) frames for exact \(exact)")
        #expect(abs(f / 1000 - 1) < 0.001)
        #expect(abs(level) < 0.1)
        // The output sits on the input's timeline (libsoxr removes the filter delay): compare
        // with the ideal sine at the output rate.
        let ideal = S.sine(frames: out.count, rate: to, hz: [1000], amplitude: 0.5)
        let worst = S.maxDifference(x, S.middle(ideal, edge: to / 10))
        print("resampler \(from) → \(to): largest difference from the ideal sine \(worst)")
        #expect(worst < 1e-3)
    }

    @Test("Streams give exactly round(n · out / in) frames", arguments: [
        (44_100, 48_000, 132_301), (48_000, 44_100, 144_007), (22_050, 48_000, 22_051), (8_000, 44_100, 8_001),
        (96_000, 44_100, 95_999), (44_100, 44_100, 12_345), (48_000, 11_025, 1), (44_100, 48_000, 3),
    ])
    func exactLength(from: Int, to: Int, frames: Int) throws {
        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try S.write(S.sine(frames: frames, rate: from, hz: [1000], amplitude: 0.5), to: dir + "/s.wav", rate: from, channels: 1, encoding: .wavFloat)
        let stream = try S.stream(dir + "/s.wav", rate: to, channels: 2)
        let exact = FrameIndex((Double(frames) * Double(to) / Double(from)).rounded())
        #expect(stream.frameCount == exact)
        let out = try S.readAll(stream, block: 1023)
        #expect(out.count == Int(exact) * 2)
        #expect(stream.position == exact)
        #expect(stream.paddedFrames <= 1, "padded \(stream.paddedFrames)")
        // Reading past the end gives nothing.
        #expect(try S.read(stream, frames: 10).isEmpty)
    }

    @Test("The same rate in and out is a bit-exact copy")
    func passthrough() throws {
        var rng = SplitMix(seed: 11)
        let input = (0..<30_000).map { _ in Float(rng.unit() * 2 - 1) }
        let resampler = try Resampler(inputRate: 48_000, outputRate: 48_000, channels: 1)
        #expect(resampler.isPassthrough)
        #expect(try Self.run(resampler, input) == input)

        let dir = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try S.write(input, to: dir + "/n.wav", rate: 48_000, channels: 1, encoding: .wavFloat)
        #expect(try S.readAll(S.stream(dir + "/n.wav", rate: 48_000, channels: 1), block: 999) == input)
    }

    @Test("reset() starts a fresh signal: the same input gives the same output as a new resampler")
    func reset() throws {
        let input = S.sine(frames: 20_000, rate: 44_100, hz: [1234], amplitude: 0.7)
        let resampler = try Resampler(inputRate: 44_100, outputRate: 48_000, channels: 1)
        let first = try Self.run(resampler, input)
        try resampler.reset()
        let second = try Self.run(resampler, input)
        #expect(first == second)
        let fresh = try Self.run(Resampler(inputRate: 44_100, outputRate: 48_000, channels: 1), input)
        #expect(first == fresh)
    }

    @Test("Several channels are resampled independently")
    func channels() throws {
        let frames = 44_100
        let stereo = S.sine(frames: frames, rate: 44_100, channels: 2, hz: [500, 1500], amplitude: 0.5)
        let resampler = try Resampler(inputRate: 44_100, outputRate: 48_000, channels: 2)
        var out = [Float](repeating: 0, count: 2 * 60_000)
        var produced = 0
        try stereo.withUnsafeBufferPointer { src in
            try out.withUnsafeMutableBufferPointer { dst in
                let r = try resampler.process(src.baseAddress!, inputFrames: frames, into: dst.baseAddress!, outputCapacity: 60_000)
                #expect(r.consumed == frames)
                produced = r.produced
                while true {
                    let n = try resampler.flush(into: dst.baseAddress! + produced * 2, outputCapacity: 60_000 - produced)
                    if n == 0 { break }
                    produced += n
                }
            }
        }
        let result = Array(out[0..<(produced * 2)])
        for (c, hz) in [(0, 500.0), (1, 1500.0)] {
            let f = S.zeroCrossingFrequency(Array(S.middle(S.channel(result, c, of: 2), edge: 4800)), rate: 48_000)
            #expect(abs(f / hz - 1) < 0.001)
        }
    }

    @Test("Bad configurations are errors")
    func errors() {
        #expect(throws: ResamplerError.self) { _ = try Resampler(inputRate: 0, outputRate: 48_000, channels: 1) }
        #expect(throws: ResamplerError.self) { _ = try Resampler(inputRate: 44_100, outputRate: 48_000, channels: 0) }
        #expect(throws: AudioFileError.self) {
            _ = try AudioStream(bytes: MemoryByteSource([]), name: "x", outputRate: SampleRate(48_000)!, channels: 0)
        }
    }
}
