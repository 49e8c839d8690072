import Foundation
import PulsarCore
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `pulsar follow --from pw:music.monitor --to pw:touch` in a private PipeWire session: kicks
/// whose onsets are known played into `music` by pw-play, the two sinks captured together
/// through a third that drives the graph (FL the music, FR the touch). Part of the serialized
/// device suite.
extension ALSADeviceTests {
    /// Kicks (a sine swept from 150 to 55 Hz, decaying over 50 ms) 0.4–0.6 s apart from 0.4 s, at
    /// -12 … -2 dB, over silence: 7 s mono at 48 kHz.
    static func kickTrack(seed: UInt64) -> [Float] {
        var random = SplitMix64(seed: seed)
        var x = [Float](repeating: 0, count: 7 * 48_000)
        var t = 0.4
        while t < 6.4 {
            let level = pow(10, (-12 + 10 * random.unit()) / 20), start = Int(t * 48_000)
            for i in 0..<Int(0.3 * 48_000) where start + i < x.count {
                let u = Double(i) / 48_000
                x[start + i] += Float(level * sin(2 * Double.pi * (55 * u + 95 * 0.03 * (1 - exp(-u / 0.03)))) * exp(-u / 0.05))
            }
            t += 0.4 + 0.2 * random.unit()
        }
        return x
    }

    /// Onsets of channel `channel` of `samples` (2 channels): a sample above `threshold` with
    /// none in the 30 ms before; then 200 ms skipped.
    static func soundOnsets(_ samples: [Float], channel: Int, threshold: Float) -> [Int] {
        var out: [Int] = [], k = 0
        let frames = samples.count / 2
        while k < frames {
            if abs(samples[2 * k + channel]) > threshold, !(max(0, k - 1440)..<k).contains(where: { abs(samples[2 * $0 + channel]) > threshold }) {
                out.append(k)
                k += 9600
            } else {
                k += 1
            }
        }
        return out
    }

    /// The energy of `x` above 1 kHz over all of it, dB: four RBJ high-pass biquads (Q 1/√2) at
    /// 1 kHz — an 8th-order slope, −84 dB at 300 Hz — in `Double`.
    static func energyAbove1kHz(_ x: [Float]) -> Double {
        let w = 2 * Double.pi * 1000 / 48_000, alpha = sin(w) / 2.0.squareRoot(), c = cos(w), a0 = 1 + alpha
        let b = [(1 + c) / 2 / a0, -(1 + c) / a0, (1 + c) / 2 / a0], a = [-2 * c / a0, (1 - alpha) / a0]
        var high = x.map(Double.init)
        for _ in 0..<4 {
            var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
            for i in high.indices {
                let v = high[i], y = b[0] * v + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
                (x2, x1, y2, y1) = (x1, v, y1, y)
                high[i] = y
            }
        }
        let total = x.reduce(0.0) { $0 + Double($1) * Double($1) }, above = high.reduce(0.0) { $0 + $1 * $1 }
        return total > 0 && above > 0 ? 10 * log10(above / total) : -.infinity
    }

