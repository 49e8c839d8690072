import Foundation
import PulsarALSA
import PulsarCore
import PulsarEngine
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ALSADevice` against a real private PipeWire server with a timer-driven null sink.
/// Serialized: the tests share one server and its one sink. Without the PipeWire programs the
/// suite is reported as skipped, saying what to install; `make test` runs it.
@Suite(.serialized, .timeLimit(.minutes(10)), .enabled(if: PipeWireServer.isAvailable,
                             "needs PipeWire (Debian: pipewire pipewire-bin pipewire-alsa wireplumber dbus); `make test` runs it on a private PipeWire server"))
struct ALSADeviceTests {
    static let rate = SampleRate(48_000)!

    static func configuration(channels: Int = 2, period: Int = 512, buffer: Int = 4096) -> DeviceConfiguration {
        DeviceConfiguration(sampleRate: rate, channels: channels, periodFrames: period, bufferFrames: buffer)
    }

    /// Seeded noise, distinct per channel, amplitude `amplitude`, no exact zeros.
    static func noise(frames: Int, channels: Int, amplitude: Float = 0.45, seed: UInt64 = 0xA15A) -> [Float] {
        var random = SplitMix64(seed: seed)
        return (0..<(frames * channels)).map { _ in
            let x = Float(random.unit() * 2 - 1) * amplitude
            return x == 0 ? amplitude / 2 : x
        }
    }

    /// A device on the suite's server (its variables set before the open).
    static func openPipewire(_ config: DeviceConfiguration = configuration(), name: String = "pipewire") throws -> (ALSADevice, DeviceConfiguration) {
        _ = try PipeWireServer.shared()
        let device = ALSADevice(name: name)
        let negotiated = try device.open(config)
        return (device, negotiated)
    }

    @Test func opensPipewireAtFloatStereo() throws {
        let (device, negotiated) = try Self.openPipewire(Self.configuration(period: 256, buffer: 1024))
        defer { device.close() }
        #expect(negotiated.sampleRate == Self.rate)
        #expect(negotiated.channels == 2)
        #expect(device.sampleFormatName == "FLOAT_LE")
        #expect(negotiated.periodFrames > 0 && negotiated.bufferFrames >= negotiated.periodFrames)
        #expect(device.capabilities.canPause, "the pipewire plugin declares pause")
        #expect(device.capabilities.canRewind, "the rewind probe found that pipewire discards rewound frames")
        #expect(device.framesWritten == 0)
        #expect(try device.position().framesPlayed == 0)
        print("measured: pipewire asked period 256/buffer 1024 got period \(negotiated.periodFrames), buffer \(negotiated.bufferFrames)")
        let (big, bigNegotiated) = try Self.openPipewire(Self.configuration(period: 512, buffer: 4096))
        defer { big.close() }
        print("measured: pipewire asked period 512/buffer 4096 got period \(bigNegotiated.periodFrames), buffer \(bigNegotiated.bufferFrames)")
    }

    /// Runs `attempt` (which returns the problems it found) up to three times until one finds
    /// none; records the last attempt's problems. A glitch another process causes — a
    /// SCHED_FIFO busy loop elsewhere exhausts the CPU's real-time budget and the kernel then
    /// stalls PipeWire's real-time threads for tens of milliseconds — fails one attempt, not
    /// the test; a fault of the device fails them all.
    static func retryingGlitches(_ what: String, _ attempt: () throws -> [String]) rethrows {
        var problems: [String] = []
        for round in 1...3 {
            problems = try attempt()
            if problems.isEmpty { return }
            print("note: \(what), attempt \(round): \(problems.joined(separator: "; "))")
        }
        for problem in problems {
            Issue.record("\(what): \(problem)")
        }
    }

    /// The most the position fell behind real time between two readings (the longest stall),
    /// in seconds, and where (seconds after the first reading).
    static func longestStall(_ readings: [DeviceFeeder.Reading]) -> (seconds: Double, at: Double) {
        guard let first = readings.first else { return (0, 0) }
        var worst = (seconds: 0.0, at: 0.0)
        var lowest = (offset: Double.infinity, at: 0.0)
        for reading in readings {
            let t = reading.position.timestamp.seconds(since: first.position.timestamp)
            let offset = t - Double(reading.position.framesPlayed) / Double(rate.hertz)
            if offset < lowest.offset { lowest = (offset, t) }
            if offset - lowest.offset > worst.seconds { worst = (offset - lowest.offset, lowest.at) }
        }
        return worst
    }

    @Test func playsPacedInRealTimeWithMonotonicTimestamps() throws {
        try Self.retryingGlitches("pacing") {
            try pacedPlayback()
        }
    }

    /// Plays 2 s of noise; returns what was wrong.
    private func pacedPlayback() throws -> [String] {
        let (device, config) = try Self.openPipewire()
        defer { device.close() }
        let frames = 2 * Self.rate.hertz
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: frames, channels: 2))
        let start = DeviceFeeder.now()
        let finished = try feeder.run { $0.finishedWriting && $0.readings.last!.position.framesPlayed >= FrameIndex(frames) }
        let elapsed = DeviceFeeder.now().seconds(since: start)
        var problems: [String] = []
        if !finished { problems.append("2 s of audio not played") }
        if feeder.underruns > 0 { problems.append("\(feeder.underruns) underruns") }
        // Never faster than real time. How much later than 2 s this thread sees the end depends
        // on the machine's load; the device's own pace is checked below on its timestamps.
        if elapsed < 1.98 { problems.append("2 s of audio took only \(elapsed) s") }
        _ = config

        let readings = feeder.readings
        for (a, b) in zip(readings, readings.dropFirst()) where b.position.framesPlayed < a.position.framesPlayed || b.position.timestamp < a.position.timestamp {
            problems.append("position went back: \(a.position) then \(b.position)")
        }
        let slack: Int64 = 3_000_000
        let outside = readings.filter {
            $0.position.timestamp.nanoseconds < $0.before.nanoseconds - slack || $0.position.timestamp.nanoseconds > $0.after.nanoseconds + slack
        }
        if !outside.isEmpty {
            problems.append("\(outside.count) timestamps more than 3 ms outside the CLOCK_MONOTONIC readings around them")
        }

        // Rate over the running part: from the first reading past 0.25 s of audio to the last one before the end.
        let running = readings.filter { $0.position.framesPlayed > 12_000 && $0.position.framesPlayed < FrameIndex(frames) - 2_000 }
        guard let first = running.first, let last = running.last, running.count > 10 else {
            return problems + ["too few readings while running (\(running.count))"]
        }
        let span = last.position.timestamp.seconds(since: first.position.timestamp)
        if span < 1.0 { problems.append("only \(span) s of running readings") }
        let measured = Double(last.position.framesPlayed - first.position.framesPlayed) / span
        let stall = Self.longestStall(running)
        if abs(measured / Double(Self.rate.hertz) - 1) >= 0.005 {
            problems.append(String(format: "position advanced at %.1f frames/s (longest stall %.1f ms at %.2f s)", measured, stall.seconds * 1000, stall.at))
        }

        let (slope, residuals) = Self.fit(running.map { ($0.position.timestamp.seconds(since: first.position.timestamp), Double($0.position.framesPlayed)) })
        let p99 = residuals[min(residuals.count - 1, Int(Double(residuals.count) * 0.99))]
        let summary = String(format: "2 s played in %.3f s; rate %.1f (fit %.1f) frames/s; position jitter p50 %.0f µs, p99 %.0f µs, max %.0f µs over %d readings",
                             elapsed, measured, slope, residuals[residuals.count / 2], p99, residuals.last!, running.count)
        print("measured: \(summary)")
        return problems
    }

    /// Least-squares line through `(seconds, frames)`: its slope and the sorted absolute
    /// residuals in microseconds (at the nominal rate).
    static func fit(_ points: [(Double, Double)]) -> (slope: Double, residualsMicroseconds: [Double]) {
        let n = Double(points.count)
        let meanT = points.map(\.0).reduce(0, +) / n
        let meanF = points.map(\.1).reduce(0, +) / n
        var covariance = 0.0
        var variance = 0.0
        for (t, f) in points {
            covariance += (t - meanT) * (f - meanF)
            variance += (t - meanT) * (t - meanT)
        }
        let slope = covariance / variance
        let residuals = points.map { point -> Double in
            let predicted = meanF + slope * (point.0 - meanT)
            return abs(point.1 - predicted) / Double(rate.hertz) * 1e6
        }
        return (slope, residuals.sorted())
    }

    @Test func rewindDiscardsQueuedFrames() throws {
        let (device, config) = try Self.openPipewire(Self.configuration(period: 512, buffer: 8192))
        defer { device.close() }
        #expect(device.capabilities.canRewind)
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: 3 * Self.rate.hertz, channels: 2))
        try feeder.run { $0.readings.last!.position.framesPlayed > 9_600 }
        try feeder.fill()
        let before = try feeder.read()
        let writtenBefore = device.framesWritten
        let queuedBefore = writtenBefore - before.position.framesPlayed
        let discarded = try device.rewind(4_000)
        let after = try feeder.read()
        let queuedAfter = device.framesWritten - after.position.framesPlayed
        let elapsedFrames = FrameIndex(after.position.timestamp.seconds(since: before.position.timestamp) * Double(Self.rate.hertz))
        print("measured: rewind(4000) with \(queuedBefore) queued (buffer \(config.bufferFrames)) discarded \(discarded); queued now \(queuedAfter)")
        #expect(discarded > 0 && discarded <= 4_000)
        #expect(device.framesWritten == writtenBefore - FrameIndex(discarded))
        #expect(queuedAfter <= queuedBefore - FrameIndex(discarded) + 48, "queued \(queuedBefore) → \(queuedAfter) after discarding \(discarded)")
        #expect(queuedAfter >= queuedBefore - FrameIndex(discarded) - elapsedFrames - 48)
        #expect(after.position.framesPlayed >= before.position.framesPlayed)
        #expect(device.capabilities.canRewind, "the rewind was found real")
    }

    @Test func pauseHoldsThePositionAndResumeContinues() throws {
        let (device, _) = try Self.openPipewire(Self.configuration(period: 512, buffer: 8192))
        defer { device.close() }
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: 3 * Self.rate.hertz, channels: 2))
        try feeder.run { $0.readings.last!.position.framesPlayed > 9_600 }
        try device.pause(true)
        usleep(50_000)
        let held = try feeder.read()
        usleep(300_000)
        let stillHeld = try feeder.read()
        #expect(stillHeld.position.framesPlayed == held.position.framesPlayed,
                "paused position moved \(stillHeld.position.framesPlayed - held.position.framesPlayed) frames in 0.3 s")
        try device.pause(false)
        // After resuming, the position runs on from where it was held, at the device's rate
        // (measured on its own timestamps over 0.5 s of audio).
        let held2 = stillHeld.position.framesPlayed
        try feeder.run { $0.readings.last!.position.framesPlayed >= held2 + 24_000 + 4_800 }
        let rate = try #require(feeder.measuredRate(from: held2 + 4_800))
        #expect(abs(rate / 48_000 - 1) < 0.05, "after resuming the position moved at \(rate) frames/s")
        #expect(feeder.underruns == 0)
    }

    @Test func pausedBeforeStartingItWaitsForResume() throws {
        let (device, _) = try Self.openPipewire(Self.configuration(period: 512, buffer: 8192))
        defer { device.close() }
        try device.pause(true)
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: Self.rate.hertz, channels: 2))
        try feeder.fill()
        #expect(device.framesWritten == 8192, "a paused device still queues")
        usleep(200_000)
        #expect(try feeder.read().position.framesPlayed == 0, "played while paused before starting")
        try device.pause(false)
        try feeder.run { $0.readings.last!.position.framesPlayed >= 14_400 + 4_800 }
        let rate = try #require(feeder.measuredRate(from: 4_800))
        #expect(abs(rate / 48_000 - 1) < 0.05, "after resuming the position moved at \(rate) frames/s")
    }

    @Test func dropStopsAndPrepareStartsAgainFromZero() throws {
        let (device, _) = try Self.openPipewire()
        defer { device.close() }
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: Self.rate.hertz, channels: 2))
        try feeder.run { $0.readings.last!.position.framesPlayed > 4_800 }
        try device.drop()
        let held = try device.position().framesPlayed
        #expect(try device.availableFrames() == 0)
        let silence = [Float](repeating: 0, count: 256)
        #expect(throws: DeviceError.self, "writing after drop needs prepare") {
            _ = try silence.withUnsafeBufferPointer { try device.write($0) }
        }
        usleep(50_000)
        #expect(try device.position().framesPlayed == held)
        try device.prepare()
        #expect(device.framesWritten == 0)
        #expect(try device.position().framesPlayed == 0)
        var again = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: Self.rate.hertz, channels: 2))
        let played = try again.run { $0.readings.last!.position.framesPlayed > 4_800 }
        #expect(played, "no playback after prepare")
    }

    @Test func moreChannelsThanTheSinkHas() throws {
        // The plugin takes 1…64 channels and PipeWire mixes them down to the stereo sink.
        let (device, negotiated) = try Self.openPipewire(Self.configuration(channels: 6))
        defer { device.close() }
        #expect(negotiated.channels == 6)
        var feeder = DeviceFeeder(device: device, channels: 6, source: Self.noise(frames: Self.rate.hertz / 2, channels: 6))
        let played = try feeder.run { $0.readings.last!.position.framesPlayed >= 12_000 }
        #expect(played, "6 channels on the stereo sink did not play")

        // A PCM limited to 2 channels refuses 6 with one clear line.
        let stereoOnly = ALSADevice(name: "pipewire:CHANNELS=2")
        #expect {
            _ = try stereoOnly.open(Self.configuration(channels: 6))
        } throws: { error in
            "\(error)" == "unsupported: device 'pipewire:CHANNELS=2' cannot take 6 channels (it takes 2)"
        }
    }

    @Test func aMissingDeviceIsOneLineNamingIt() throws {
        _ = try PipeWireServer.shared()
        let mark = ALSAErrorLog.shared.recordedCount
        let device = ALSADevice(name: "nonexistent")
        var message = ""
        #expect {
            _ = try device.open(Self.configuration())
        } throws: { error in
            message = "\(error)"
            return error is DeviceError
        }
        #expect(message.contains("'nonexistent'"), "\(message)")
        #expect(!message.contains("\n"))
        print("measured: opening a missing PCM: \(message)")
        let logged = try #require(ALSAErrorLog.shared.latestMessage(after: mark), "ALSA's message did not reach the log")
        #expect(logged.message.contains("nonexistent"))
        let drained = ALSAErrorLog.shared.drain()
        #expect(drained.contains { $0.sequence == logged.sequence }, "the message waits in the log until drained")
        #expect(ALSAErrorLog.shared.drain().isEmpty)
        print("measured: ALSA's own message: \(logged)")
    }

    @Test func listsPlaybackDevices() {
        let names = alsaPlaybackDevices().map(\.name)
        print("measured: ALSA playback devices: \(names.joined(separator: ", "))")
        #expect(names.contains("pipewire") || names.contains("default"), "devices: \(names)")
    }

    /// Plays seeded noise and records the sink with pw-record; the capture equals what was
    /// written after one constant offset — bit for bit as float, within one 16-bit step as S16.
    @Test(arguments: [("pipewire", "FLOAT_LE", Float(0)), ("pipewire:FORMAT=S16_LE", "S16_LE", Float(1) / 32768)])
    func theSinkReceivesExactlyWhatWasWritten(name: String, format: String, tolerance: Float) throws {
        try Self.retryingGlitches("\(format) capture") {
            try capture(name: name, format: format, tolerance: tolerance)
        }
    }

    /// One recording of 1 s of noise; returns what was wrong.
    private func capture(name: String, format: String, tolerance: Float) throws -> [String] {
        let server = try PipeWireServer.shared()
        let (device, _) = try Self.openPipewire(Self.configuration(period: 1024, buffer: 8192), name: name)
        defer { device.close() }
        #expect(device.sampleFormatName == format)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-capture-\(format)-\(UUID().uuidString.prefix(8)).wav")
        let recorder = try server.startRecording(to: file)
        var recording = true
        defer { if recording { server.finishRecording(recorder) } }
        server.waitForRunningNode(of: "pw-record")  // linked to the sink's monitor

        let frames = Self.rate.hertz
        let signal = Self.noise(frames: frames, channels: 2, seed: 0xC0FFEE)
        var feeder = DeviceFeeder(device: device, channels: 2, source: signal)
        let done = try feeder.run { $0.finishedWriting && $0.readings.last!.position.framesPlayed >= FrameIndex(frames) }
        usleep(300_000)  // the last quantum reaches the recorder
        server.finishRecording(recorder)
        recording = false
        var problems: [String] = []
        if !done { problems.append("1 s of audio not played") }
        if feeder.underruns > 0 { problems.append("\(feeder.underruns) underruns (silence inside the capture)") }

        let capture = try FloatWAV(contentsOf: file)
        #expect(capture.channels == 2 && capture.sampleRate == 48_000)
        let recorded = capture.samples
        // One constant offset: where the first 64 written frames appear.
        let probe = 64 * 2
        let offset = stride(from: 0, to: max(recorded.count - signal.count + 1, 0), by: 2).first { start in
            (0..<probe).allSatisfy { abs(recorded[start + $0] - signal[$0]) <= tolerance }
        }
        guard let start = offset else {
            return problems + ["the written signal's start is not in the \(recorded.count / 2)-frame capture \(file.path)"]
        }
        var worst: Float = 0
        var firstBad: Int?
        for i in 0..<signal.count {
            let difference = abs(recorded[start + i] - signal[i])
            worst = max(worst, difference)
            if difference > tolerance && firstBad == nil { firstBad = i / 2 }
        }
        if let firstBad {
            let stall = Self.longestStall(feeder.readings)
            problems.append(String(format: "differs from frame %d on (largest difference %.4f; longest position stall %.1f ms)",
                                   firstBad, worst, stall.seconds * 1000))
        }
        let leading = recorded[..<start].filter { $0 != 0 }.count
        print("measured: \(format) capture: \(start / 2) frames before the signal (\(leading) non-zero), max difference \(worst * 32768) 16-bit steps")
        if problems.isEmpty {
            try? FileManager.default.removeItem(at: file)
        } else {
            problems.append("capture kept at \(file.path)")
        }
        return problems
    }

    /// Its own server, killed while playing; the suite's server is untouched.
    @Test func killingTheServerDisconnects() throws {
        _ = try PipeWireServer.shared()
        let server = try PipeWireServer.start()
        defer { server.stop() }
        let device = ALSADevice(name: server.alsaName)
        _ = try device.open(Self.configuration())
        defer { device.close() }
        var feeder = DeviceFeeder(device: device, channels: 2, source: Self.noise(frames: 5 * Self.rate.hertz, channels: 2))
        try feeder.run { $0.readings.last!.position.framesPlayed > 24_000 }

        server.kill("pipewire")
        let killed = DeviceFeeder.now()
        var outcome: DeviceError?
        var underrunsFirst = 0
        // Until the device reports the loss (the suite's time limit ends a device that never does).
        while outcome == nil, !Task.isCancelled {
            do {
                _ = try device.availableFrames()
                try feeder.fill()
                _ = try device.position()
            } catch .underrun {
                underrunsFirst += 1
                do { try device.prepare() } catch { outcome = error; break }
                continue
            } catch {
                outcome = error
                break
            }
            usleep(2000)
        }
        let after = DeviceFeeder.now().seconds(since: killed)
        guard case .disconnected = outcome else {
            Issue.record("after killing the server: \(outcome.map { "\($0)" } ?? "no error") after \(after) s")
            return
        }
        print("measured: server killed → \(outcome!) after \(String(format: "%.1f", after * 1000)) ms (\(underrunsFirst) underrun(s) first)")
        let silence = [Float](repeating: 0, count: 512)
        #expect(throws: DeviceError.self) { _ = try silence.withUnsafeBufferPointer { try device.write($0) } }
        for result in [Result { _ = try device.availableFrames() }, Result { _ = try device.position() },
                       Result { _ = try silence.withUnsafeBufferPointer { try device.write($0) } }] {
            guard case .failure(let error as DeviceError) = result, case .disconnected = error else {
                Issue.record("expected .disconnected, got \(result)")
                continue
            }
        }
    }
}
