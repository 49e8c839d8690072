import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pulsar follow` from a live PipeWire capture onto the simulated device on the system clock —
/// two clocks — with `--log`: the log's replay equals what the device played, bit for bit.
/// Part of the serialized device suite.
extension ALSADeviceTests {
    @Test("A live capture of music (PipeWire's pw:music.monitor, then ALSA's plugin) followed onto sim:ppm=250 with --log: every kick felt, and the replay equals the device's recording bit for bit",
          arguments: ["pw", "alsa"])
    func followLiveCaptureLogged(_ kind: String) throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        try server.createSink("music", positions: ["MONO"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-follow-log-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let kicks = dir.appendingPathComponent("kicks.wav")
        let track = Self.kickTrack(seed: 0x10C)
        _ = try PulsarAudioWAV.write(track, to: kicks)
        let played = Self.soundOnsets(track.flatMap { [$0, $0] }, channel: 0, threshold: 0.01)
        let environment = ProcessInfo.processInfo.environment.merging(server.environment) { _, session in session }.filter { $0.key != "PIPEWIRE_REMOTE" }
        let out = dir.appendingPathComponent("out.wav"), log = dir.appendingPathComponent("run.json"), replay = dir.appendingPathComponent("r.wav")
        let figures = dir.appendingPathComponent("f.json")
        // ALSA's PipeWire plugin captures the default sink's monitor whatever NODE names (PipeWire
        // 0.3.65): through ALSA the kicks go to the default sink, test-sink.
        let sink = kind == "pw" ? "music" : "test-sink"
        let source = kind == "pw" ? "pw:music.monitor" : "alsa:" + server.alsaName(node: sink)
        let follow = try PipeWireServer.spawn([binary, "follow", "--from", source, "--to", "sim:ppm=250,record=\(out.path)", "--period", "128",
                                               "--seconds", "9", "--log", log.path, "--json", figures.path, "--quiet"],
                                              environment: environment, output: dir.appendingPathComponent("follow.log").path)
        usleep(1_000_000)
        let player = try PipeWireServer.spawn(["/usr/bin/env", "pw-play", "--target", sink, kicks.path], environment: environment,
                                              output: dir.appendingPathComponent("play.log").path)
        _ = PipeWireServer.wait(player)
        let status = PipeWireServer.wait(follow)
        let said = (try? String(contentsOf: dir.appendingPathComponent("follow.log"), encoding: .utf8)) ?? ""
        try #require(status == 0, "pulsar follow exited \(status): \(said)")
        let replayed = try PipeWireServer.spawn([binary, "render", "--replay", log.path, "-o", replay.path, "--quiet"], environment: environment,
                                                output: dir.appendingPathComponent("render.log").path)
        try #require(PipeWireServer.wait(replayed) == 0, "render --replay failed: \((try? String(contentsOf: dir.appendingPathComponent("render.log"), encoding: .utf8)) ?? "")")
        let recorded = try FloatWAV(contentsOf: out), rebuilt = try FloatWAV(contentsOf: replay)
        #expect(recorded.samples.count > 8 * 48_000 && rebuilt.samples.count >= recorded.samples.count, "\(recorded.samples.count) recorded, \(rebuilt.samples.count) replayed")
        #expect(Array(rebuilt.samples.prefix(recorded.samples.count)) == recorded.samples, "the replay differs from the recording")
        let logged = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: log)) as? [String: Any])
        let events = logged["events"] as? [[String: Any]] ?? []
        #expect(logged["live"] as? Bool == true && events.contains { $0["segment"] != nil }, "the log says live \(logged["live"] ?? "?"), \(events.count) events")
        let felt = Self.soundOnsets(recorded.samples.flatMap { [$0, $0] }, channel: 0, threshold: 0.02)
        let object = (try? Data(contentsOf: figures)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        print("measured: follow \(kind == "pw" ? source : "ALSA's pipewire plugin (test-sink)") onto sim:ppm=250, logged: \(played.count) kicks played, \(felt.count) felt; delay \(object["delayMs"] ?? "?") ms, \(object["missingFrames"] ?? "?") frames missing, \(object["underruns"] ?? "?") underruns")
        #expect(felt.count == played.count, "\(played.count) kicks played, \(felt.count) felt")
    }
}
