import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The server's own account of a stretch of its graph, from `pw-profiler`: whether a cycle's
/// driver woke late or one of its clients was not done when the cycle ended. Either is the
/// machine holding a real-time thread up — the server's, or the data thread PipeWire runs inside
/// a client — which the client's own log does not see: a plugin stream that misses a cycle loses
/// that quantum without an underrun on the ALSA side.
struct PipeWireProfile {
    /// Cycles whose driver woke more than 1.3 periods after the one before.
    var lateWakeups = 0
    /// Cycles in which a client that had finished earlier cycles was not finished.
    var unfinishedClients = 0
    var cycles = 0

    var disturbed: Bool { lateWakeups > 0 || unfinishedClients > 0 }
    var summary: String { "the server's profile: \(cycles) cycles, \(lateWakeups) late wake-ups of the driver, \(unfinishedClients) cycles with a client not done" }

    /// Parses `pw-profiler`'s log (pipewire 0.3.65: per cycle, tab-separated, four driver columns —
    /// the time since the previous wake-up in µs, set to 1.4 periods when over 1.3, the cycle's
    /// length, the delay, the period — then eight per client: id, three times, two durations, the
    /// status (3: finished), 0). Only the stretch between a client's first and last finished
    /// cycles counts: a stream being connected or closed is not done in its edge cycles; nor do
    /// the two cycles after the quantum changed.
    init(log text: String) {
        let rows = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
        var finished: [String: (first: Int, last: Int)] = [:]
        for (index, row) in rows.enumerated() {
            for (id, status) in Self.clients(row) where status == 3 {
                finished[id] = (finished[id]?.first ?? index, index)
            }
        }
        let first = finished.values.map(\.first).min() ?? rows.count, last = finished.values.map(\.last).max() ?? -1
        var periodChange = 0
        for (index, row) in rows.enumerated() where index > first && index <= last {
            cycles += 1
            if index > 0, rows[index - 1].count >= 4, row.count >= 4, rows[index - 1][3] != row[3] { periodChange = index }
            // The two cycles after a change of quantum (a client joining) are flagged against the
            // new, shorter period: not a late wake-up.
            if index > periodChange + 1, row.count >= 4, let since = Double(row[0]), let period = Double(row[3]), since > period * 1.3 {
                lateWakeups += 1
            }
            let late = Self.clients(row).contains { id, status in
                guard let span = finished[id], index > span.first, index < span.last else { return false }
                return status != 3
            }
            if late { unfinishedClients += 1 }
        }
    }

    /// The clients of one row: id and status.
    private static func clients(_ row: [String]) -> [(String, Int)] {
        stride(from: 4, to: row.count - 7, by: 8).compactMap { start in
            guard !row[start].isEmpty, let status = Int(row[start + 6]) else { return nil }
            return (row[start], status)
        }
    }
}

extension PipeWireServer {
    /// Starts `pw-profiler` writing the graph's cycles to `file` (its plot scripts go beside it);
    /// returns its PID for `finishProfile`.
    func startProfile(to file: URL) throws -> pid_t {
        let environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, session in session }
        return try Self.spawn(["/bin/sh", "-c", "cd \"$0\" && exec pw-profiler -o \"$1\"", file.deletingLastPathComponent().path, file.path],
                              environment: environment,
                              output: directory.appendingPathComponent("pw-profiler.log").path)
    }

    /// Ends a `pw-profiler` with SIGINT and reads what it wrote.
    func finishProfile(_ pid: pid_t, file: URL) -> PipeWireProfile {
        Glibc.kill(pid, SIGINT)
        _ = Self.wait(pid)
        return PipeWireProfile(log: (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }
}
