import PulsarCore
import PulsarEngine
import Synchronization

/// The deterministic twin of a sound device: it consumes queued frames at its rate as a clock
/// advances — the real monotonic clock, or a `ManualClock` a test drives — with a settable rate
/// error, position-report jitter and granularity, latency, injected underruns, and pause/rewind
/// capability switches. It can record every frame it actually plays (a rewound tail is never
/// recorded, as on hardware) and the timeline of its position. It takes float samples, or
/// converts them to 16- or 32-bit integers as an ALSA device does (`Behaviour.sampleFormat`).
///
/// Thread rules: like any `OutputDevice`, driven by one thread after `open`; `injectUnderrun`
/// and the recording accessors belong to that thread too (or to any thread once it has stopped).
/// Real-time safe once open: recording storage is reserved up front as address space, backed by
/// memory as it fills (`Behaviour.recordingCapacity`, `ReservedStorage`).
public final class SimulatedDevice: OutputDevice {
    /// How the simulated hardware behaves.
    public struct Behaviour: Sendable {
        /// The device's crystal against the monotonic clock: +200 consumes 200 ppm fast.
        public var rateErrorPPM: Double = 0
        /// Each position reading's timestamp is off by a uniform error in ±this many seconds.
        public var jitterSeconds: Double = 0
        /// Positions are reported in steps of this many frames (1: exact).
        public var granularityFrames: Int = 1
        /// Frames between leaving the buffer and being heard; positions report heard frames.
        public var latencyFrames: Int = 0
        public var canPause = true
        public var canRewind = true
        /// Frames of recording storage reserved at `open` (0: no recording).
        public var recordingCapacity: Int = 0
        /// Seed of the jitter.
        public var seed: UInt64 = 0x5EED
        /// The sample format the hardware takes.
        public var sampleFormat: SampleFormat = .float32
        /// Most channels it has: asked for more, it opens with these (as a card's `_near`
        /// negotiation does) and the caller must notice.
        public var maximumChannels = 64
        /// Unplugged once it has played this many frames (a controller pulled mid-play).
        public var disconnectAfterFrames: FrameIndex?

        public init() {}
    }

    /// The sample format the simulated hardware takes. An integer format passes every written
    /// sample through `SampleConversion` — the converter `ALSADevice` writes `S32_LE` and
    /// `S16_LE` with — and the device plays (and records) the integer k as k / 2ⁿ⁻¹, as
    /// PipeWire and ALSA read integers back as floats.
    public enum SampleFormat: String, Sendable, CaseIterable {
        case float32 = "float"
        case int32 = "s32"
        case int16 = "s16"

        /// ALSA's name for the format.
        public var name: String {
            switch self {
            case .float32: return "FLOAT_LE"
            case .int32: return "S32_LE"
            case .int16: return "S16_LE"
            }
        }

        /// `x` as the hardware holds it. Real-time safe.
        @inline(__always)
        func stored(_ x: Float) -> Float {
            switch self {
            case .float32: return x
            case .int32: return Float(SampleConversion.int32(x)) / 2_147_483_648
            case .int16: return Float(SampleConversion.int16(x)) / 32_768
            }
        }
    }

    public let clock: MonotonicClock
    public let behaviour: Behaviour
    public private(set) var configuration: DeviceConfiguration?
    public var capabilities: DeviceCapabilities {
        DeviceCapabilities(canPause: behaviour.canPause, canRewind: behaviour.canRewind)
    }

    private var queue: UnsafeMutableBufferPointer<Float> = .init(start: nil, count: 0)
    private var queueStart = 0       // frame index (in the ring) of the oldest queued frame
    private var queuedFrames = 0
    public private(set) var framesWritten: FrameIndex = 0
    /// Frames that have left the buffer since the last `prepare`.
    public private(set) var framesConsumed: FrameIndex = 0
    private var running = false
    private var paused = false
    private var inUnderrun = false
    private var runningNanoseconds: Int64 = 0
    private var lastUpdate = MonotonicTime(nanoseconds: 0)
    private var random: UInt64

    /// Every frame played, interleaved, across prepares (when recording), copied out.
    public var recording: [Float] { recorded?.elements ?? [] }
    /// How many samples `recording` holds (without copying them).
    public var recordedSampleCount: Int { recorded?.count ?? 0 }
    /// Samples played past the recording's capacity, not kept.
    public var recordingDropped: Int { recorded?.dropped ?? 0 }
    /// `(time, frames consumed in total)` at every update, across prepares (when recording).
    public var timeline: [(time: MonotonicTime, consumed: FrameIndex)] { positions?.elements ?? [] }
    private var recorded: ReservedStorage<Float>?
    private var positions: ReservedStorage<(time: MonotonicTime, consumed: FrameIndex)>?
    private var consumedBeforePrepare: FrameIndex = 0
    private let gone = Atomic<Bool>(false)
    /// What `exactStreamFrame(at:)` reads on another thread, published by the driving one.
    private let truth = PublishedRun()
    /// Frames written (net of rewinds) before the last `prepare`: the stream frame of the
    /// device's frame 0 as a player counts it.
    private var writtenBeforePrepare: FrameIndex = 0
    /// Underruns so far (natural and injected).
    public private(set) var underrunCount = 0

