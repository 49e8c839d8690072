/// Reading an actuator config (docs/actuators.md, "The config format"): the JSON5 document, its
/// `model` (`burst`, the default: Meta's ACF sections as Meta's reader takes them; or
/// `envelope`), and this project's top-level keys `resonance_hz`, `laws` and `limits`.
extension Actuator {
    /// An actuator and the warnings reading it raised.
    public struct Loaded: Sendable {
        public var actuator: Actuator
        public var warnings: [ActuatorDiagnostic]
    }

    /// Reads the config at `path`; its name is the file's without `.acf`.
    public static func load(path: String) throws(ActuatorDiagnostic) -> Loaded {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: MetaActuatorConfig.maximumFileSize)
        } catch {
            throw ActuatorDiagnostic(error.reason.isTooLarge ? .fileTooLarge : .unreadable, file: path, message: error.message)
        }
        var loaded = try decode(bytes, file: path, name: PathText.stem(path))
        loaded.actuator.source = path
        return loaded
    }

    /// Reads a config from bytes; `file` names it in diagnostics (`<input>` when nil).
    public static func decode(_ bytes: [UInt8], file: String? = nil, name: String) throws(ActuatorDiagnostic) -> Loaded {
        var (document, reader) = try MetaActuatorConfig.parse(bytes, file: file)
        _ = try reader.object(document, "$")
        reader.warnUnknownMembers(of: document, known: ["metadata", "continuous", "emphasis", "model", "resonance_hz", "laws", "limits"], "$")
        var envelope = false
        if let value = document["model"] {
            let text = try reader.string(value, "$.model")
            guard text == "envelope" || text == "burst" else {
                throw reader.error(.unknownModel, at: value, "$.model", "\"\(MessageText.excerpt(text, limit: 40))\" is not a model: envelope or burst")
            }
            envelope = text == "envelope"
        }
        let resonance = document["resonance_hz"] == nil ? nil : try reader.hertz("resonance_hz", in: document, "$")
        let law: ActuatorLaw = envelope ? .sqrt : .linear
        let laws = try document["laws"].map { v throws(ActuatorDiagnostic) in try readLaws(v, default: law, &reader) } ?? (law, law)
        let limits = try document["limits"].map { v throws(ActuatorDiagnostic) in try readLimits(v, &reader) } ?? Limits()
        let model: Model
        let metadata: MetaActuatorConfig.Metadata
        if envelope {
            metadata = try document["metadata"].map { v throws(ActuatorDiagnostic) in try MetaActuatorConfig.readMetadata(v, &reader) } ?? .init()
            model = .envelope(try readEnvelope(document, resonance: resonance, &reader))
        } else {
            let config = try MetaActuatorConfig.read(document, &reader)
            metadata = config.metadata
            model = .burst(config)
        }
        let actuator = Actuator(name: name, metadata: metadata, resonanceHertz: resonance, amplitudeLaw: laws.0, frequencyLaw: laws.1,
                                model: model, limits: limits)
        return Loaded(actuator: actuator, warnings: reader.warnings)
    }

    /// The envelope model's `continuous {gain, frequency_min, frequency_max}`: the band given, or
    /// ±10 % of `resonance_hz` as `--profile lra:HZ` makes it; gain 1 unless given (0 < g ≤ 16).
    private static func readEnvelope(_ document: JSONValue, resonance: Double?, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> ActuatorProfile {
        let path = "$.continuous"
        if let emphasis = document["emphasis"] {
            reader.warn(.unknownField, at: emphasis, "$.emphasis", "ignored by the envelope model (its transients are signal-model §5's)")
        }
        let section = try document["continuous"].map { v throws(ActuatorDiagnostic) in _ = try reader.object(v, path); return v }
        if let section { reader.warnUnknownMembers(of: section, known: ["gain", "frequency_min", "frequency_max"], path) }
        var gain = 1.0
        if let section, let value = section["gain"] {
            gain = try reader.number("gain", in: section, path, within: 0...16)
            guard gain > 0 else { throw reader.error(.valueOutOfRange, at: value, "\(path).gain", "0 must be more than 0") }
        }
        if let section, section["frequency_min"] != nil || section["frequency_max"] != nil {
            let low = try reader.hertz("frequency_min", in: section, path)
            let high = try reader.hertz("frequency_max", in: section, path)
            guard low <= high else {
                throw reader.error(.valueOutOfRange, at: section["frequency_max"], "\(path).frequency_max",
                                   "\(JSONWriter.format(high)) Hz is below frequency_min (\(JSONWriter.format(low)) Hz)")
            }
            return ActuatorProfile.named(minimumHertz: low, maximumHertz: high, gain: gain)
        }
        guard let resonance else {
            throw reader.error(.missingField, at: section ?? document, "\(path).frequency_min",
                               "missing required field \"frequency_min\" (or a top-level \"resonance_hz\" for ±10 % of it)")
        }
        var profile = ActuatorProfile.lra(resonance: resonance)
        profile.gain = gain
        return profile
    }

    /// `laws {amplitude, frequency}`, each `linear` or `sqrt`, `fallback` when absent.
    private static func readLaws(_ value: JSONValue, default fallback: ActuatorLaw,
                                 _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> (ActuatorLaw, ActuatorLaw) {
        let path = "$.laws"
        _ = try reader.object(value, path)
        reader.warnUnknownMembers(of: value, known: ["amplitude", "frequency"], path)
        func law(_ key: String) throws(ActuatorDiagnostic) -> ActuatorLaw {
            guard let v = value[key] else { return fallback }
            let text = try reader.string(v, "\(path).\(key)")
            guard let law = ActuatorLaw(rawValue: text) else {
                throw reader.error(.unknownLaw, at: v, "\(path).\(key)", "\"\(MessageText.excerpt(text, limit: 40))\" is not a law: linear or sqrt")
            }
            return law
        }
        return (try law("amplitude"), try law("frequency"))
    }

    /// `limits {rise_ms, separation_ms, sustained_rms, sustained_window_ms}`, each optional.
    private static func readLimits(_ value: JSONValue, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> Limits {
        let path = "$.limits"
        _ = try reader.object(value, path)
        reader.warnUnknownMembers(of: value, known: ["rise_ms", "separation_ms", "sustained_rms", "sustained_window_ms"], path)
        func number(_ key: String, _ range: ClosedRange<Double>, positive: Bool) throws(ActuatorDiagnostic) -> Double? {
            guard let v = value[key] else { return nil }
            let n = try reader.number(key, in: value, path, within: range)
            guard !positive || n > 0 else { throw reader.error(.valueOutOfRange, at: v, "\(path).\(key)", "0 must be more than 0") }
            return n
        }
        var limits = Limits(riseMs: try number("rise_ms", 0...1000, positive: true),
                            separationMs: try number("separation_ms", 0...1000, positive: true),
                            sustainedRMS: try number("sustained_rms", 0...1, positive: true))
        if let window = try number("sustained_window_ms", 10...600_000, positive: true) { limits.sustainedWindowMs = window }
        return limits
    }
}
