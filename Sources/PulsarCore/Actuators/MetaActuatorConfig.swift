/// An actuator configuration file (ACF) of Meta's Haptics SDK: how a normalised haptic design
/// (amplitude, frequency and emphasis values in 0…1) becomes a drive signal for one actuator
/// (docs/actuators.md, "Meta's ACF"). The numbers are as written in the file, checked against
/// the ranges below; `metadata` is informational.
///
/// `Actuator` reads it (as the `burst` model) beside this project's own configs.
///
/// A plain value type: safe to use from any thread.
public struct MetaActuatorConfig: Hashable, Sendable {
    /// Informational strings (`version`, `device`, `date`, `author`), each nil when absent.
    public struct Metadata: Hashable, Sendable {
        public var version: String?
        public var device: String?
        public var date: String?
        public var author: String?

        public init(version: String? = nil, device: String? = nil, date: String? = nil, author: String? = nil) {
            self.version = version
            self.device = device
            self.date = date
            self.author = author
        }
    }

    /// The `continuous` section: the carrier, a sine whose frequency and amplitude follow the
    /// design's curves linearly.
    public struct Continuous: Hashable, Sendable {
        /// `gain`, 0…1: multiplies the amplitude.
        public var gain: Double
        /// `emphasis_ducking`, 0…1: a further gain on the carrier while an emphasis sounds
        /// (1 leaves it, 0 silences it).
        public var emphasisDucking: Double
        /// `frequency_min` and `frequency_max`, Hz, `0 < min <= max`: frequency 0 and 1.
        public var frequencyMin: Double
        public var frequencyMax: Double
        /// `ducking_ramp_ms` (this project's, not Meta's): the carrier's gain moves to
        /// `emphasis_ducking` linearly over this many ms from a burst's start, and back to 1 over
        /// as many from its end; nil steps at once, as Meta does (a step of the carrier clicks).
        public var duckingRampMs: Double?

        public init(gain: Double, emphasisDucking: Double, frequencyMin: Double, frequencyMax: Double, duckingRampMs: Double? = nil) {
            self.gain = gain
            self.emphasisDucking = emphasisDucking
            self.frequencyMin = frequencyMin
            self.frequencyMax = frequencyMax
            self.duckingRampMs = duckingRampMs
        }

        /// The carrier's frequency in Hz at a design frequency `f` (0…1): linear in `f`.
        public func hertz(at f: Double) -> Double {
            frequencyMin + f * (frequencyMax - frequencyMin)
        }
    }

    /// The waveform of an emphasis burst, one period with phase 0…1.
    public enum Shape: String, Hashable, Sendable, CaseIterable {
        /// A descending ramp from 1 to −1.
        case saw
        case sine
        /// 1 for the first half period, −1 for the second.
        case square
        /// A triangle starting with its rising part.
        case triangle
    }

    /// One end of the emphasis range (`frequency_min` or `frequency_max`).
    public struct EmphasisEnd: Hashable, Sendable {
        /// `output_frequency`, Hz, > 0.
        public var outputFrequency: Double
        /// `duration_ms`, ms, > 0.
        public var durationMs: Double
        /// `shape`.
        public var shape: Shape

        public init(outputFrequency: Double, durationMs: Double, shape: Shape) {
            self.outputFrequency = outputFrequency
            self.durationMs = durationMs
            self.shape = shape
        }
    }

    /// The `emphasis` section: each emphasis is a burst of an oscillator whose frequency, length
    /// and shape slide between the two ends with the emphasis's frequency value.
    public struct Emphasis: Hashable, Sendable {
        /// `gain`, 0…1: multiplies the emphasis amplitude.
        public var gain: Double
        /// `fade_out_percent`, 0…100: the burst's gain falls linearly over its length to
        /// `1 − fade_out_percent / 100` of its start.
        public var fadeOutPercent: Double
        /// `frequency_min` (emphasis frequency 0) and `frequency_max` (emphasis frequency 1);
        /// `frequencyMin.outputFrequency <= frequencyMax.outputFrequency`.
        public var frequencyMin: EmphasisEnd
        public var frequencyMax: EmphasisEnd
        /// `band_limit_hz` (this project's, not Meta's): bursts drawn band-limited — their sine
        /// series cut above this frequency (`BurstWaveform`); nil draws them whole, as Meta does.
        /// At least the highest burst frequency.
        public var bandLimitHertz: Double?
        /// `rise_ms` (this project's, not Meta's): each burst's gain rises as a raised cosine over
        /// this many ms from its first sample; nil starts it at full gain, as Meta does.
        public var riseMs: Double?

        public init(gain: Double, fadeOutPercent: Double, frequencyMin: EmphasisEnd, frequencyMax: EmphasisEnd,
                    bandLimitHertz: Double? = nil, riseMs: Double? = nil) {
            self.gain = gain
            self.fadeOutPercent = fadeOutPercent
            self.frequencyMin = frequencyMin
            self.frequencyMax = frequencyMax
            self.bandLimitHertz = bandLimitHertz
            self.riseMs = riseMs
        }

        /// The burst of an emphasis with frequency value `f` (0…1), as Meta's renderer draws it.
        public func burst(at f: Double) -> Burst {
            Burst(hertz: frequencyMin.outputFrequency + f * (frequencyMax.outputFrequency - frequencyMin.outputFrequency),
                  durationMs: frequencyMin.durationMs + f * (frequencyMax.durationMs - frequencyMin.durationMs),
                  minimumShapeWeight: 1 - f, maximumShapeWeight: f,
                  endGain: 1 - fadeOutPercent / 100)
        }
    }

    /// One emphasis burst: its frequency, its length, the cross-fade of the two shapes
    /// (`minimumShapeWeight · shape_min + maximumShapeWeight · shape_max`) and the gain it fades to
    /// (relative to its start, `gain · amplitude`).
    public struct Burst: Hashable, Sendable {
        public var hertz: Double
        public var durationMs: Double
        public var minimumShapeWeight: Double
        public var maximumShapeWeight: Double
        public var endGain: Double
    }

    public var metadata: Metadata
    public var continuous: Continuous
    public var emphasis: Emphasis

    public init(metadata: Metadata = Metadata(), continuous: Continuous, emphasis: Emphasis) {
        self.metadata = metadata
        self.continuous = continuous
        self.emphasis = emphasis
    }

    /// The highest frequency the config asks for, Hz.
    public var highestHertz: Double {
        max(continuous.frequencyMax, emphasis.frequencyMax.outputFrequency, emphasis.frequencyMin.outputFrequency)
    }

    /// Why the config cannot be rendered at a rate, or nil when it can: every frequency must lie
    /// below half the rate (Meta's renderer asserts `sample_rate > frequency_max`).
    public func problem(at rate: SampleRate) -> String? {
        guard highestHertz < Double(rate.hertz) / 2 else {
            return "the highest frequency \(JSONWriter.format(highestHertz)) Hz must be below half the sample rate (\(rate.hertz / 2) Hz)"
        }
        return nil
    }
}
