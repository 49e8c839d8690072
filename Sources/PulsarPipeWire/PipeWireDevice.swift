#if canImport(Glibc)
import Glibc
#endif
import CPipeWireShim
import PulsarCore
import PulsarEngine

/// A PipeWire playback stream as an `OutputDevice` (`--device pw:` and `pw:NODE`): the engine's
/// real-time thread writes into a ring that PipeWire's data thread empties in the stream's
/// process callback, and every position reading comes from that callback's `pw_time` — the
/// frames taken from the ring less what the stream still holds (`queued`, `buffered`) and the
/// graph's delay to its edge, at the cycle's monotonic `now` — not from polling.
///
/// The stream starts once a whole cycle is queued, as ALSA starts at its threshold. When the
/// ring runs dry the stream plays silence and reports an underrun at the next call; every frame
/// it took reaches the graph's edge, so none is lost, and `prepare` starts a new run with the
/// counters at 0. It cannot pause or rewind: the engine renders pauses and commands into the
/// stream (`DeviceCapabilities`).
///
/// Thread rules: `open` and `close` from the control thread; the rest from the one thread that
/// drives the device (the engine's real-time thread): no lock, no allocation.
public final class PipeWireDevice: CallbackDevice, @unchecked Sendable {
    /// The sink: a node's `node.name` or `object.serial`; nil for the default sink. With a
    /// profile switch, the sink the switch shows, from `open` on.
    public private(set) var target: String?
    /// Channel positions (`FL,FR`, `AUX0,AUX1,…`); nil: MONO for one channel, FL,FR for two,
    /// AUX0… beyond. With a profile switch, the sink's own, from `open` on.
    public private(set) var positions: String?
    /// A card switched to the profile that shows the sink at `open`, and back at `close`.
    public let profileSwitch: PipeWireProfileSwitch?
    /// The server's socket (nil: the environment's `PIPEWIRE_REMOTE`, else `pipewire-0` in the
    /// runtime folder).
    public let remote: String?
    /// The stream's node name.
    public let streamName: String
    public let capabilities = DeviceCapabilities(canPause: false, canRewind: false, exactPositions: true)
    private var stream: OpaquePointer?
    /// Channels of the open stream.
    private var channels = 1
    /// The time of a reading before the run's first cycle (made once: not on the real-time thread).
    private let clock = SystemMonotonicClock()

    /// The SCHED_FIFO priority PipeWire's data thread of this process asks for at its first
    /// cycle (0: left as PipeWire made it). 88 by default: PipeWire's own `rt.prio`, above the
    /// engine's thread, which feeds it — a data thread at normal priority under a busy real-time
    /// producer misses cycles, each a quantum of unannounced silence (measured: 2–3 a run at a
    /// 64-frame quantum on two streams).
    public let dataThreadPriority: Int32

    public init(target: String? = nil, positions: String? = nil, remote: String? = nil, streamName: String = "pulsar",
                dataThreadPriority: Int32 = 88, profileSwitch: PipeWireProfileSwitch? = nil) {
        self.dataThreadPriority = dataThreadPriority
        self.profileSwitch = profileSwitch
        self.target = target
        self.positions = positions
        self.remote = remote
        self.streamName = streamName
    }

    deinit { close() }

    /// The configuration asked for, with its period as the latency asked of the graph and its
    /// buffer as the ring's size; the stream takes the rate and channels as asked (PipeWire
    /// converts to the sink).
    public func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration {
        guard stream == nil else { throw .badState("the PipeWire stream is already open") }
        if let profileSwitch {
            let sink = try profileSwitch.engage(remote: remote)
            target = sink.name
            positions = sink.positions.joined(separator: ",")
        }
        do throws(DeviceError) {
            return try openStream(requested)
        } catch {
            profileSwitch?.release(remote: remote)
            throw error
        }
    }

