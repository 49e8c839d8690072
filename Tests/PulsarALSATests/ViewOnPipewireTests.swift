import Foundation
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pulsar view` on ALSA `pipewire` (SDL's offscreen driver: no display needed): the frame shown
/// comes from the clock of a real sound server's positions. Part of the serialized ALSA suite.
extension ALSADeviceTests {
    @Test(.enabled(if: ALSADeviceTests.corpusBundleAvailable, "needs ../shared/corpus"))
    func viewOnPipewire() throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        setenv("SDL_VIDEODRIVER", "offscreen", 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-view-pw-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = (try Self.corpusBundle)

        // Held at 1 200 ms on the server's clock: the frame of 1 200 ms, as `pulsar frame` draws it.
        let view = try Self.run(binary, ["view", bundle, "--preset", "verified", "--device", "pipewire", "--screenshot",
                                         dir.appendingPathComponent("v.png").path, "--at", "1200"])
        #expect(view.status == 0, "\(view.stderr)")
        let frame = try Self.run(binary, ["frame", bundle, "--preset", "verified", "--at", "1200", "-o", dir.appendingPathComponent("f.png").path])
        #expect(frame.status == 0, "\(frame.stderr)")
        let a = try Data(contentsOf: dir.appendingPathComponent("v.png")), b = try Data(contentsOf: dir.appendingPathComponent("f.png"))
        #expect(a == b, "the viewer's screenshot equals pulsar frame at 1 200 ms")

        // Playing for two seconds: every slot presented or counted missed, the window closed by itself.
        let stats = dir.appendingPathComponent("s.json").path
        let run = try Self.run(binary, ["view", bundle, "--preset", "verified", "--device", "pipewire", "--size", "200x200",
                                        "--exit-after", "2", "--frame-stats", stats])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
        let presented = try #require(json["presented"] as? Int), missed = try #require(json["missed"] as? Int)
        #expect(json["slots"] as? Int == 120 && presented + missed == 120 && presented > 60, "\(json)")
        print("measured: pulsar view on pipewire, 2 s at 60 Hz: \(presented) presented, \(missed) missed")
    }
}