    public init(clock: MonotonicClock, behaviour: Behaviour = Behaviour()) {
        self.clock = clock
        self.behaviour = behaviour
        random = behaviour.seed | 1
    }

    deinit {
        queue.deallocate()
    }

    public func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration {
        guard configuration == nil else { throw .badState("already open") }
        guard requested.channels >= 1, requested.channels <= 64 else { throw .unsupported("\(requested.channels) channels") }
        guard requested.periodFrames >= 1, requested.bufferFrames >= requested.periodFrames else {
            throw .unsupported("period \(requested.periodFrames), buffer \(requested.bufferFrames) frames")
        }
        var requested = requested
        requested.channels = min(requested.channels, max(behaviour.maximumChannels, 1))
        configuration = requested
        queue = .allocate(capacity: requested.bufferFrames * requested.channels)
        queue.initialize(repeating: 0)
        if behaviour.recordingCapacity > 0 {
            // Address space for the whole recording; memory only as it is played.
            let (samples, overflow) = behaviour.recordingCapacity.multipliedReportingOverflow(by: requested.channels)
            guard !overflow, let recorded = ReservedStorage<Float>(capacity: samples),
                  let positions = ReservedStorage<(time: MonotonicTime, consumed: FrameIndex)>(
                      capacity: behaviour.recordingCapacity + 4096) else {
                queue.deallocate()
                queue = .init(start: nil, count: 0)
                configuration = nil
                throw .unsupported("a recording of \(behaviour.recordingCapacity) frames × \(requested.channels) channels cannot be reserved")
            }
            (self.recorded, self.positions) = (recorded, positions)
        }
        lastUpdate = clock.now()
        return requested
    }

    /// Consumes what the elapsed time allows; a queue that runs dry is an underrun.
    private func update() {
        let now = clock.now()
        defer { lastUpdate = now }
        guard let config = configuration, running, !paused, !inUnderrun else { return }
        runningNanoseconds += now.nanoseconds - lastUpdate.nanoseconds
        let rate = Double(config.sampleRate.hertz) * (1 + behaviour.rateErrorPPM * 1e-6)
        let due = FrameIndex((Double(runningNanoseconds) * rate / 1e9).rounded(.down))
        var take = Int(due - framesConsumed)
        guard take > 0 else { return }
        if take > queuedFrames {
            take = queuedFrames
            inUnderrun = true
            underrunCount += 1
            truth.publish(start: nil, base: writtenBeforePrepare)
        }
        consume(take)
        positions?.append((now, consumedBeforePrepare + framesConsumed))
        if let last = behaviour.disconnectAfterFrames, consumedBeforePrepare + framesConsumed >= last { disconnect() }
    }

    private func consume(_ frames: Int) {
        guard let config = configuration, frames > 0 else { return }
        if let recorded {
            let ch = config.channels
            for f in 0..<frames {
                let slot = (queueStart + f) % config.bufferFrames
                for c in 0..<ch { recorded.append(queue[slot * ch + c]) }
            }
        }
        queueStart = (queueStart + frames) % config.bufferFrames
        queuedFrames -= frames
        framesConsumed += FrameIndex(frames)
    }

