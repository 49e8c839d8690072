/// One actuator as data (docs/actuators.md, "The config format"): how a design's amplitude,
/// frequency and transients become the drive of one device, and the figures `pulsar lint`
/// judges a design against. One file per actuator, JSON5: Meta's ACF read as it is (the `burst`
/// model), or this project's `envelope` model — today's signal model (docs/signal-model.md)
/// through a band and a gain, which is what `--profile` gives.
///
/// A plain value type: safe to use from any thread.
public struct Actuator: Hashable, Sendable {
    /// What renders the design.
    public enum Model: Hashable, Sendable {
        /// docs/signal-model.md: the carrier and §5's transients, through this profile.
        case envelope(ActuatorProfile)
        /// Meta's renderer through an ACF (docs/actuators.md, "Rendering through a Meta actuator config").
        case burst(MetaActuatorConfig)
    }

    /// What the device can do, for the lint (docs/actuators.md, "Lint"). Each nil when the
    /// config states no figure: its rule is then not checked.
    public struct Limits: Hashable, Sendable {
        /// `rise_ms`: how long the device takes from rest to full motion. A transient shorter
        /// than this, or an amplitude change of the whole range faster, is not followed.
        public var riseMs: Double?
        /// `separation_ms`: transients closer than this are felt as one.
        public var separationMs: Double?
        /// `sustained_rms` (0…1, of full scale) over `sustained_window_ms`: the drive the device
        /// takes for long (heat, a rated power).
        public var sustainedRMS: Double?
        public var sustainedWindowMs: Double

        public static let defaultSustainedWindowMs = 1000.0

        public init(riseMs: Double? = nil, separationMs: Double? = nil, sustainedRMS: Double? = nil,
                    sustainedWindowMs: Double = defaultSustainedWindowMs) {
            self.riseMs = riseMs
            self.separationMs = separationMs
            self.sustainedRMS = sustainedRMS
            self.sustainedWindowMs = sustainedWindowMs
        }
    }

    /// The file's name without `.acf` (or the profile's, for one built from `--profile`).
    public var name: String
    public var metadata: MetaActuatorConfig.Metadata
    /// `resonance_hz`, informational (an `envelope` config without a band takes ±10 % of it).
    public var resonanceHertz: Double?
    /// `laws.amplitude` and `laws.frequency`: how a `.haptic` clip's values are read (default
    /// `sqrt` for `envelope`, Lofelt's iOS mapping; `linear` for `burst`, Meta's).
    public var amplitudeLaw: ActuatorLaw
    public var frequencyLaw: ActuatorLaw
    public var model: Model
    public var limits: Limits
    /// The file it was read from (nil for one built from a `--profile`): what a session log
    /// names, so that a replay reads the same config.
    public var source: String?
    /// `--gain` on a burst actuator; nil is 1.
    private var burstGain: Double?

    public init(name: String, metadata: MetaActuatorConfig.Metadata = .init(), resonanceHertz: Double? = nil,
                amplitudeLaw: ActuatorLaw, frequencyLaw: ActuatorLaw, model: Model, limits: Limits = Limits()) {
        self.name = name
        self.metadata = metadata
        self.resonanceHertz = resonanceHertz
        self.amplitudeLaw = amplitudeLaw
        self.frequencyLaw = frequencyLaw
        self.model = model
        self.limits = limits
    }

    /// A `--profile` as an actuator: the envelope model and the `.haptic` import's √ laws.
    public init(profile: ActuatorProfile) {
        self.init(name: profile.name, amplitudeLaw: .sqrt, frequencyLaw: .sqrt, model: .envelope(profile))
    }

    /// The burst model's config, nil for the envelope model.
    public var burstConfig: MetaActuatorConfig? {
        if case .burst(let config) = model { return config }
        return nil
    }

    /// The signal model's profile of this actuator: its own (envelope), or the ACF's carrier band
    /// at gain 1 (burst) — what a command that has the signal model alone (derive, follow, the
    /// realtime mode) uses.
    public var profile: ActuatorProfile {
        switch model {
        case .envelope(let profile): return profile
        case .burst(let config):
            return ActuatorProfile.named(minimumHertz: config.continuous.frequencyMin, maximumHertz: config.continuous.frequencyMax,
                                         gain: burstGain ?? 1)
        }
    }

