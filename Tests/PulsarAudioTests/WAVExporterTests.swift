import Foundation
import PulsarAudio
import PulsarCore
import Testing

/// The WAV writer: what is read back is what was rendered, and a failed write leaves nothing.
@Suite struct WAVExporterTests {
    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-wav-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static let pattern = PatternData(
        continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.2), ValuePoint(time: 2500, value: 0.9)],
                                             frequency: [ValuePoint(time: 0, value: 0), ValuePoint(time: 2500, value: 1)]),
        discretePattern: [DiscretePoint(time: 100, amplitude: 0.5, frequency: 0.5), DiscretePoint(time: 2400, amplitude: 1, frequency: 1)])

    @Test("A float WAV holds exactly the rendered samples, across block boundaries", arguments: [44_100, 48_000])
    func floatRoundTrip(hz: Int) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let renderer = try PatternRenderer(pattern: Self.pattern, sampleRate: SampleRate(hz)!)
        var exporter = WAVExporter(format: .float)
        exporter.blockFrames = 10_007  // not a divisor of anything: blocks start mid-chunk
        var progress: [Double] = []
        let report = try exporter.export(renderer, to: dir + "/out.wav") { progress.append($0) }
        let file = try AudioFileContents(contentsOf: dir + "/out.wav")
        #expect(file.sampleRate == hz)
        #expect(file.channels == 1)
        #expect(file.frameCount == Int(renderer.frameCount))
        #expect(file.samples == renderer.render(frames: 0..<renderer.frameCount))
        #expect(report.frames == renderer.frameCount)
        #expect(report.peak == file.samples.map { abs($0) }.max())
        #expect(progress.last == 1)
        #expect(progress == progress.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.wav"])
    }

    @Test("Integer formats are within one step of the float render", arguments: [(SampleFormat.s16, 32_767.0), (.s24, 8_388_607.0)])
    func integerFormats(format: SampleFormat, scale: Double) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let renderer = try PatternRenderer(pattern: Self.pattern, sampleRate: SampleRate(48_000)!)
        _ = try WAVExporter(format: format).export(renderer, to: dir + "/out.wav")
        let file = try AudioFileContents(contentsOf: dir + "/out.wav")
        let expected = renderer.render(frames: 0..<renderer.frameCount)
        #expect(file.samples.count == expected.count)
        let worst = zip(file.samples, expected).map { abs(Double($0) - Double($1)) }.max() ?? 1
        #expect(worst <= 1.01 / scale)
        #expect(file.formatCode & 0xFFFF == (format == .s16 ? 0x0002 : 0x0003))
    }

    @Test("A write that cannot happen throws and leaves no file behind")
    func failedWrite() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let renderer = try PatternRenderer(pattern: Self.pattern, sampleRate: SampleRate(48_000)!)
        #expect(throws: AudioFileError.self) {
            try WAVExporter().export(renderer, to: dir + "/missing/out.wav")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // The samples are all written but the final rename fails (the destination is a non-empty
        // directory): the finished temporary file must be removed, not left beside it.
        try FileManager.default.createDirectory(atPath: dir + "/out.wav/keep", withIntermediateDirectories: true)
        #expect(throws: AudioFileError.self) {
            try WAVExporter().export(renderer, to: dir + "/out.wav")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.wav"])
    }
}
