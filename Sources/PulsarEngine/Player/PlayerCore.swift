import PulsarAudio
import PulsarCore
import Synchronization

/// The body of a player's real-time thread, one `step()` per wake-up: apply queued commands at
/// their effective frames, keep the device fed from the transport, report positions, underruns
/// and completion. A thread calls `step()` in a loop; tests call it with a driven clock.
///
/// Effective frame of a command: with a device that really rewinds, the first frame not yet
/// heard plus `safetyMargin` — the queued tail past it is discarded and rewritten in the new
/// state; otherwise the write head. Stream frames count every frame written since `start`,
/// across device re-prepares.
///
/// Thread rules: `send` from one control thread (any one); `step` and `start` from the real-time
/// thread only; `events` is drained by one non-real-time thread. `step` allocates nothing, takes
/// no lock and does no I/O beyond the device calls (the mixer must preload its audio).
public final class PlayerCore: @unchecked Sendable {
    public let device: OutputDevice
    public let renderer: TransportRenderer
    public let configuration: DeviceConfiguration
    /// Frames kept between the hardware position and an effective frame (rewinding devices).
    public let safetyMargin: Int

    /// Commands in (control thread → real-time thread).
    private let commands: SPSCQueue<(TransportCommand, MonotonicTime)>
    /// Reports out (real-time thread → control thread).
    public let events: SPSCQueue<EngineEvent>

    public private(set) var state = TransportState.initial
    /// Monotonic time of the first frame written to the device (nil before): the moment the
    /// device starts. Written once by the real-time thread; read it after `shutdown`.
    public private(set) var firstWriteTime: MonotonicTime?
    /// Stream frames written (and not rewound).
    public private(set) var streamWritten = StreamFrame.zero
    /// Stream frame at the device's frame 0 (moves on every re-prepare).
    private var deviceBase = StreamFrame.zero
    private var pendingCompletion: StreamFrame?
    /// When the previous `step` began; a longer gap than the buffer lasts means the device ran dry.
    private var lastStep: MonotonicTime?
    /// The device ran dry while this thread was held up, and has not said so itself yet.
    private var unreportedStall = false
    private let buffer: UnsafeMutableBufferPointer<Float>
    private let clock: MonotonicClock
    /// Events the queue refused since the last one it took; reported as `eventsLost` first
    /// thing when it takes one again.
    private var unreportedLosses = 0
    /// How late the steps came, for any thread to read.
    public let wakeups = WakeupStatistics()

    public init(renderer: TransportRenderer, device: OutputDevice, clock: MonotonicClock, configuration: DeviceConfiguration,
                safetyMargin: Int? = nil, commandCapacity: Int = 256, eventCapacity: Int = 65_536) throws(DeviceError) {
        guard renderer.mixer.isRealtimeSafe else {
            throw .unsupported("the mixer decodes its audio while it renders; a player needs it preloaded (MixSettings.preloadAudio)")
        }
        guard configuration.channels == renderer.mixer.channelCount else {
            throw .unsupported("the mixer has \(renderer.mixer.channelCount) channels, the device was asked for \(configuration.channels)")
        }
        self.renderer = renderer
        self.device = device
        self.clock = clock
        self.configuration = try device.open(configuration)
        // PulseAudio's rewind safeguard: 1.33 ms (at least a quarter period) ahead of what is heard.
        self.safetyMargin = safetyMargin ?? max(configuration.periodFrames / 4, Int(Double(configuration.sampleRate.hertz) * 0.00133))
        commands = SPSCQueue(minimumCapacity: commandCapacity)
        events = SPSCQueue(minimumCapacity: eventCapacity)
        buffer = .allocate(capacity: self.configuration.periodFrames * self.configuration.channels)
    }

    deinit {
        buffer.deallocate()
        device.close()
    }

    /// Queues a command; false when the queue is full. Control thread.
    @discardableResult
    public func send(_ command: TransportCommand) -> Bool {
        commands.push((command, clock.now()))
    }