    /// The signal model's gain on this actuator's render (`--gain`): the envelope profile's gain,
    /// or a factor on a burst render (1 leaves Meta's render as it is).
    public var gain: Double {
        get { burstGain ?? profile.gain }
        set {
            switch model {
            case .envelope(var p):
                p.gain = newValue
                model = .envelope(p)
            case .burst: burstGain = newValue
            }
        }
    }

    /// Why the actuator cannot be rendered at `rate`, or nil when it can.
    public func problem(at rate: SampleRate) -> String? {
        switch model {
        case .envelope(let profile): return profile.problem(at: rate)
        case .burst(let config): return config.problem(at: rate)
        }
    }

    /// What the envelope model renders of a loaded pattern: a `.haptic` clip through the laws,
    /// any other format as written.
    public func pattern(of loaded: LoadedPattern) -> PatternData {
        guard let clip = loaded.lofeltClip, amplitudeLaw != .sqrt || frequencyLaw != .sqrt else { return loaded.pattern }
        return clip.pattern(amplitude: amplitudeLaw, frequency: frequencyLaw)
    }

    /// What the burst model renders of a loaded pattern (`clip(pattern:lofeltClip:through:)`).
    public func clip(of loaded: LoadedPattern, through config: MetaActuatorConfig) -> LofeltClip {
        clip(pattern: loaded.pattern, lofeltClip: loaded.lofeltClip, through: config)
    }

    /// One line: the model, the band, the transient, the device.
    public var summary: String {
        switch model {
        case .envelope(let p):
            var line = String(printf: "envelope %g–%g Hz", p.minimumHertz, p.maximumHertz)
            if p.gain != 1 { line += String(printf: " gain %g", p.gain) }
            line += "; transients: the carrier under a 4 ms rise (signal-model §5)"
            return line + tail
        case .burst(let c):
            let low = c.emphasis.frequencyMin, high = c.emphasis.frequencyMax
            var line = String(printf: "burst    %g–%g Hz", c.continuous.frequencyMin, c.continuous.frequencyMax)
            line += "; bursts " + String(printf: "%g Hz %g ms ", low.outputFrequency, low.durationMs) + low.shape.rawValue
            line += " → " + String(printf: "%g Hz %g ms ", high.outputFrequency, high.durationMs) + high.shape.rawValue
            if let limit = c.emphasis.bandLimitHertz { line += String(printf: " band-limited to %g Hz", limit) }
            if let rise = c.emphasis.riseMs { line += String(printf: " rising over %g ms", rise) }
            line += String(printf: ", ducking %g", c.continuous.emphasisDucking)
            if let ramp = c.continuous.duckingRampMs { line += String(printf: " over %g ms", ramp) }
            return line + tail
        }
    }

    private var tail: String {
        var parts: [String] = []
        if amplitudeLaw != frequencyLaw || amplitudeLaw != (burstConfig == nil ? .sqrt : .linear) {
            parts.append("laws " + amplitudeLaw.rawValue + "/" + frequencyLaw.rawValue)
        }
        var figures: [String] = []
        if let rise = limits.riseMs { figures.append(String(printf: "rise %g ms", rise)) }
        if let gap = limits.separationMs { figures.append(String(printf: "taps ≥ %g ms apart", gap)) }
        if let rms = limits.sustainedRMS { figures.append(String(printf: "RMS ≤ %g over %g ms", rms, limits.sustainedWindowMs)) }
        if !figures.isEmpty { parts.append("limits: " + figures.joined(separator: ", ")) }
        if let device = metadata.device { parts.append(MessageText.excerpt(device, limit: 60)) }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: "; ")
    }
}

extension ActuatorProfile {
    /// The profile of a band as `--profile` names it: `wideband` for 60–300 Hz, else `FMIN:FMAX`.
    public static func named(minimumHertz: Double, maximumHertz: Double, gain: Double = 1) -> ActuatorProfile {
        let name = minimumHertz == 60 && maximumHertz == 300
            ? "wideband" : "\(JSONWriter.format(minimumHertz)):\(JSONWriter.format(maximumHertz))"
        return ActuatorProfile(name: name, minimumHertz: minimumHertz, maximumHertz: maximumHertz, gain: gain)
    }
}
