import Foundation
import PulsarCore
import PulsarEngine
import PulsarPipeWire
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `PipeWireDevice` (the native stream, `--device pw:`) against the suite's private PipeWire
/// server: what reaches the sink, the position its `pw_time` readings give, and the failures a
/// user meets (no server, no such node, the server killed). Part of the serialized device suite.
extension ALSADeviceTests {
    static func openNative(_ config: DeviceConfiguration = configuration(), target: String? = "test-sink") throws -> PipeWireDevice {
        _ = try PipeWireServer.shared()
        let device = PipeWireDevice(target: target)
        _ = try device.open(config)
        return device
    }

    @Test func theNativeStreamDeliversExactlyWhatWasWritten() throws {
        try Self.retryingGlitches("pw: capture") { try nativeCapture() }
    }

    /// One recording of 1 s of noise through the native stream; returns what was wrong.
    private func nativeCapture() throws -> [String] {
        let server = try PipeWireServer.shared()
        let device = try Self.openNative(Self.configuration(period: 256, buffer: 2048))
        defer { device.close() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-pw-capture-\(UUID().uuidString.prefix(8)).wav")
        let recorder = try server.startRecording(to: file)
        var recording = true
        defer { if recording { server.finishRecording(recorder) } }
        server.waitForRunningNode(of: "pw-record")

        let frames = Self.rate.hertz
        let signal = Self.noise(frames: frames, channels: 2, seed: 0xBEEF)
        var feeder = DeviceFeeder(device: device, channels: 2, source: signal)
        let done = try feeder.run { $0.finishedWriting && $0.readings.last!.position.framesPlayed >= FrameIndex(frames) }
        usleep(300_000)
        server.finishRecording(recorder)
        recording = false
        var problems: [String] = []
        if !done { problems.append("1 s of audio not played") }
        if feeder.underruns > 0 { problems.append("\(feeder.underruns) underruns (silence inside the capture)") }
        let recorded = try FloatWAV(contentsOf: file).samples
        guard let start = stride(from: 0, to: max(recorded.count - signal.count + 1, 0), by: 2).first(where: { start in
            (0..<128).allSatisfy { recorded[start + $0] == signal[$0] }
        }) else {
            return problems + ["the written signal's start is not in the \(recorded.count / 2)-frame capture \(file.path)"]
        }
        if let bad = (0..<signal.count).first(where: { recorded[start + $0] != signal[$0] }) {
            problems.append("differs from frame \(bad / 2) on")
        }
        // The readings while the stream was fed (the end, where the ring runs dry and every frame
        // taken counts as played, left out): monotonic in frames and time, at the sink's rate.
        let readings = feeder.readings.map(\.position).filter { $0.framesPlayed > 0 && $0.framesPlayed < FrameIndex(frames * 8 / 10) }
        if zip(readings, readings.dropFirst()).contains(where: { $1.framesPlayed < $0.framesPlayed || $1.timestamp < $0.timestamp }) {
            problems.append("the position went backwards")
        }
        if let first = readings.first, let last = readings.last, last.timestamp.seconds(since: first.timestamp) > 0.3 {
            let rate = Double(last.framesPlayed - first.framesPlayed) / last.timestamp.seconds(since: first.timestamp)
            if abs(rate - 48_000) > 48 { problems.append("the position advanced at \(rate) frames/s") }
        } else {
            problems.append("fewer than 0.3 s of readings while playing")
        }
        print("measured: pw: capture bit-exact from frame \(start / 2); quantum \(device.quantum); \(readings.count) readings")
        if problems.isEmpty { try? FileManager.default.removeItem(at: file) } else { problems.append("capture kept at \(file.path)") }
        return problems
    }

    @Test func aMissingNodeOrServerIsOneLineSayingSo() throws {
        _ = try PipeWireServer.shared()
        do {
            _ = try PipeWireDevice(target: "no-such-sink").open(Self.configuration())
            Issue.record("a node that does not exist opened")
        } catch {
            guard case .unsupported(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("no node named 'no-such-sink'") && !why.contains("\n"), "\(why)")
        }
        do {
            _ = try PipeWireDevice(remote: "/nonexistent/pipewire-0").open(Self.configuration())
            Issue.record("a server that does not exist answered")
        } catch {
            guard case .disconnected(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.hasPrefix("no PipeWire server answers at /nonexistent/pipewire-0") && !why.contains("\n"), "\(why)")
        }
    }

    /// Its own server, killed while playing: the native stream says it is gone.
    @Test func killingTheServerEndsTheNativeStream() throws {
        _ = try PipeWireServer.shared()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let device = PipeWireDevice(target: "test-sink", remote: (server.environment["PIPEWIRE_RUNTIME_DIR"] ?? "") + "/pipewire-0")
        _ = try device.open(Self.configuration())
        defer { device.close() }
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: 5 * Self.rate.hertz, channels: 2))
        try feeder.run { $0.readings.last!.position.framesPlayed > 24_000 }
        server.kill("pipewire")
        var outcome: DeviceError?
        while outcome == nil, !Task.isCancelled {
            do {
                try feeder.fill()
                _ = try device.position()
            } catch {
                outcome = error
            }
            usleep(2000)
        }
        guard case .disconnected(let why) = outcome else { Issue.record("after killing the server: \(String(describing: outcome))"); return }
        #expect(!why.isEmpty && !why.contains("\n"))
        print("measured: pw: server killed → \(why)")
    }
}
