import Foundation
import PulsarCore
import PulsarPipeWire
import PulsarSession
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--device dualsense:pro-audio`: a DualSense card (its twin, exported into a private PipeWire
/// session with the recorded fixture's profiles) in the default profile that hides the haptic
/// channels is switched to Pro Audio through PipeWire's API for the run, and back after — at
/// the device's close, at the end of `pulsar play`, and on SIGINT. Part of the serialized device
/// suite.
extension ALSADeviceTests {
    static let proAudioIndex = 4, defaultIndex = 1

    @Test("dualsense:pro-audio switches the card to Pro Audio when the device opens: every channel reaches its AUX position bit for bit; closing switches it back")
    func dualSenseSwitchedForTheRun() throws {
        let server = try PipeWireServer.start()
        defer { server.stop() }
        server.exportEnvironment()
        let twin = try PipeWireCardTwin.dualSense()
        let before = twin.settledSwitches()
        #expect(twin.active == Self.defaultIndex, "the session manager left the card in its default profile")
        let card = try #require(PipeWireHapticCard.all(in: try PipeWireSnapshot.live()).first { $0.card.id == twin.id })
        #expect(!card.isReachable && card.card.activeProfile?.name == "output:analog-stereo+input:mono-fallback")
        let obstacle = try #require(card.obstacle)
        #expect(obstacle.contains("wpctl set-profile \(twin.id) \(Self.proAudioIndex)") && obstacle.contains("--device dualsense:pro-audio"), "\(obstacle)")
        // Without the option the card stays as it is, and the reason is the one line.
        #expect(throws: SessionError.self) { _ = try DeviceSpec(parsing: "dualsense", rate: Self.rate) }
        let spec = try DeviceSpec(parsing: "dualsense:pro-audio", rate: Self.rate)
        guard case .pipewireHapticSwitched = spec else { Issue.record("dualsense:pro-audio: \(spec)"); return }
        #expect(spec.preferredLayout == "quad")
        let proSink = try #require(twin.profiles[Self.proAudioIndex].sink?.name)
        try Self.retryingGlitches("dualsense switched to Pro Audio") {
            try Self.routedCapture(server: server, spec: spec, sink: proSink, positions: ["AUX0", "AUX1", "AUX2", "AUX3"])
        }
        // Each attempt switched to Pro Audio and back, and nothing else did.
        let asked = Array(twin.switches.dropFirst(before.count))
        #expect(!asked.isEmpty && asked.count % 2 == 0 && stride(from: 0, to: asked.count, by: 2).allSatisfy {
            asked[$0] == Self.proAudioIndex && asked[$0 + 1] == Self.defaultIndex
        }, "profiles asked for: \(asked)")
        #expect(twin.active == Self.defaultIndex)
        let after = try PipeWireSnapshot.live()
        #expect(!after.nodes.contains { $0.name == proSink }, "the Pro Audio sink is gone with the profile")
    }

    @Test("pulsar play --device dualsense explains the switch in one line (exit 69); with :pro-audio it plays and switches back at the end and on SIGINT")
    func dualSenseSwitchedByTheCommand() throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        server.exportEnvironment()
        let twin = try PipeWireCardTwin.dualSense()
        let before = twin.settledSwitches()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-profile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let short = dir.appendingPathComponent("short.json"), long = dir.appendingPathComponent("long.json")
        try "{\"discretePattern\": [{\"time\": 100, \"amplitude\": 1, \"frequency\": 0.5}]}".write(to: short, atomically: true, encoding: .utf8)
        try "{\"discretePattern\": [{\"time\": 30000, \"amplitude\": 1, \"frequency\": 0.5}]}".write(to: long, atomically: true, encoding: .utf8)

        // pulsar devices: the card, its profile, why its haptic channels are not reachable.
        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: binary)
        listing.arguments = ["devices"]
        listing.environment = ProcessInfo.processInfo.environment.merging(server.environment) { _, session in session }.filter { $0.key != "PIPEWIRE_REMOTE" }
        let out = Pipe()
        listing.standardOutput = out
        listing.standardError = FileHandle.nullDevice
        try listing.run()
        let devices = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        listing.waitUntilExit()
        #expect(devices.contains("(PipeWire card \(twin.id))") && devices.contains("profile 'output:analog-stereo+input:mono-fallback'")
                && devices.contains("not reachable") && devices.contains("--device dualsense:pro-audio"), "\(devices)")

        let refused = try Self.run(binary, ["play", short.path, "--device", "dualsense", "--quiet"], server: server)
        let line = refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(refused.status == 69 && !line.contains("\n") && line.contains("wpctl set-profile \(twin.id) \(Self.proAudioIndex)")
                && line.contains("dualsense:pro-audio"), "exit \(refused.status): \(line)")
        #expect(twin.switches == before, "refusing switched nothing")

        let played = try Self.run(binary, ["play", short.path, "--device", "dualsense:pro-audio", "--quiet"], server: server)
        #expect(played.status == 0, "\(played.stderr)")
        #expect(Array(twin.switches.dropFirst(before.count)) == [Self.proAudioIndex, Self.defaultIndex])
        #expect(twin.active == Self.defaultIndex)

        // Interrupted while it plays: the card goes back before the process ends.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["play", long.path, "--device", "dualsense:pro-audio", "--quiet"]
        var environment = ProcessInfo.processInfo.environment.merging(server.environment) { _, session in session }
        environment["PIPEWIRE_REMOTE"] = nil
        p.environment = environment
        let errorFile = dir.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: errorFile)
        p.standardOutput = p.standardError
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let switched = Self.within(seconds: 10) { twin.active == Self.proAudioIndex }
        #expect(switched, "the card never reached Pro Audio")
        usleep(500_000)   // playing
        kill(p.processIdentifier, SIGINT)
        let ended = Self.within(seconds: 10) { !p.isRunning }
        #expect(ended, "pulsar play did not end on SIGINT: \((try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")")
        guard ended else { return }
        #expect(twin.active == Self.defaultIndex, "after SIGINT the card is in profile \(twin.active)")
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGINT, "ended by \(p.terminationReason) \(p.terminationStatus)")
        #expect(Array(twin.switches.dropFirst(before.count)) == [Self.proAudioIndex, Self.defaultIndex, Self.proAudioIndex, Self.defaultIndex])
    }

    /// Whether `condition` holds within `seconds` (asked every 20 ms).
    static func within(seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > end { return false }
            usleep(20_000)
        }
        return true
    }
}
