#if canImport(Glibc)
import Glibc
#endif
import PulsarAudio
import PulsarCore
import PulsarDerive
@_spi(Internals) import PulsarEngine
import Synchronization

/// What happened during a `pulsar follow` run, as the stepping thread reports it (for the log).
public enum FollowEvent: Hashable, Sendable {
    /// From device frame `segment.frame` on, the device reads the capture by `segment`.
    case segment(FeedSegment)
    /// The device ran dry at its frame `frame` and restarted there.
    case underrun(frame: Int64)
    /// The capture dropped `frames` frames (the reader fell behind) before device frame `frame`.
    case captureLost(frames: Int64, frame: Int64)
}

/// `pulsar follow`'s live path: a source's frames through a `HapticFollower` onto a device, in
/// the device's layout — its haptic channels carry the follower's output, its sound channels
/// (with `mix`) the source's own sound, the rest silence. Each step fills what the device takes,
/// a period at a time. A file is read as the device asks. A capture is taken in as it comes and
/// read on the device's clock through a `CaptureFeed`: its delay to the device is held where it
/// was at the start, whatever the two crystals do; frames it lacks are silence, counted.
///
/// Thread rules: `step` runs on one thread — the device's callback (PipeWire) or the player's
/// own pacing thread, or the caller's (a simulation) — and allocates nothing; `start`, `stop`,
/// `snapshot` and `events` from the control thread.
public final class FollowPlayer: @unchecked Sendable {
    public let device: OutputDevice
    public let source: FollowSource
    public let follower: HapticFollower
    public let layout: ChannelLayout
    public let mix: Bool
    public let period: Int
    private let recorder: FollowRecorder?
    private let feed: CaptureFeed?
    private let input: UnsafeMutableBufferPointer<Float>
    private let scratch: UnsafeMutableBufferPointer<Float>
    private let haptic: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    private var thread: pthread_t?
    /// Whether the source has brought a frame (the stepping thread's): silence before it is not missing.
    private var sourceStarted = false
    private var lostSeen = 0
    private var deviceFrames: Int64 = 0
    private let running = Atomic<Bool>(false)
    // Written by the stepping thread only, read by the control thread: no lock on the real-time path.
    private let frames = Atomic<Int64>(0)
    private let missing = Atomic<Int64>(0)
    private let underruns = Atomic<Int>(0)
    private let lost = Atomic<Int64>(0)
    private let delayMicroseconds = Atomic<Int64>(-1)
    private let sourceEnded = Atomic<Bool>(false)
    private let reports = SPSCQueue<FollowEvent>(minimumCapacity: 4096)
    private let reportsDropped = Atomic<Int>(0)
    /// Set once by the stepping thread before `failed` is raised (release), read after it (acquire).
    private var failure: DeviceError?
    private let failed = Atomic<Bool>(false)

    /// What the steps did, for the control thread.
    public struct Counters: Sendable {
        /// Frames written to the device.
        public var frames: Int64 = 0
        /// Frames the source had not brought when the device asked, once it had begun (silence
        /// in their place).
        public var missing: Int64 = 0
        public var underruns = 0
        /// Frames a capture dropped because it was read too late.
        public var captureLost: Int64 = 0
        /// Seconds from a capture's frame coming in to it being heard on the device, as the two
        /// clocks put it (held there); nil for a file, or before both clocks had readings.
        public var delay: Double?
        public var failure: DeviceError?
        /// The file source ran out.
        public var sourceEnded = false
    }

    /// `record`: where the frames the follower reads go (for `--log`).
    public init(device: OutputDevice, source: FollowSource, follower: HapticFollower, layout: ChannelLayout, mix: Bool, period: Int,
                record: FollowRecorder? = nil) {
        self.device = device
        self.source = source
        self.follower = follower
        self.layout = layout
        self.mix = mix
        self.period = min(max(period, 16), HapticFollower.blockLimit)
        recorder = record
        let channels = source.channels
        if case .capture(let capture) = source {
            feed = CaptureFeed(channels: channels, captureRate: capture.sampleRate, deviceRate: capture.sampleRate,
                               deviceFloors: !device.capabilities.exactPositions, cushion: self.period)
        } else {
            feed = nil
        }
        input = .allocate(capacity: self.period * channels)
        input.initialize(repeating: 0)
        scratch = .allocate(capacity: 4096 * channels)
        scratch.initialize(repeating: 0)
        haptic = .allocate(capacity: self.period)
        haptic.initialize(repeating: 0)
        output = .allocate(capacity: self.period * layout.channelCount)
        output.initialize(repeating: 0)
    }

    deinit {
        stop()
        input.deallocate()
        scratch.deallocate()
        haptic.deallocate()
        output.deallocate()
    }

    public var snapshot: Counters {
        let failed = failed.load(ordering: .acquiring)
        let delay = delayMicroseconds.load(ordering: .relaxed)
        return Counters(frames: frames.load(ordering: .relaxed), missing: missing.load(ordering: .relaxed), underruns: underruns.load(ordering: .relaxed),
                        captureLost: lost.load(ordering: .relaxed), delay: delay < 0 ? nil : Double(delay) / 1e6,
                        failure: failed ? failure : nil, sourceEnded: sourceEnded.load(ordering: .relaxed))
    }