    @Test("Following a sink's monitor onto another sink: every kick felt within 15 ms at a 128-frame quantum (10 ms at 64), F1 >= 0.9, at most -40 dB above 1 kHz",
          arguments: [128, 64])
    func followMonitorOntoSink(_ quantum: Int) throws {
        let binary = try Self.pulsarBinary()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        try server.createSink("music", positions: ["MONO"], driver: false)
        try server.createSink("touch", positions: ["MONO"], driver: false)
        try server.createSink("both", positions: ["FL", "FR"])
        try server.link("music:monitor_MONO", "both:playback_FL")
        try server.link("touch:monitor_MONO", "both:playback_FR")
        try server.forceQuantum(quantum)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-follow-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let kicks = dir.appendingPathComponent("kicks.wav")
        _ = try PulsarAudioWAV.write(Self.kickTrack(seed: UInt64(quantum)), to: kicks)
        let bound = quantum == 64 ? 10.0 : 15.0
        let environment = ProcessInfo.processInfo.environment.merging(server.environment) { _, session in session }.filter { $0.key != "PIPEWIRE_REMOTE" }
        try Self.retryingDisturbedRuns("follow pw:music.monitor onto pw:touch at quantum \(quantum)") {
            let capture = dir.appendingPathComponent("c.wav"), figures = dir.appendingPathComponent("f.json")
            let recorder = try server.startRecording(to: capture, target: "both", positions: ["FL", "FR"])
            server.waitForRunningNode(of: "pw-record")
            let follow = try PipeWireServer.spawn([binary, "follow", "--from", "pw:music.monitor", "--to", "pw:touch", "--period", "\(quantum)",
                                                   "--seconds", "9", "--json", figures.path, "--quiet"],
                                                  environment: environment, output: dir.appendingPathComponent("follow.log").path)
            usleep(1_000_000)
            let player = try PipeWireServer.spawn(["/usr/bin/env", "pw-play", "--target", "music", kicks.path], environment: environment,
                                                  output: dir.appendingPathComponent("play.log").path)
            _ = PipeWireServer.wait(player)
            let status = PipeWireServer.wait(follow)
            server.finishRecording(recorder)
            let object = (try? Data(contentsOf: figures)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            guard status == 0, let object else { return (["pulsar follow exited \(status): \((try? String(contentsOf: dir.appendingPathComponent("follow.log"), encoding: .utf8)) ?? "")"], false) }
            let captured = try FloatWAV(contentsOf: capture)
            let heard = Self.soundOnsets(captured.samples, channel: 0, threshold: 0.01)
            let felt = Self.soundOnsets(captured.samples, channel: 1, threshold: 0.02)
            let lags = heard.compactMap { h in felt.first { $0 >= h && $0 - h < 48 * 50 }.map { Double($0 - h) / 48 } }
            let matched = lags.filter { $0 <= 15 }.count
            let precision = felt.isEmpty ? 0 : Double(matched) / Double(felt.count), recall = heard.isEmpty ? 0 : Double(matched) / Double(heard.count)
            let f1 = precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall)
            let underruns = object["underruns"] as? Int ?? -1
            let touch = (0..<(captured.samples.count / 2)).map { captured.samples[2 * $0 + 1] }
            let above = Self.energyAbove1kHz(touch)
            print("measured: follow at quantum \(quantum): \(heard.count) kicks heard, \(felt.count) felt, capture to felt \(lags.map { String(format: "%.2f", $0) }.joined(separator: " ")) ms, F1 \(f1), above 1 kHz \(String(format: "%.1f", above)) dB; \(underruns) underruns, \(object["missingFrames"] ?? "?") frames missing, \(object["captureLostFrames"] ?? "?") lost by the capture; the clocks' delay \(object["delayMs"] ?? "?") ms")
            var problems: [String] = []
            if heard.count < 10 { problems.append("\(heard.count) kicks heard in the capture") }
            if let worst = lags.max(), worst > bound { problems.append("a kick felt \(worst) ms after it was heard") }
            if f1 < 0.9 { problems.append("F1 \(f1) (precision \(precision), recall \(recall))") }
            if !(above <= -40) { problems.append("the touch's energy above 1 kHz is \(above) dB of its whole") }
            // The delay the run reports (from a cycle's frames coming in to their being heard)
            // is what the capture measured, less at most the cycles before the capture had them.
            let reported = object["delayMs"] as? Double ?? -1
            let typical = lags.sorted()[lags.count / 2]
            if !(reported > 0 && abs(reported - typical) <= 3 * Double(quantum) / 48) {
                problems.append("the reported delay \(reported) ms is not within three quanta of the measured \(typical) ms")
            }
            return (problems, underruns != 0)
        }
    }
}

/// A mono 32-bit float WAV at 48 kHz, written by hand (RIFF, `fmt ` format 3, `data`).
enum PulsarAudioWAV {
    static func write(_ samples: [Float], to url: URL) throws -> URL {
        var data = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + 4 * samples.count); data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(3); u16(1); u32(48_000); u32(4 * 48_000); u16(4); u16(32)
        data.append(contentsOf: Array("data".utf8)); u32(4 * samples.count)
        for s in samples { withUnsafeBytes(of: s.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: url)
        return url
    }
}