    /// One wake-up of the real-time thread.
    ///
    /// A wake-up later than the whole buffer lasts (the thread or the process was stopped or
    /// starved) means the device ran dry, whether or not it reports an underrun: some sound
    /// servers fill the gap with silence and hold their position. Such a gap is logged as an
    /// underrun that lost no frames, so the clock restarts on the device's new time line.
    public func step() throws(DeviceError) {
        let now = clock.now()
        if let lastStep {
            if now.seconds(since: lastStep) > Double(configuration.bufferFrames) / Double(configuration.sampleRate.hertz) {
                unreportedStall = true
            }
            wakeups.note(gapNanoseconds: now.nanoseconds - lastStep.nanoseconds,
                         periodNanoseconds: Int64(Double(configuration.periodFrames) / Double(configuration.sampleRate.hertz) * 1e9))
        }
        lastStep = now
        while let (command, requestTime) = commands.pop() {
            let effective = try effectiveFrame()
            let next: TransportState
            if case .mix(let change) = command {
                next = state.switching(to: change.generation, from: renderer.mixers.mixer(state.mix).timeline,
                                       to: renderer.mixers.mixer(change.generation).timeline, atStreamFrame: effective,
                                       fadeLength: TransportState.fadeFrames(at: configuration.sampleRate))
            } else {
                next = state.applying(command, atStreamFrame: effective)
            }
            if command == .stop && state.mode != .stopped {
                report(.completion(finished: false, streamFrame: effective))
                pendingCompletion = nil
            }
            state = next
            pendingCompletion = renderer.endStreamFrame(of: state)
            report(.command(command, requestTime: requestTime, effectiveFrame: effective, state: state))
        }
        try fill()
        let reading = try device.position()
        let heard = streamFrame(of: reading)
        if unreportedStall {
            unreportedStall = false
            let at = min(heard, streamWritten)
            report(.underrun(lostFrom: at, lostTo: at, time: now))
        }
        report(.position(streamFrame: heard, time: reading.timestamp))
        if let end = pendingCompletion, heard >= end {
            report(.completion(finished: true, streamFrame: end))
            pendingCompletion = nil
            state = TransportState(mode: .stopped, timelineFrame: renderer.mixers.mixer(state.mix).timeline.end, anchor: end, mix: state.mix)
        }
    }

    /// Where a command issued now can first be heard.
    private func effectiveFrame() throws(DeviceError) -> StreamFrame {
        guard device.capabilities.canRewind else { return streamWritten }
        let heard = streamFrame(of: try device.position())
        let target = min(max(heard + FrameIndex(safetyMargin), state.anchor), streamWritten)
        let wanted = Int(streamWritten - target)
        guard wanted > 0 else { return streamWritten }
        let discarded = try device.rewind(wanted)
        streamWritten -= FrameIndex(discarded)
        return streamWritten
    }

    /// The stream frame a device reading stands at: the device counts from its last prepare.
    private func streamFrame(of reading: DevicePosition) -> StreamFrame {
        deviceBase + reading.framesPlayed
    }

    /// Writes what the device can take, at most one buffer's worth: a device that consumes
    /// faster than this thread renders (a slow build, a starved machine) must not keep the step
    /// from returning to its commands and to `shutdown`.
    private func fill() throws(DeviceError) {
        let channels = configuration.channels
        var budget = configuration.bufferFrames
        while budget > 0 {
            let available: Int
            do {
                available = try device.availableFrames()
            } catch .underrun {
                try recoverUnderrun()
                budget -= configuration.periodFrames
                continue
            }
            let n = min(available, configuration.periodFrames, budget)
            guard n > 0 else { return }
            budget -= n
            let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * channels)])
            do {
                try renderer.render(state, into: block, fromStreamFrame: streamWritten)
            } catch {
                // Preloaded audio only copies; should a read fail all the same, play silence and say so.
                block.initialize(repeating: 0)
                report(.renderFailed(from: streamWritten, to: streamWritten + FrameIndex(n)))
            }
            let written: Int
            do {
                written = try device.write(UnsafeBufferPointer(block))
            } catch .underrun {
                try recoverUnderrun()
                continue
            }
            streamWritten += FrameIndex(written)
            if firstWriteTime == nil, written > 0 { firstWriteTime = clock.now() }
            if written < n { return }
        }
    }

    /// Queues `event` for the control thread; when the queue is full, counts it instead, and
    /// reports the count before the next event that fits. Real-time thread.
    private func report(_ event: EngineEvent) {
        if unreportedLosses > 0 {
            guard events.push(.eventsLost(count: unreportedLosses)) else {
                unreportedLosses += 1
                return
            }
            unreportedLosses = 0
        }
        if !events.push(event) { unreportedLosses += 1 }
    }

    /// After an underrun: what was queued is lost; the device restarts at stream frame `streamWritten`.
    private func recoverUnderrun() throws(DeviceError) {
        unreportedStall = false
        let played = streamFrame(of: try device.position())
        report(.underrun(lostFrom: min(played, streamWritten), lostTo: streamWritten, time: clock.now()))
        try device.prepare()
        deviceBase = streamWritten
    }
}

/// The gaps between a player's steps: a wake-up is late when it comes more than half a period
/// after the period it was due (a gap over 1.5 periods; commands and the device's descriptors
/// only ever wake the thread earlier). Written by the real-time thread (two relaxed atomic
/// updates, no lock), read from any thread.
public final class WakeupStatistics: Sendable {
    private let late = Atomic<Int>(0)
    private let longest = Atomic<Int64>(0)

    /// Steps that came late so far.
    public var lateWakeups: Int { late.load(ordering: .relaxed) }
    /// The longest gap between two steps so far, seconds.
    public var longestGap: Double { Double(longest.load(ordering: .relaxed)) / 1e9 }

    func note(gapNanoseconds gap: Int64, periodNanoseconds period: Int64) {
        if gap > period + period / 2 { late.add(1, ordering: .relaxed) }
        if gap > longest.load(ordering: .relaxed) { longest.store(gap, ordering: .relaxed) }
    }
}
