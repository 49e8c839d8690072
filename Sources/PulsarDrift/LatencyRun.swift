#if canImport(Glibc)
import Glibc
#endif
import PulsarALSA
import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarPipeWire

/// A capture `pulsar latency` reads: its frames and where they stood at the edge.
public protocol LatencyCapture: AnyObject {
    var channels: Int { get }
    /// Frames captured since the last call (the capture frame of the first) and the readings
    /// that time them.
    func drain() throws(DeviceError) -> (first: Int64, samples: [Float], readings: [CaptureTimeline.Reading])
    /// Frames lost because the reader fell behind (or overruns, for ALSA).
    var lost: Int { get }
}

extension PipeWireCapture: LatencyCapture {
    public func drain() throws(DeviceError) -> (first: Int64, samples: [Float], readings: [CaptureTimeline.Reading]) {
        if isGone { throw .disconnected("the PipeWire capture stream ended") }
        let readings = self.readings().map { CaptureTimeline.Reading(firstFrame: $0.firstFrame, frames: $0.frames, time: $0.time, delayFrames: $0.delayFrames) }
        let (first, samples) = read()
        return (first, samples, readings)
    }

    public var lost: Int { overrun }
}

extension ALSACapture: LatencyCapture {
    public func drain() throws(DeviceError) -> (first: Int64, samples: [Float], readings: [CaptureTimeline.Reading]) {
        guard let (first, samples, reading) = try readAvailable() else { return (0, [], []) }
        let readings = reading.map { [CaptureTimeline.Reading(firstFrame: $0.firstFrame, frames: $0.frames, time: $0.time, delayFrames: $0.delayFrames)] }
        return (first, samples, readings ?? [])
    }

    public var lost: Int { overruns }
}

/// One `pulsar latency` run: the engine started, clicks fired at random instants, the capture
/// (if any) drained as it comes — its onsets found and timed at once, so nothing of it is kept.
///
/// Thread rules: the control thread only.
public struct LatencyRun {
    public enum Outcome {
        case complete, interrupted
        case failed(String)
    }

    public let engine: HapticEngine
    public let probe: TriggerProbe
    public let capture: LatencyCapture?
    /// Frames from a click's first sample to its detected onset (`clickOffset(of:)`).
    public let clickOffset: Int64
    private var rng: SplitMix64
    private var detector = OnsetDetector()
    private var timeline: CaptureTimeline
    /// The capture's onsets, as monotonic times of their click's first sample at the edge.
    public private(set) var onsetTimes: [MonotonicTime] = []
    public private(set) var captureOverrun = 0
    /// Why the capture stopped, when it did.
    public private(set) var captureFailure: DeviceError?
    /// When the run began triggering (the plot's zero).
    public private(set) var start = MonotonicTime(nanoseconds: 0)

    public init(engine: HapticEngine, click: PresetMixer, capture: LatencyCapture?, clickOffset: Int64, seed: UInt64) {
        self.engine = engine
        engine.keepsEventLog = false
        probe = TriggerProbe(engine: engine, click: click)
        self.capture = capture
        self.clickOffset = clickOffset
        rng = SplitMix64(seed: seed)
        timeline = CaptureTimeline(rate: Double(engine.configuration.sampleRate.hertz))
    }

    /// Triggers for `seconds` after half a second for the clock to settle, then lets the last
    /// click play out; stops early when `stop` says so or the device fails.
    public mutating func measure(seconds: Double, stop: () -> Bool) -> Outcome {
        engine.start()
        defer {
            engine.shutdown()
            engine.poll()
            drainCapture()
        }
        var outcome = Outcome.complete
        if let why = wait(0.5, stop: stop) { return why }
        start = engine.now()
        let end = start.adding(seconds: seconds)
        var next = start.adding(seconds: gap())
        while engine.now() < end {
            if let why = wait(max(next.seconds(since: engine.now()), 0), stop: stop) {
                outcome = why
                break
            }
            probe.fire()
            next = engine.now().adding(seconds: gap())
        }
        if case .complete = outcome, let why = wait(0.4, stop: stop) { outcome = why }
        return outcome
    }

    /// The next gap between clicks: 150–350 ms.
    private mutating func gap() -> Double { 0.15 + 0.2 * rng.unit() }

