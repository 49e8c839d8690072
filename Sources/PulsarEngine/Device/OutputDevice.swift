#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// What an output device is opened with (requested) and runs at (negotiated).
public struct DeviceConfiguration: Hashable, Sendable {
    public var sampleRate: SampleRate
    public var channels: Int
    /// Frames per period: the granularity in which the device consumes and the writer wakes.
    public var periodFrames: Int
    /// Frames the device can hold queued.
    public var bufferFrames: Int

    public init(sampleRate: SampleRate, channels: Int, periodFrames: Int = 256, bufferFrames: Int = 1024) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }
}

/// What a device can do beyond playing.
public struct DeviceCapabilities: Hashable, Sendable {
    /// `pause(_:)` stops and resumes consumption without losing queued frames.
    public var canPause: Bool
    /// `rewind(_:)` really discards queued frames (checked, not just reported).
    public var canRewind: Bool
    /// Its position readings are exact at their instants (PipeWire's, from each cycle's
    /// `pw_time`); otherwise they are floored to the device's step (ALSA's hardware pointer),
    /// and the clock reads them at the middle of the step it learns (`DevicePositionFilter`).
    public var exactPositions: Bool

    public init(canPause: Bool, canRewind: Bool, exactPositions: Bool = false) {
        self.canPause = canPause
        self.canRewind = canRewind
        self.exactPositions = exactPositions
    }
}

/// A position reading: how many frames the listener has heard, and when that was true.
public struct DevicePosition: Hashable, Sendable {
    /// Frames played since the last `prepare` (written minus delay).
    public var framesPlayed: FrameIndex
    /// The monotonic time of the reading.
    public var timestamp: MonotonicTime

    public init(framesPlayed: FrameIndex, timestamp: MonotonicTime) {
        self.framesPlayed = framesPlayed
        self.timestamp = timestamp
    }
}

/// Why a device call failed.
public enum DeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The queue ran dry (ALSA `-EPIPE`): `prepare()` then write again.
    case underrun
    /// The device was suspended (ALSA `-ESTRPIPE`): `prepare()` then write again.
    case suspended
    /// The device is gone (server killed, unplugged): the player must stop.
    case disconnected(String)
    /// A request the device cannot meet (channels, rate, pause without the capability, …).
    case unsupported(String)
    /// A call in the wrong state (write before open, …).
    case badState(String)

    public var description: String {
        switch self {
        case .underrun: return "underrun"
        case .suspended: return "suspended"
        case .disconnected(let why): return "device disconnected: \(why)"
        case .unsupported(let why): return "unsupported: \(why)"
        case .badState(let why): return "bad state: \(why)"
        }
    }
}

/// The seam between the engine and a sound device (as mpv's `ao_driver`): ALSA implements it for
/// real hardware, `SimulatedDevice` for tests and machines without sound.
///
/// Thread rules: after `open`, every call comes from the one thread that drives the device (the
/// player's real-time thread); implementations must make `write`, `availableFrames`, `position`,
/// `pause`, `rewind` real-time safe (no allocation, no locks another thread can hold long).
public protocol OutputDevice: AnyObject {
    /// Opens the device, returning the configuration it really runs at.
    func open(_ requested: DeviceConfiguration) throws(DeviceError) -> DeviceConfiguration
    var capabilities: DeviceCapabilities { get }
    /// Frames that can be written now without blocking.
    func availableFrames() throws(DeviceError) -> Int
    /// Queues whole interleaved frames; returns how many frames were taken (at most
    /// `availableFrames()`).
    func write(_ samples: UnsafeBufferPointer<Float>) throws(DeviceError) -> Int
    /// Frames written since the last `prepare`.
    var framesWritten: FrameIndex { get }
    /// The current position reading.
    func position() throws(DeviceError) -> DevicePosition
    /// Stops (true) or resumes (false) consumption, keeping what is queued.
    func pause(_ paused: Bool) throws(DeviceError)
    /// Discards up to `frames` of the most recently written, not yet played frames; returns how
    /// many were discarded (0 when the device cannot rewind).
    func rewind(_ frames: Int) throws(DeviceError) -> Int
    /// Discards everything queued and stops.
    func drop() throws(DeviceError)
    /// Makes the device ready to play again; counters restart at 0.
    func prepare() throws(DeviceError)
    func close()
    /// Descriptors a thread can sleep on until the device wants data (ALSA's poll descriptors, as
    /// mpv's audio output waits), valid from `open` until `close`. Empty for a device without
    /// them: the player then wakes by its timer. The waiter fills their `revents`.
    var pollDescriptors: UnsafeMutableBufferPointer<pollfd> { get }
    /// After a wait filled `pollDescriptors`' `revents`: true when the device wants data or has
    /// an error to report (the next call says which). Real-time safe.
    func wantsData() -> Bool
}

extension OutputDevice {
    public var pollDescriptors: UnsafeMutableBufferPointer<pollfd> { UnsafeMutableBufferPointer(start: nil, count: 0) }
    public func wantsData() -> Bool { true }
}

/// A device whose own real-time thread asks for each cycle's frames (PipeWire's process
/// callback, as mpv's and SDL's PipeWire outputs render): the engine's step runs there, writing
/// what `availableFrames` says the cycle needs, so a command is heard a cycle after it is sent
/// instead of behind a ring's fill (BENCHMARKS.md, trigger latency on PipeWire).
///
/// Thread rules: `startCallbacks`, `stopCallbacks` from the control thread that owns the engine;
/// `step` then runs on the device's thread, and every other call of `OutputDevice` comes from it,
/// except `checkAlive`, from the engine's own thread, which watches.
public protocol CallbackDevice: OutputDevice {
    /// From now on the device calls `step` once a cycle, before it takes the cycle's frames.
    func startCallbacks(_ step: @escaping () -> Void)
    /// No call of `step` runs or follows once this returns.
    func stopCallbacks()
    /// Throws the device's failure (gone, disconnected) without blocking: the device's thread
    /// stops calling when its stream ends, so another thread has to notice.
    func checkAlive() throws(DeviceError)
}
