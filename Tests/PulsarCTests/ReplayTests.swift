import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// `pulsar_replay`: a logged session rebuilt from its log by the library equals what the device
/// recorded and what `pulsar render --replay` writes, bit for bit; a log that is not one is refused.
@Suite("C API: pulsar_replay", .serialized)
struct ReplayTests {
    static let program = #"""
    #include <pulsar.h>
    #include <stdio.h>
    #include <stdlib.h>
    /* replay LOG OUT.f32: the stream's floats into OUT, its shape on stdout */
    int main(int argc, char **argv) {
        if (argc != 3) return 9;
        int64_t frames = 0; int channels = 0, rate = 0;
        int r = pulsar_replay(argv[1], 0, NULL, 0, &frames, &channels, &rate);
        if (r != PULSAR_OK) { printf("refused %d %s\n", r, pulsar_last_error()); return 0; }
        float *samples = malloc((size_t)(frames * channels) * sizeof(float) + 1);
        if (pulsar_replay(argv[1], 0, samples, frames - 1, &frames, &channels, &rate) != PULSAR_ERROR_ARGUMENT) return 3;
        if (pulsar_replay(argv[1], 0, samples, frames, &frames, &channels, &rate) != PULSAR_OK) { printf("failed %s\n", pulsar_last_error()); return 4; }
        FILE *f = fopen(argv[2], "wb");
        fwrite(samples, sizeof(float), (size_t)(frames * channels), f);
        fclose(f);
        printf("ok %lld %d %d\n", (long long)frames, channels, rate);
        return 0;
    }
    """#

    @Test("A session played on the simulated device with a log: pulsar_replay gives what it recorded and what render --replay writes",
          .enabled(if: CAPITests.available, "needs libPulsarC.so (swift build)"), .timeLimit(.minutes(5)))
    func replayEqualsTheRecording() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let replay = try CAPITests.compile(try dir.write(Self.program, to: "replay.c"), named: "replay", in: dir)
        let script = try dir.write("at 100 intensity 0.3 over 200\nat 300 seek 50\nat 500 pause\nat 600 resume\n", to: "s.txt")
        let log = dir.file("l.jsonl"), recorded = dir.file("rec.wav"), rendered = dir.file("r.wav")
        let play = try CAPITests.cli(["play", CAPITests.root.path + "/Resources/patterns/demo.json", "--device", "sim:record=" + recorded,
                                      "--log", log, "--script", script, "--quiet"])
        try #require(play.status == 0, "\(play)")
        #expect(try CAPITests.cli(["render", "--replay", log, "-o", rendered, "--quiet"]).status == 0)
        let r = try CAPITests.run(replay, [log, dir.file("out.f32")])
        try #require(r.status == 0 && r.out.hasPrefix("ok "), "\(r)")
        let ours = try Data(contentsOf: URL(fileURLWithPath: dir.file("out.f32"))).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let device = try AudioFileContents(contentsOf: recorded), command = try AudioFileContents(contentsOf: rendered)
        #expect(r.out.hasPrefix("ok \(device.frameCount) \(device.channels) 48000"), "\(r.out)")
        #expect(ours.map(\.bitPattern) == device.samples.map(\.bitPattern), "the library's replay is not what the device played")
        #expect(ours.map(\.bitPattern) == command.samples.map(\.bitPattern), "the library's replay is not render --replay's")
        #expect(ours.contains { $0 != 0 })
        let bad = try CAPITests.run(replay, [try dir.write("not a log\n", to: "bad.jsonl"), dir.file("x.f32")])
        #expect(bad.out.hasPrefix("refused -3 "), "\(bad)")
        let missing = try CAPITests.run(replay, [dir.file("none.jsonl"), dir.file("x.f32")])
        #expect(missing.out.hasPrefix("refused -2 "), "\(missing)")
    }
}
