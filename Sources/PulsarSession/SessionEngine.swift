import PulsarAudio
import PulsarCore
import PulsarEngine
import PulsarSimulation

/// An engine on one device, or on two (sound on the main one, touch on the haptic one), set up
/// the one way every front end sets it up: the devices from their specs, the scheduling policy
/// (`SessionPolicy.wantsRealtime`), the haptic device's output with both latencies.
public struct SessionEngine {
    /// What the session asks for.
    public struct Request {
        public var main: DeviceSpec
        /// The second device and the layout of its channels (two-device sessions).
        public var haptic: (spec: DeviceSpec, layout: ChannelLayout)?
        public var sampleRate: SampleRate
        /// Channels of the mix the main device plays (with two devices: all but the last).
        public var channels: Int
        public var periodFrames: Int
        public var bufferFrames: Int
        public var voiceLimit: Int
        /// Seconds from a frame heard (felt) to its reaching the ear (the skin), per device.
        public var latency: (main: Double, haptic: Double)

        public init(main: DeviceSpec, haptic: (spec: DeviceSpec, layout: ChannelLayout)? = nil, sampleRate: SampleRate, channels: Int,
                    periodFrames: Int, bufferFrames: Int, voiceLimit: Int = SessionPolicy.defaultVoiceLimit, latency: (main: Double, haptic: Double) = (0, 0)) {
            self.main = main
            self.haptic = haptic
            self.sampleRate = sampleRate
            self.channels = channels
            self.periodFrames = periodFrames
            self.bufferFrames = bufferFrames
            self.voiceLimit = voiceLimit
            self.latency = latency
        }
    }

    public let engine: HapticEngine
    /// The main device and its short name (`sim`, `default`, an ALSA name).
    public let device: OutputDevice
    public let name: String
    /// The haptic device of two, and its short name.
    public let hapticDevice: OutputDevice?
    public let hapticName: String?

    /// Opens `request`'s devices and an engine on them, not started, on `clock` (a simulated
    /// device's pace and what it records); `fallback`, when given, lets `auto` fall back to the
    /// simulated device and is told why.
    public init(_ request: Request, clock: SessionClock, fallback: ((DeviceError) -> Void)? = nil) throws(SessionError) {
        let monotonic = clock.monotonic
        (engine, device, name, hapticDevice, hapticName) = try Self.open(request, clock: clock, fallback: fallback) {
            (device, haptic, realtime) throws(DeviceError) in
            try HapticEngine(device: device, sampleRate: request.sampleRate, channels: request.channels, monotonic: monotonic,
                             periodFrames: request.periodFrames, bufferFrames: request.bufferFrames, voiceLimit: request.voiceLimit,
                             realtime: realtime, wake: SessionPolicy.wakeSource(main: device, haptic: haptic?.device), hapticDevice: haptic)
        }
    }

    /// Opens `request`'s devices the one way every session does, and `make`s an engine or a
    /// player on them: the haptic device (two-device requests) as the output to it with both
    /// devices' latencies, the main device from its spec (`auto` falling back when `fallback` is
    /// given), and the scheduling rule (`SessionPolicy.wantsRealtime`).
    static func open<T>(_ request: Request, clock: SessionClock, fallback: ((DeviceError) -> Void)?,
                        _ make: (OutputDevice, HapticDeviceOutput?, _ realtime: Bool) throws(DeviceError) -> T) throws(SessionError)
        -> (T, OutputDevice, String, OutputDevice?, String?) {
        let haptic = request.haptic.map { h in
            let (device, name) = h.spec.device(clock: clock)
            return (output: HapticDeviceOutput(device: device, layout: h.layout, sampleRate: request.sampleRate, periodFrames: request.periodFrames,
                                               bufferFrames: request.bufferFrames, latency: request.latency.haptic, mainLatency: request.latency.main),
                    name: name)
        }
        let (made, device, name) = try request.main.open(clock: clock, fallback: fallback) { (device) throws(DeviceError) in
            try make(device, haptic?.output, SessionPolicy.wantsRealtime(main: device, haptic: haptic?.output.device))
        }
        return (made, device, name, haptic?.output.device, haptic?.name)
    }
}

/// A single player (`HapticPlayer`: one voice that stays, with lottie-ios's transport) on a
/// request's device or two, set up as `SessionEngine` sets up an engine: the devices from their
/// specs, the scheduling policy, the haptic device's output. The viewer and `pulsar drift` play
/// through one.
public struct SessionPlayer {
    public let player: HapticPlayer
    /// The main device and its short name.
    public let device: OutputDevice
    public let name: String
    /// The haptic device of two, and its short name.
    public let hapticDevice: OutputDevice?
    public let hapticName: String?

    /// Opens `request`'s devices and a player of `mixer` on them, not started. The player's
    /// channels are the mixer's (`request.channels` is not read) and it has one voice.
    public init(_ request: SessionEngine.Request, mixer: PresetMixer, animationFrameRate: Double?, mode: HapticVoice.Mode = .pattern,
                clock: SessionClock, fallback: ((DeviceError) -> Void)? = nil) throws(SessionError) {
        let monotonic = clock.monotonic
        (player, device, name, hapticDevice, hapticName) = try SessionEngine.open(request, clock: clock, fallback: fallback) {
            (device, haptic, realtime) throws(DeviceError) in
            try HapticPlayer(mixer: mixer, device: device, monotonic: monotonic, periodFrames: request.periodFrames,
                             bufferFrames: request.bufferFrames, animationFrameRate: animationFrameRate, realtime: realtime,
                             wake: SessionPolicy.wakeSource(main: device, haptic: haptic?.device), mode: mode, hapticDevice: haptic)
        }
    }
}

/// What the devices played, as the event log's header counts it.
public enum PlayedFrames {
    /// Frames the main device played: what a recording simulated device holds, else everything
    /// written less what underruns lost (the queue was played out).
    public static func main(_ engine: HapticEngine, recorder: SimulatedDevice?) -> FrameIndex {
        if let recorder { return FrameIndex(recorder.recordedSampleCount / max(engine.mainChannels, 1)) }
        let lost = engine.loggedEvents.reduce(FrameIndex(0)) {
            if case let .underrun(from, to, _) = $1 { return $0 + max(to - from, 0) }
            return $0
        }
        return max(engine.mainWritten.index - lost, 0)
    }

    /// `main` for the haptic device of two.
    public static func haptic(_ engine: HapticEngine, recorder: SimulatedDevice?) -> FrameIndex {
        let channels = engine.hapticDeviceConfiguration?.channels ?? 1
        if let recorder { return FrameIndex(recorder.recordedSampleCount / max(channels, 1)) }
        let lost = engine.loggedEvents.reduce(FrameIndex(0)) {
            if case let .hapticDeviceUnderrun(from, to, _) = $1 { return $0 + max(to - from, 0) }
            return $0
        }
        return max(engine.hapticDeviceWritten.index - lost, 0)
    }

    /// The device as the recorder `main` and `haptic` read: a simulated device that keeps a
    /// recording, else nil.
    public static func recorder(_ device: OutputDevice?) -> SimulatedDevice? {
        (device as? SimulatedDevice).flatMap { $0.behaviour.recordingCapacity > 0 ? $0 : nil }
    }
}
