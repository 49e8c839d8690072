import PulsarALSA
import PulsarEngine
import PulsarPipeWire

/// The defaults and rules every front end applies to a session's devices, defined once.
public enum SessionPolicy {
    /// Frames per period when none is asked: 128 on a sound device (2.7 ms at 48 kHz; a command
    /// is heard within about a period of the server's own quantum plus 1.33 ms), 256 on the
    /// simulated device.
    public static func defaultPeriod(simulated: Bool) -> Int { simulated ? 256 : 128 }
    public static let periodRange = 16...16_384
    /// The buffer when none is asked: this many periods.
    public static let defaultBufferPeriods = 4
    /// The buffers a period allows: 2 to 64 periods.
    public static func bufferRange(period: Int) -> ClosedRange<Int> { (period * 2)...(period * 64) }
    /// Voices playing at once when no limit is asked, and the limits allowed.
    public static let defaultVoiceLimit = 32
    public static let voiceLimitRange = 1...128
    /// A device's latency, each device's own (two-device sessions), in milliseconds.
    public static let latencyMillisecondsRange = 0.0...1000.0

    /// Whether the engine's real-time thread asks for `SCHED_FIFO`: when either device is a sound
    /// device (ALSA, or a PipeWire stream's ring), whose buffer a late wake-up underruns; not for
    /// simulated devices alone.
    public static func wantsRealtime(main: OutputDevice, haptic: OutputDevice?) -> Bool {
        [main, haptic].contains { $0 is ALSADevice || $0 is PipeWireDevice }
    }

    /// What paces the engine's steps: a PipeWire stream alone renders in its process callback
    /// (a command is heard within about a quantum; docs/decisions.md, "PipeWire"); everything else,
    /// two devices included, by the engine's own timer.
    public static func wakeSource(main: OutputDevice, haptic: OutputDevice?) -> HapticEngine.WakeSource {
        main is PipeWireDevice && haptic == nil ? .callback : .timer
    }
}
