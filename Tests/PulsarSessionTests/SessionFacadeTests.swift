import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarEngine
import PulsarSimulation
import Testing
@testable import PulsarSession

/// The façade an app uses: a session, content, a voice, the clock, stop — and what it leaves
/// behind (the recording, the event log) measured against an offline render of the same content.
@Suite struct SessionFacadeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let demo = root + "/Resources/patterns/demo.json"

    @Test("A voice of the demo pattern on the simulated device: the device plays the offline render from its play frame on, silence before, and the log says so", .timeLimit(.minutes(10)))
    func playsWhatRenders() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("session-facade-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rate = SampleRate(48_000)!
        guard case .simulated(var sim) = try DeviceSpec(parsing: "sim:record=\(folder)/out.wav", rate: rate) else { Issue.record("sim"); return }
        sim.behaviour.recordingCapacity = 20 * rate.hertz
        let session = try Session(SessionEngine.Request(main: .simulated(sim), sampleRate: rate, channels: 1, periodFrames: 256, bufferFrames: 1024),
                                  logPath: folder + "/log.jsonl")
        session.start()
        let content = try SessionContent.pattern(at: Self.demo)
        let voice = try session.voice(content)
        #expect(voice.play())
        while !voice.hasEnded {
            session.poll()
            usleep(5_000)
        }
        try session.stop()
        #expect(session.isStopped)
        try session.stop()  // the second time does nothing

        let recording = (session.device as! SimulatedDevice).recording
        let log = try EngineLog.parse(String(contentsOfFile: folder + "/log.jsonl", encoding: .utf8))
        #expect(log.header.input == Self.demo && log.header.layout == "haptic" && log.header.sampleRate == 48_000)
        #expect(log.playedFrames == FrameIndex(recording.count) && session.played.main == FrameIndex(recording.count))
        let plays = log.events.compactMap { e -> StreamFrame? in
            if case let .command(.play, _, _, frame, _) = e { return frame }
            return nil
        }
        try #require(plays.count == 1)
        let start = Int(plays[0].index), n = Int(content.mixer.frameCount)
        try #require(start + n <= recording.count, "the device played the whole content")
        var offline = [Float](repeating: 0, count: n)
        _ = try offline.withUnsafeMutableBufferPointer { try content.mixer.render(into: $0, from: .zero) }
        #expect(recording[..<start].allSatisfy { $0 == 0 })
        #expect(Array(recording[start..<(start + n)]) == offline)
        #expect(offline.contains { abs($0) > 0.1 }, "the demo is not silent")
        #expect(FileManager.default.fileExists(atPath: folder + "/out.wav"))

        // The session rebuilt from its log plays the recording again, sample for sample, with
        // the content opened by the replay's opener (told the logged input).
        var opened: [String] = []
        let replay = try SessionReplay(logText: String(contentsOfFile: folder + "/log.jsonl", encoding: .utf8), path: "log.jsonl") { input, preset, derive, _ in
            opened.append(input)
            #expect(preset == nil && !derive)
            return PresetHandle(id: "pattern", name: "pattern", duration: 0, pattern: try PatternLoader().load(contentsOf: input).pattern)
        }
        #expect(opened == [Self.demo])
        let stream = try replay.stream(of: .main)
        #expect(stream.frames == FrameIndex(recording.count) && stream.layout.channelCount == 1)
        var reader = try replay.reader(of: .main)
        var replayed = [Float](repeating: 1, count: recording.count)
        for from in stride(from: 0, to: replayed.count, by: 1000) {   // in blocks, as a file is written
            let to = min(from + 1000, replayed.count)
            try replayed[from..<to].withUnsafeMutableBufferPointer { try reader.render(into: $0) }
        }
        #expect(replayed == recording)
        #expect(throws: SessionError.self) { try replay.stream(of: .haptic) }
    }

    @Test("A log that cannot be replayed exactly is a data error naming the file and the line")
    func unreplayable() throws {
        for (text, says) in [("not json\n", "bad.jsonl:1:"), ("", "bad.jsonl:")] {
            do {
                _ = try SessionReplay(logText: text, path: "bad.jsonl") { _, _, _, _ in
                    Issue.record("nothing is opened for a log that does not parse")
                    return PresetHandle(id: "p", name: "p", duration: 0, pattern: PatternData())
                }
                Issue.record("'\(text)' was taken")
            } catch let error as SessionError {
                #expect(error.kind == .data && error.description.hasPrefix(says), "\(error)")
            }
        }
    }

    @Test("A missing pattern file, a bad device spec and a bad rate are errors that say why")
    func errors() throws {
        #expect(throws: (any Error).self) { try SessionContent.pattern(at: "/nonexistent/p.json") }
        do {
            _ = try Session(device: "sim:ppm=x")
            Issue.record("taken")
        } catch {
            #expect(error.kind == .usage)
        }
        do {
            _ = try Session(device: "sim", sampleRate: 7_999)
            Issue.record("taken")
        } catch {
            #expect(error.description.contains("8000...192000"))
        }
    }
}
