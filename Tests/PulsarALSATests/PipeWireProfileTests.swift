import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Reading `pw-profiler`'s log: rows written by hand in its 0.3.65 layout.
@Suite struct PipeWireProfileTests {
    /// One cycle: the driver's four columns, then each client's eight (id and status given).
    static func row(since: Double, period: Int = 5333, clients: [(Int, Int)]) -> String {
        (["\(since)", "140", "0", "\(period)"] + clients.flatMap { id, status in ["\(id)", "1", "70", "90", "69", "20", "\(status)", "0"] }
            + Array(repeating: " ", count: 8)).joined(separator: "\t")
    }

    @Test("Cycles of a client connecting or closing do not count; a late driver and a client not done in between do")
    func countsTheStretchBetweenFinishedCycles() {
        var rows = [Self.row(since: 7466, clients: [(43, 1)]), Self.row(since: 7466, clients: [(43, 1)])]   // connecting
        rows += (0..<3).map { _ in Self.row(since: 21333, period: 21333, clients: [(43, 3)]) }
        // 51 joins with a shorter quantum: the next two cycles are flagged against the new period.
        rows += (0..<2).map { _ in Self.row(since: 7466, clients: [(43, 3), (51, 3)]) }
        rows += (0..<10).map { _ in Self.row(since: 5333, clients: [(43, 3), (51, 3)]) }
        #expect(!PipeWireProfile(log: rows.joined(separator: "\n")).disturbed)
        var held = rows
        held[9] = Self.row(since: 5333, clients: [(43, 1), (51, 3)])
        held[10] = Self.row(since: 7466, clients: [(43, 3), (51, 3)])
        held += [Self.row(since: 5333, clients: [(51, 1)])]   // 51 closing, 43 gone
        let profile = PipeWireProfile(log: held.joined(separator: "\n"))
        #expect(profile.unfinishedClients == 1 && profile.lateWakeups == 1 && profile.disturbed)
        #expect(!PipeWireProfile(log: "").disturbed)
    }
}

extension ALSADeviceTests {
    @Test("The player stopped for 60 ms: the server's profile shows a cycle it was not done in")
    func profileSeesAHeldUpClient() throws {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-profile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = dir.appendingPathComponent("profile.log"), profiler = try server.startProfile(to: profile)
        let pattern = dir.appendingPathComponent("clicks.json")
        try Self.clicks.write(to: pattern, atomically: true, encoding: .utf8)
        let play = Process()
        play.executableURL = URL(fileURLWithPath: try Self.pulsarBinary())
        play.arguments = ["play", pattern.path, "--device", "pipewire", "--period", "256", "--quiet"]
        try play.run()
        server.waitForRunningNode(of: "pulsar")
        usleep(500_000)
        kill(play.processIdentifier, SIGSTOP)
        usleep(60_000)
        kill(play.processIdentifier, SIGCONT)
        play.waitUntilExit()
        let graph = server.finishProfile(profiler, file: profile)
        print("measured: player stopped 60 ms: \(graph.summary)")
        #expect(graph.unfinishedClients > 0, "\(graph.summary)")
    }
}
