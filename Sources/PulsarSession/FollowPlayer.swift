#if canImport(Glibc)
import Glibc
#endif
import PulsarAudio
import PulsarCore
import PulsarDerive
import PulsarEngine
import Synchronization

/// `pulsar follow`'s live path: a source's frames through a `HapticFollower` onto a device, in
/// the device's layout — its haptic channels carry the follower's output, its sound channels
/// (with `mix`) the source's own sound, the rest silence. Each step fills what the device takes,
/// a period at a time: reads the source (a live one gives what has come; what it lacks is
/// silence, counted), runs the follower, writes.
///
/// Thread rules: `step` runs on one thread — the device's callback (PipeWire) or the player's
/// own pacing thread — and allocates nothing; `start`, `stop` and the counters from the control
/// thread.
public final class FollowPlayer: @unchecked Sendable {
    public let device: OutputDevice
    public let source: FollowSource
    public let follower: HapticFollower
    public let layout: ChannelLayout
    public let mix: Bool
    public let period: Int
    private let input: UnsafeMutableBufferPointer<Float>
    private let haptic: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    private var thread: pthread_t?
    /// Whether the source has brought a frame (the stepping thread's): silence before it is not missing.
    private var sourceStarted = false
    private let running = Atomic<Bool>(false)
    // Written by the stepping thread only, read by the control thread: no lock on the real-time path.
    private let frames = Atomic<Int64>(0)
    private let missing = Atomic<Int64>(0)
    private let underruns = Atomic<Int>(0)
    private let sourceEnded = Atomic<Bool>(false)
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
        public var failure: DeviceError?
        /// The file source ran out.
        public var sourceEnded = false
    }

    public init(device: OutputDevice, source: FollowSource, follower: HapticFollower, layout: ChannelLayout, mix: Bool, period: Int) {
        self.device = device
        self.source = source
        self.follower = follower
        self.layout = layout
        self.mix = mix
        self.period = min(max(period, 16), HapticFollower.blockLimit)
        input = .allocate(capacity: self.period * source.channels)
        input.initialize(repeating: 0)
        haptic = .allocate(capacity: self.period)
        haptic.initialize(repeating: 0)
        output = .allocate(capacity: self.period * layout.channelCount)
        output.initialize(repeating: 0)
    }

    deinit {
        stop()
        input.deallocate()
        haptic.deallocate()
        output.deallocate()
    }

    public var snapshot: Counters {
        let failed = failed.load(ordering: .acquiring)
        return Counters(frames: frames.load(ordering: .relaxed), missing: missing.load(ordering: .relaxed), underruns: underruns.load(ordering: .relaxed),
                        failure: failed ? failure : nil, sourceEnded: sourceEnded.load(ordering: .relaxed))
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

    private func guardedStep() {
        do throws(DeviceError) {
            try step()
        } catch .underrun {
            underruns.add(1, ordering: .relaxed)
            try? device.prepare()
        } catch {
            fail(error)
        }
    }

    /// Fills what the device takes now, a period at a time.
    public func step() throws(DeviceError) {
        var wanted = try device.availableFrames()
        let channels = source.channels, outChannels = layout.channelCount
        while wanted > 0 {
            let n = min(wanted, period)
            let got = try source.read(into: input, frames: n)
            if got < n { UnsafeMutableBufferPointer(rebasing: input[(got * channels)..<(n * channels)]).update(repeating: 0) }
            follower.process(interleaved: UnsafeBufferPointer(rebasing: input[0..<(n * channels)]), channels: channels,
                             output: UnsafeMutableBufferPointer(rebasing: haptic[0..<n]))
            FollowLayout.lay(haptic: UnsafeBufferPointer(rebasing: haptic[0..<n]), sound: mix ? UnsafeBufferPointer(rebasing: input[0..<(n * channels)]) : nil,
                             soundChannels: channels, layout: layout, into: UnsafeMutableBufferPointer(rebasing: output[0..<(n * outChannels)]))
            let taken = try device.write(UnsafeBufferPointer(rebasing: output[0..<(n * outChannels)]))
            frames.add(Int64(taken), ordering: .relaxed)
            if got > 0 { sourceStarted = true }
            if source.ended { sourceEnded.store(true, ordering: .relaxed) } else if sourceStarted { missing.add(Int64(n - got), ordering: .relaxed) }
            wanted -= n
            if taken < n { break }
        }
    }
}

/// Where each of a layout's channels takes its samples from, for `pulsar follow` and its replay:
/// `H` the follower's output, `L` the sound's first channel, `R` its second (its first when
/// mono), `M` their mean, `0` nothing; a channel naming several takes their sum (in the order
/// the layout names them). Without a sound (`mix` off), `L`, `R` and `M` are silent.
public enum FollowLayout {
    public static func lay(haptic: UnsafeBufferPointer<Float>, sound: UnsafeBufferPointer<Float>?, soundChannels: Int,
                           layout: ChannelLayout, into output: UnsafeMutableBufferPointer<Float>) {
        let outChannels = layout.channelCount
        for f in 0..<haptic.count {
            for (c, sources) in layout.channels.enumerated() {
                var v: Float = 0
                for s in sources {
                    switch s {
                    case .haptic: v += haptic[f]
                    case .left: if let sound { v += sound[f * soundChannels] }
                    case .right: if let sound { v += sound[f * soundChannels + (soundChannels > 1 ? 1 : 0)] }
                    case .mono:
                        if let sound {
                            var sum: Float = 0
                            for k in 0..<soundChannels { sum += sound[f * soundChannels + k] }
                            v += soundChannels == 1 ? sum : sum / Float(soundChannels)
                        }
                    case .silence: break
                    }
                }
                output[f * outChannels + c] = v
            }
        }
    }
}
