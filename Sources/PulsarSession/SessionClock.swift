import PulsarEngine
import PulsarSimulation

/// The clock a session runs on, and what its simulated devices keep: a front end's whole say in
/// how devices are made. The session layer makes every device from its spec (`DeviceSpec`) and
/// this choice — a simulated one paced by `monotonic` (the system's clock, or a test's
/// `ManualClock`), recording `recordingFrames` when asked to record.
public struct SessionClock: @unchecked Sendable {
    public let monotonic: MonotonicClock
    /// Frames a simulated device keeps of what it plays (for `sim:record=`, a log, a replay
    /// check); 0: its spec's own choice.
    public var recordingFrames: Int

    public init(_ monotonic: MonotonicClock = SystemMonotonicClock(), recordingFrames: Int = 0) {
        self.monotonic = monotonic
        self.recordingFrames = recordingFrames
    }

    /// The simulated device a spec's `behaviour` describes, on this clock.
    func simulated(_ behaviour: SimulatedDevice.Behaviour) -> SimulatedDevice {
        var b = behaviour
        if recordingFrames > 0 { b.recordingCapacity = recordingFrames }
        return SimulatedDevice(clock: monotonic, behaviour: b)
    }
}
