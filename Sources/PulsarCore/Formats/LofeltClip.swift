/// A Lofelt / Meta `.haptic` clip as its file states it: times in seconds, amplitudes,
/// frequencies and emphases as written — no √ mapping, no ducking, no merging of two emphases
/// at one time. `LofeltCodec` reads it while it maps the clip to a `PatternData`; Meta's
/// renderer reads these values (docs/actuators.md, "Rendering through a Meta actuator config").
///
/// A plain value type: safe to use from any thread.
public struct LofeltClip: Hashable, Sendable {
    /// An amplitude breakpoint's `emphasis`.
    public struct Emphasis: Hashable, Sendable {
        public var amplitude: Double
        public var frequency: Double

        public init(amplitude: Double, frequency: Double) {
            self.amplitude = amplitude
            self.frequency = frequency
        }
    }

    /// A point of `signals.continuous.envelopes.amplitude`.
    public struct AmplitudePoint: Hashable, Sendable {
        /// Seconds.
        public var time: Double
        public var amplitude: Double
        public var emphasis: Emphasis?

        public init(time: Double, amplitude: Double, emphasis: Emphasis? = nil) {
            self.time = time
            self.amplitude = amplitude
            self.emphasis = emphasis
        }
    }

    /// A point of `signals.continuous.envelopes.frequency`.
    public struct FrequencyPoint: Hashable, Sendable {
        /// Seconds.
        public var time: Double
        public var frequency: Double

        public init(time: Double, frequency: Double) {
            self.time = time
            self.frequency = frequency
        }
    }

    public var amplitude: [AmplitudePoint]
    /// Empty when the clip has no frequency envelope.
    public var frequency: [FrequencyPoint]

    public init(amplitude: [AmplitudePoint] = [], frequency: [FrequencyPoint] = []) {
        self.amplitude = amplitude
        self.frequency = frequency
    }
}