    /// The events reported since the last call (control thread), and how many did not fit the queue.
    public func events() -> (events: [FollowEvent], dropped: Int) {
        var out: [FollowEvent] = []
        while let e = reports.pop() { out.append(e) }
        return (out, reportsDropped.load(ordering: .relaxed))
    }

    private func report(_ event: FollowEvent) {
        if !reports.push(event) { reportsDropped.add(1, ordering: .relaxed) }
    }

    private func fail(_ error: DeviceError) {
        guard !failed.load(ordering: .relaxed) else { return }
        failure = error
        failed.store(true, ordering: .releasing)
    }

    /// Starts stepping: in the device's callback when it has one, else on a pacing thread that
    /// steps twice a period.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let callback = device as? CallbackDevice {
            callback.startCallbacks { [unowned self] in self.guardedStep() }
            return
        }
        var t = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        if pthread_create(&t, nil, { context in
            let player = Unmanaged<FollowPlayer>.fromOpaque(context!).takeRetainedValue()
            player.pace()
            return nil
        }, context) == 0 {
            thread = t
        } else {
            Unmanaged<FollowPlayer>.fromOpaque(context).release()
            fail(.badState("no thread for the follower"))
        }
    }

    /// Stops stepping; returns once no step runs.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if let callback = device as? CallbackDevice { callback.stopCallbacks() }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func pace() {
        let sleep = useconds_t(max(Double(period) / Double(source.sampleRate) / 2 * 1e6, 500))
        while running.load(ordering: .acquiring) {
            guardedStep()
            if failed.load(ordering: .relaxed) { return }
            usleep(sleep)
        }
    }

    /// One step, its device errors handled: an underrun restarts the device (and the feed's
    /// clock of it); anything else ends the run.
    public func guardedStep() {
        do throws(DeviceError) {
            try step()
        } catch .underrun {
            underruns.add(1, ordering: .relaxed)
            report(.underrun(frame: deviceFrames))
            try? device.prepare()
            feed?.deviceRestarted()
        } catch {
            fail(error)
        }
    }

    /// Fills what the device takes now, a period at a time.
    public func step() throws(DeviceError) {
        if case .capture(let capture) = source, let feed { try take(capture, into: feed) }
        var wanted = try device.availableFrames()
        let channels = source.channels, outChannels = layout.channelCount
        while wanted > 0 {
            let n = min(wanted, period)
            let got = try read(frames: n)
            follower.process(interleaved: UnsafeBufferPointer(rebasing: input[0..<(n * channels)]), channels: channels,
                             output: UnsafeMutableBufferPointer(rebasing: haptic[0..<n]))
            FollowLayout.lay(haptic: UnsafeBufferPointer(rebasing: haptic[0..<n]), sound: mix ? UnsafeBufferPointer(rebasing: input[0..<(n * channels)]) : nil,
                             soundChannels: channels, layout: layout, into: UnsafeMutableBufferPointer(rebasing: output[0..<(n * outChannels)]))
            recorder?.record(UnsafeBufferPointer(rebasing: input[0..<(n * channels)]))
            let taken = try device.write(UnsafeBufferPointer(rebasing: output[0..<(n * outChannels)]))
            deviceFrames += Int64(n)
            frames.add(Int64(taken), ordering: .relaxed)
            if got > 0 { sourceStarted = true }
            if case .file(let file) = source, file.ended { sourceEnded.store(true, ordering: .relaxed) } else if sourceStarted, feed == nil { missing.add(Int64(n - got), ordering: .relaxed) }
            wanted -= n
            if taken < n { break }
        }
        if let feed {
            missing.store(feed.missing, ordering: .relaxed)
            if let d = feed.delay { delayMicroseconds.store(Int64((d * 1e6).rounded()), ordering: .relaxed) }
        }
    }

    /// The next `n` frames the follower reads into `input`; returns how many came from the source.
    private func read(frames n: Int) throws(DeviceError) -> Int {
        let channels = source.channels
        switch source {
        case .file(let file):
            let got = file.read(into: input, frames: n)
            if got < n { UnsafeMutableBufferPointer(rebasing: input[(got * channels)..<(n * channels)]).update(repeating: 0) }
            return got
        case .capture:
            guard let feed else { return 0 }
            if let segment = feed.update(frames: n) { report(.segment(segment)) }
            return feed.read(into: input, frames: n)
        }
    }

    /// Takes in what the capture brought (what it dropped first, as silence in its place), then
    /// the latest reading of its clock and one of the device's.
    private func take(_ capture: CaptureDevice, into feed: CaptureFeed) throws(DeviceError) {
        let dropped = capture.lostFrames
        if dropped > lostSeen {
            feed.skip(dropped - lostSeen)
            lost.add(Int64(dropped - lostSeen), ordering: .relaxed)
            report(.captureLost(frames: Int64(dropped - lostSeen), frame: deviceFrames))
            lostSeen = dropped
        }
        let chunk = scratch.count / capture.channels
        for _ in 0..<64 {
            let got = try capture.read(into: scratch, frames: chunk)
            if got > 0 { feed.append(UnsafeBufferPointer(rebasing: scratch[0..<(got * capture.channels)])) }
            if got < chunk { break }
        }
        if let reading = capture.position() { feed.observeCapture(reading) }
        feed.observeDevice(try device.position())
    }
}
