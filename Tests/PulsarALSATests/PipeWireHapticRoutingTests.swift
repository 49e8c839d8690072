import Foundation
import PulsarCore
import PulsarEngine
import PulsarPipeWire
import PulsarSession
import PulsarSimulation
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--device dualsense` under PipeWire routes by channel positions: the card of the Pro Audio
/// fixture (Tests/Fixtures/pipewire), its sink standing for a live null sink with the same
/// positions, played through `DeviceSpec.pipewireHaptic`, captured channel by channel. Part of
/// the serialized device suite.
extension ALSADeviceTests {
    @Test("The DualSense's Pro Audio sink (AUX0–AUX3) and a surround one (FL,FR,RL,RR): each channel written reaches the sink's channel of that position, bit for bit",
          arguments: [["AUX0", "AUX1", "AUX2", "AUX3"], ["FL", "FR", "RL", "RR"]])
    func dualSenseRoutedByPositions(_ positions: [String]) throws {
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let sinkName = "dualsense-\(positions[0].lowercased())-test"
        try server.createSink(sinkName, description: "DualSense Wireless Controller Pro", positions: positions)
        // The fixture's card, its 4-channel sink renamed to the live one and given its positions.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pipewire/dualsense-pro-audio.json")
        var snapshot = try PipeWireSnapshot(json: [UInt8](try Data(contentsOf: fixture)))
        let index = try #require(snapshot.nodes.firstIndex { $0.isSink })
        snapshot.nodes[index].properties["node.name"] = sinkName
        snapshot.nodes[index].properties["audio.position"] = positions.joined(separator: ",")
        let card = try #require(PipeWireHapticCard.all(in: snapshot).first)
        #expect(card.hapticPositions == [positions[2], positions[3]])
        try Self.retryingGlitches("dualsense routed by positions \(positions)") {
            try Self.routedCapture(server: server, spec: .pipewireHaptic(card), sink: sinkName, positions: positions)
        }
    }

    /// 1 s of noise, different on each of 4 channels, through `spec`'s stream; what was wrong
    /// in the capture of `sink` at `positions`.
    static func routedCapture(server: PipeWireServer, spec: DeviceSpec, sink: String, positions: [String]) throws -> [String] {
        server.exportEnvironment()
        let (opened, _) = spec.device(clock: SessionClock())
        let device = try #require(opened as? PipeWireDevice)
        _ = try device.open(Self.configuration(channels: 4, period: 256, buffer: 2048))
        defer { device.close() }
        // The stream's positions are the sink's (known before opening, or from a profile switch).
        #expect(device.positions == positions.joined(separator: ",") && device.target == sink)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-routed-\(UUID().uuidString.prefix(8)).wav")
        let recorder = try server.startRecording(to: file, target: sink, positions: positions)
        var recording = true
        defer { if recording { server.finishRecording(recorder) } }
        server.waitForRunningNode(of: "pw-record")
        var signal = Self.noise(frames: Self.rate.hertz, channels: 4, seed: 0xD5)
        // Channel c at a level of its own, so a swap shows.
        for i in signal.indices { signal[i] *= Float(i % 4 + 1) / 4 }
        var feeder = DeviceFeeder(device: device, channels: 4, source: signal)
        let done = try feeder.run { $0.finishedWriting && $0.readings.last!.position.framesPlayed >= FrameIndex(Self.rate.hertz) }
        usleep(300_000)
        server.finishRecording(recorder)
        recording = false
        defer { try? FileManager.default.removeItem(at: file) }
        var problems: [String] = done ? [] : ["1 s not played"]
        let recorded = try FloatWAV(contentsOf: file)
        guard recorded.channels == 4 else { return problems + ["captured \(recorded.channels) channels"] }
        let samples = recorded.samples
        guard let start = stride(from: 0, to: max(samples.count - signal.count + 1, 0), by: 4).first(where: { s in
            (0..<256).allSatisfy { samples[s + $0] == signal[$0] }
        }) else {
            return problems + ["the written channels are not in the capture in their order"]
        }
        if let bad = (0..<signal.count).first(where: { samples[start + $0] != signal[$0] }) {
            problems.append("channel \(bad % 4 + 1) differs from frame \(bad / 4) on")
        }
        print("measured: dualsense routed by positions \(positions.joined(separator: ",")): \(problems.isEmpty ? "every channel bit-exact" : problems.joined(separator: "; "))")
        return problems
    }
}