    public func availableFrames() throws(DeviceError) -> Int {
        guard let config = configuration else { throw .badState("not open") }
        if gone.load(ordering: .acquiring) { throw .disconnected("the simulated device was unplugged") }
        update()
        if inUnderrun { throw .underrun }
        return config.bufferFrames - queuedFrames
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int {
        guard let config = configuration else { throw .badState("not open") }
        if gone.load(ordering: .acquiring) { throw .disconnected("the simulated device was unplugged") }
        update()
        if inUnderrun { throw .underrun }
        let ch = config.channels
        let frames = min(samples.count / ch, config.bufferFrames - queuedFrames)
        let format = behaviour.sampleFormat
        for f in 0..<frames {
            let slot = (queueStart + queuedFrames + f) % config.bufferFrames
            for c in 0..<ch { queue[slot * ch + c] = format.stored(samples[f * ch + c]) }
        }
        queuedFrames += frames
        framesWritten += FrameIndex(frames)
        if !running && frames > 0 {
            running = true
            lastUpdate = clock.now()
            publishRun()
        }
        return frames
    }

    public func position() throws(DeviceError) -> DevicePosition {
        guard configuration != nil else { throw .badState("not open") }
        if gone.load(ordering: .acquiring) { throw .disconnected("the simulated device was unplugged") }
        update()
        var heard = max(framesConsumed - FrameIndex(behaviour.latencyFrames), 0)
        let step = FrameIndex(max(behaviour.granularityFrames, 1))
        heard = heard / step * step
        var stamp = lastUpdate
        if behaviour.jitterSeconds > 0 {
            stamp = stamp.adding(seconds: (nextUnit() * 2 - 1) * behaviour.jitterSeconds)
        }
        return DevicePosition(framesPlayed: heard, timestamp: stamp)
    }

    public func pause(_ pausing: Bool) throws(DeviceError) {
        guard behaviour.canPause else { throw .unsupported("this device cannot pause") }
        update()
        paused = pausing
        // The exact position is a straight line only while nothing has paused the run.
        if pausing { truth.publish(start: nil, base: writtenBeforePrepare) }
    }

    public func rewind(_ frames: Int) throws(DeviceError) -> Int {
        guard behaviour.canRewind else { return 0 }
        update()
        let k = max(0, min(frames, queuedFrames))
        queuedFrames -= k
        framesWritten -= FrameIndex(k)
        return k
    }

    public func drop() throws(DeviceError) {
        update()
        queuedFrames = 0
        running = false
        truth.publish(start: nil, base: writtenBeforePrepare)
    }

    public func prepare() throws(DeviceError) {
        update()
        consumedBeforePrepare += framesConsumed
        writtenBeforePrepare += framesWritten
        truth.publish(start: nil, base: writtenBeforePrepare)
        queuedFrames = 0
        queueStart = 0
        framesWritten = 0
        framesConsumed = 0
        runningNanoseconds = 0
        running = false
        paused = false
        inUnderrun = false
    }

    public func close() {
        configuration = nil
    }

    /// Unplugs the device (a killed server, a pulled USB cable): from now on every call throws
    /// `.disconnected`. Any thread.
    public func disconnect() {
        gone.store(true, ordering: .releasing)
    }

    /// Makes the device run dry now, as if the writer had been late: queued frames are lost
    /// and the next write or availability check reports `.underrun`.

    public func injectUnderrun() {
        update()
        queuedFrames = 0
        if running && !inUnderrun {
            inUnderrun = true
            underrunCount += 1
        }
        truth.publish(start: nil, base: writtenBeforePrepare)
    }

    /// The stream frame really being heard at `time` (fractional): the frames written before the
    /// last `prepare` (net of rewinds — as a player counts its stream) plus what the device has
    /// played since, at its true rate, less its latency. It holds from the start of a run until
    /// the device pauses, runs dry or is prepared again, for any `time` in that run (not only
    /// the instants it was updated at); nil outside one. The truth `pulsar drift` measures a
    /// clock against. Any thread: it reads what the driving thread publishes, through a seqlock.
    public func exactStreamFrame(at time: MonotonicTime) -> Double? {
        guard let config = configuration, let run = truth.read(), let start = run.start else { return nil }
        let rate = Double(config.sampleRate.hertz) * (1 + behaviour.rateErrorPPM * 1e-6)
        let played = Double(time.nanoseconds - start) * rate / 1e9 - Double(behaviour.latencyFrames)
        return Double(run.base) + max(played, 0)
    }

    /// Publishes the run that starts now.
    private func publishRun() {
        truth.publish(start: lastUpdate.nanoseconds, base: writtenBeforePrepare)
    }

    /// Frames queued and not yet played.
    public var queued: Int { queuedFrames }

    private func nextUnit() -> Double {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return Double(random >> 11) / Double(UInt64(1) << 53)
    }
}

/// A run's start (ns, or none) and stream base, written by the device's driving thread and read
/// by any other: a sequence counter that is odd while a write is under way (a seqlock), so a
/// reader never pairs one write's start with another's base. Real-time safe for the writer.
private final class PublishedRun: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let start = Atomic<Int64>(Int64.min)
    private let base = Atomic<Int64>(0)

    func publish(start value: Int64?, base frames: FrameIndex) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .sequentiallyConsistent)
        start.store(value ?? Int64.min, ordering: .sequentiallyConsistent)
        base.store(frames, ordering: .sequentiallyConsistent)
        sequence.store(s &+ 2, ordering: .sequentiallyConsistent)
    }

    /// The latest whole publication: `(start, base)`, start nil outside a run.
    func read() -> (start: Int64?, base: FrameIndex)? {
        for _ in 0..<1000 {
            let before = sequence.load(ordering: .sequentiallyConsistent)
            guard before & 1 == 0 else { continue }
            let s = start.load(ordering: .sequentiallyConsistent), b = base.load(ordering: .sequentiallyConsistent)
            guard sequence.load(ordering: .sequentiallyConsistent) == before else { continue }
            return (s == Int64.min ? nil : s, b)
        }
        return nil
    }
}