    /// Polls the engine and drains the capture every 5 ms for `seconds`; why it stopped early.
    private mutating func wait(_ seconds: Double, stop: () -> Bool) -> Outcome? {
        let until = engine.now().adding(seconds: seconds)
        repeat {
            engine.poll()
            drainCapture()
            if stop() { return .interrupted }
            if let failure = engine.failure { return .failed("\(failure)") }
            if let failure = captureFailure { return .failed("--capture: \(failure)") }
            let left = until.seconds(since: engine.now())
            if left > 0 { usleep(useconds_t(min(left, 0.005) * 1e6)) }
        } while engine.now() < until
        return nil
    }

    private mutating func drainCapture() {
        guard let capture, captureFailure == nil else { return }
        let drained: (first: Int64, samples: [Float], readings: [CaptureTimeline.Reading])
        do throws(DeviceError) { drained = try capture.drain() } catch {
            captureFailure = error
            return
        }
        drained.readings.forEach { timeline.add($0) }
        let (first, samples) = (drained.first, drained.samples)
        captureOverrun = capture.lost
        guard !samples.isEmpty else { return }
        for onset in detector.feed(OnsetDetector.levels(samples, channels: capture.channels), first: first) {
            if let time = timeline.time(ofFrame: onset - clickOffset) { onsetTimes.append(time) }
        }
    }

    /// Why a click cannot be timed in a capture.
    public enum ClickError: Error {
        /// The click would not render alone.
        case render(AudioFileError)
        /// The click rendered alone has no onset the detector finds.
        case silent
    }

    /// Where a click's captured onset lies after its first frame: the same detector, on the
    /// click rendered alone. What `init`'s `clickOffset` takes.
    public static func clickOffset(of click: PresetMixer) throws(ClickError) -> Int64 {
        let frames = Int(min(click.frameCount, 48_000)) + 2048
        var samples = [Float](repeating: 0, count: frames * click.channelCount)
        do {
            _ = try samples.withUnsafeMutableBufferPointer { (b) throws(AudioFileError) in try click.render(into: b, from: .zero) }
        } catch {
            throw .render(error)
        }
        guard let offset = OnsetDetector.offset(ofRendered: samples, channels: click.channelCount) else { throw .silent }
        return offset
    }

    /// The figures: by the clock, by the capture (each trigger's first onset from 5 ms before its
    /// call to 200 ms after), and their difference per trigger.
    ///
    /// An onset may come before its call: a click's first frame is timed at the start of the
    /// graph cycle that takes it, less the sink's delay, and a call made after a cycle started
    /// but before the engine filled it (the process callback runs some time into the cycle)
    /// lands in it. On a sink with no delay of its own (a null sink) that is up to one cycle
    /// before the call; the clock says the same (capture minus clock stays within 0.1 ms).
    /// Clicks are 150 ms apart at least, so the window never takes the previous one's onset.
    public func report(device: String, period: Int, quantum: Int?) -> LatencyReport {
        let rate = engine.configuration.sampleRate
        var pairs: [(time: Double, clock: Double?, capture: Double?)] = []
        for trigger in probe.triggers {
            let clock = trigger.latencyMs(rate: rate)
            let onset = onsetTimes.first { $0.seconds(since: trigger.callTime) > -0.005 && $0.seconds(since: trigger.callTime) < 0.2 }
            pairs.append((trigger.callTime.seconds(since: start), clock, onset.map { $0.seconds(since: trigger.callTime) * 1000 }))
        }
        let differences = pairs.compactMap { p in p.clock.flatMap { c in p.capture.map { $0 - c } } }.sorted()
        return LatencyReport(device: device, period: period, quantum: quantum, triggers: probe.triggers.count, refused: probe.refused,
                             clock: LatencySummary(sorted: pairs.compactMap(\.clock).sorted()),
                             capture: capture == nil ? nil : LatencySummary(sorted: pairs.compactMap(\.capture).sorted()),
                             captured: capture != nil, captureMinusClock: differences.isEmpty ? nil : (differences.first!, differences[differences.count / 2], differences.last!),
                             captureOverrun: captureOverrun, underruns: engine.underruns, heldUp: probe.heldUp(),
                             clockTimelineMoves: engine.clockTimelineMoves, series: pairs)
    }
}