    private func openStream(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration {
        var message = [CChar](repeating: 0, count: 512)
        var opened: OpaquePointer?
        let code = withOptionalCStrings(remote, target, positions, streamName) { remote, target, positions, name in
            var config = pulsar_pw_config(remote: remote, target: target, stream_name: name, rate: UInt32(requested.sampleRate.hertz),
                                          channels: UInt32(requested.channels), positions: positions,
                                          latency_frames: UInt32(requested.periodFrames), ring_frames: UInt32(requested.bufferFrames),
                                          timeout_ms: 3000, data_priority: dataThreadPriority)
            return pulsar_pw_open(&config, &opened, &message, message.count)
        }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch Int(code) {
        case PULSAR_PW_OK: break
        case PULSAR_PW_NO_SERVER, PULSAR_PW_FAILED: throw .disconnected(text)
        default: throw .unsupported(text)
        }
        stream = opened
        channels = requested.channels
        return requested
    }

    /// The status, thrown: gone (`disconnected`), and dry (`underrun`) unless `underrun` is false.
    private func check(_ s: OpaquePointer, underrun: Bool = true) throws(DeviceError) {
        switch pulsar_pw_status(s) {
        case Int32(PULSAR_PW_GONE): throw .disconnected(String(cString: pulsar_pw_error(s)))
        case Int32(PULSAR_PW_XRUN) where underrun: throw .underrun
        default: break
        }
    }

    private func opened() throws(DeviceError) -> OpaquePointer {
        guard let stream else { throw .badState("the PipeWire stream is not open") }
        return stream
    }

    public func availableFrames() throws(DeviceError) -> Int {
        let s = try opened()
        try check(s)
        return Int(pulsar_pw_writable(s))
    }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int {
        let s = try opened()
        try check(s)
        guard let base = samples.baseAddress else { return 0 }
        return Int(pulsar_pw_write(s, base, UInt32(samples.count / channels)))
    }

    public var framesWritten: FrameIndex {
        guard let stream else { return 0 }
        return FrameIndex(pulsar_pw_written(stream))
    }

    /// The newest cycle's reading; before the run's first cycle, 0 frames now. An underrun does
    /// not throw here (the engine reads the position to count what the underrun lost).
    public func position() throws(DeviceError) -> DevicePosition {
        let s = try opened()
        try check(s, underrun: false)
        var played: Int64 = 0, now: Int64 = 0
        if pulsar_pw_position(s, &played, &now) != 0 {
            return DevicePosition(framesPlayed: FrameIndex(played), timestamp: MonotonicTime(nanoseconds: now))
        }
        return DevicePosition(framesPlayed: 0, timestamp: clock.now())
    }

    public func pause(_ paused: Bool) throws(DeviceError) {
        throw .unsupported("a PipeWire stream does not pause here: the engine renders its pauses")
    }

    public func rewind(_ frames: Int) throws(DeviceError) -> Int { 0 }

    public func drop() throws(DeviceError) { pulsar_pw_drop(try opened()) }

    public func prepare() throws(DeviceError) {
        let s = try opened()
        try check(s, underrun: false)
        pulsar_pw_prepare(s)
    }

    public func close() {
        stopCallbacks()
        if let stream {
            pulsar_pw_close(stream)
            self.stream = nil
        }
        profileSwitch?.release(remote: remote)
    }

    /// The step the process callback calls (retained while set).
    private var callbackBox: Unmanaged<CallbackBox>?

    /// Makes the process callback call `step` before it takes each cycle's frames; during it,
    /// `availableFrames` is what the cycle still needs.
    public func startCallbacks(_ step: @escaping () -> Void) {
        guard let stream, callbackBox == nil else { return }
        let box = Unmanaged.passRetained(CallbackBox(step))
        callbackBox = box
        pulsar_pw_set_pull(stream, { context in
            Unmanaged<CallbackBox>.fromOpaque(context!).takeUnretainedValue().step()
        }, box.toOpaque())
    }

    public func stopCallbacks() {
        guard let stream, let box = callbackBox else { return }
        pulsar_pw_clear_pull(stream)
        box.release()
        callbackBox = nil
    }

    public func checkAlive() throws(DeviceError) { try check(try opened(), underrun: false) }

    /// Frames the graph asked for in its newest cycle (the quantum at the stream's rate); 0
    /// before the first.
    public var quantum: Int { stream.map { Int(pulsar_pw_quantum($0)) } ?? 0 }
}

/// A step for the process callback to call through a C pointer.
private final class CallbackBox {
    let step: () -> Void
    init(_ step: @escaping () -> Void) { self.step = step }
}

/// Calls `body` with C strings for the optional texts (NULL for nil).
func withOptionalCStrings<R>(_ a: String?, _ b: String?, _ c: String?, _ d: String?,
                             _ body: (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> R) -> R {
    func with(_ s: String?, _ next: (UnsafePointer<CChar>?) -> R) -> R {
        guard let s else { return next(nil) }
        return s.withCString { next($0) }
    }
    return with(a) { pa in with(b) { pb in with(c) { pc in with(d) { pd in body(pa, pb, pc, pd) } } } }
}
