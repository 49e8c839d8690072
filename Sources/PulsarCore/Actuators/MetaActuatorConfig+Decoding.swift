/// Reading an ACF: JSON5, then each section's fields with their ranges. Every field but
/// `metadata` is required; a key the reader does not know is a warning (Meta adds keys, and its
/// own reader ignores unknown ones).
extension MetaActuatorConfig {
    /// A config and the warnings reading it raised.
    public struct Loaded: Sendable {
        public var config: MetaActuatorConfig
        public var warnings: [ActuatorDiagnostic]
    }

    /// Largest ACF file read (Meta's are under 2 KiB).
    public static let maximumFileSize = 1 << 20

    /// Deepest nesting read (an ACF has three levels).
    public static let maximumDepth = 16

    /// Reads the ACF at `path`.
    public static func load(path: String) throws(ActuatorDiagnostic) -> Loaded {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: maximumFileSize)
        } catch {
            throw ActuatorDiagnostic(error.reason.isTooLarge ? .fileTooLarge : .unreadable, file: path, message: error.message)
        }
        return try decode(bytes, file: path)
    }

    /// Reads an ACF from bytes; `file` names it in diagnostics (`<input>` when nil).
    public static func decode(_ bytes: [UInt8], file: String? = nil) throws(ActuatorDiagnostic) -> Loaded {
        var (document, reader) = try parse(bytes, file: file)
        _ = try reader.object(document, "$")
        reader.warnUnknownMembers(of: document, known: ["metadata", "continuous", "emphasis"], "$")
        let config = try read(document, &reader)
        return Loaded(config: config, warnings: reader.warnings)
    }

    /// The JSON5 document of a config file and the reader that names its places.
    static func parse(_ bytes: [UInt8], file: String?) throws(ActuatorDiagnostic) -> (JSONValue, ACFFieldReader) {
        let reader = ACFFieldReader(file: file ?? "<input>", bytes: bytes)
        do {
            return (try JSON5Parser(maximumDepth: maximumDepth, maximumBytes: maximumFileSize).parse(bytes), reader)
        } catch {
            let (line, column) = reader.lines.position(of: error.offset)
            throw ActuatorDiagnostic(ActuatorRule(error.kind), file: reader.file, line: line, column: column,
                                     jsonPath: "$", message: error.message)
        }
    }

    /// The ACF's three sections of an object `document` (its other members are the caller's).
    static func read(_ document: JSONValue, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> MetaActuatorConfig {
        let metadata = try document["metadata"].map { v throws(ActuatorDiagnostic) in try readMetadata(v, &reader) }
        let continuous = try readContinuous(try reader.required("continuous", in: document, "$"), &reader)
        let emphasis = try readEmphasis(try reader.required("emphasis", in: document, "$"), &reader)
        return MetaActuatorConfig(metadata: metadata ?? Metadata(), continuous: continuous, emphasis: emphasis)
    }

    static func readMetadata(_ value: JSONValue, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> Metadata {
        let path = "$.metadata"
        _ = try reader.object(value, path)
        func text(_ key: String) throws(ActuatorDiagnostic) -> String? {
            guard let v = value[key] else { return nil }
            return try reader.string(v, "\(path).\(key)")
        }
        return Metadata(version: try text("version"), device: try text("device"), date: try text("date"), author: try text("author"))
    }

    private static func readContinuous(_ value: JSONValue, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> Continuous {
        let path = "$.continuous"
        _ = try reader.object(value, path)
        reader.warnUnknownMembers(of: value, known: ["gain", "emphasis_ducking", "frequency_min", "frequency_max", "ducking_ramp_ms"], path)
        let gain = try reader.number("gain", in: value, path, within: 0...1)
        let ducking = try reader.number("emphasis_ducking", in: value, path, within: 0...1)
        let low = try reader.hertz("frequency_min", in: value, path)
        let highValue = try reader.required("frequency_max", in: value, path)
        let high = try reader.hertz("frequency_max", in: value, path)
        guard low <= high else {
            throw reader.error(.valueOutOfRange, at: highValue, "\(path).frequency_max",
                               "\(JSONWriter.format(high)) Hz is below frequency_min (\(JSONWriter.format(low)) Hz)")
        }
        let ramp = value["ducking_ramp_ms"] == nil ? nil : try reader.number("ducking_ramp_ms", in: value, path, within: 0...1000)
        return Continuous(gain: gain, emphasisDucking: ducking, frequencyMin: low, frequencyMax: high, duckingRampMs: ramp)
    }

    private static func readEmphasis(_ value: JSONValue, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> Emphasis {
        let path = "$.emphasis"
        _ = try reader.object(value, path)
        reader.warnUnknownMembers(of: value, known: ["gain", "fade_out_percent", "frequency_min", "frequency_max", "band_limit_hz", "rise_ms"], path)
        let gain = try reader.number("gain", in: value, path, within: 0...1)
        let fade = try reader.number("fade_out_percent", in: value, path, within: 0...100)
        if fade > 0, fade <= 1, let v = value["fade_out_percent"] {
            reader.warn(.percentScale, at: v, "\(path).fade_out_percent",
                        "\(JSONWriter.format(fade)) is read as \(JSONWriter.format(fade)) % (0...100), as Meta's renderer reads it, not as a 0...1 fraction")
        }
        let low = try readEnd(try reader.required("frequency_min", in: value, path), "\(path).frequency_min", &reader)
        let highValue = try reader.required("frequency_max", in: value, path)
        let high = try readEnd(highValue, "\(path).frequency_max", &reader)
        guard low.outputFrequency <= high.outputFrequency else {
            throw reader.error(.valueOutOfRange, at: highValue["output_frequency"], "\(path).frequency_max.output_frequency",
                               "\(JSONWriter.format(high.outputFrequency)) Hz is below frequency_min.output_frequency (\(JSONWriter.format(low.outputFrequency)) Hz)")
        }
        var limit: Double?
        if let limitValue = value["band_limit_hz"] {
            let hertz = try reader.hertz("band_limit_hz", in: value, path)
            guard hertz >= high.outputFrequency else {
                throw reader.error(.valueOutOfRange, at: limitValue, "\(path).band_limit_hz",
                                   "\(JSONWriter.format(hertz)) Hz is below the bursts' own frequency (frequency_max.output_frequency \(JSONWriter.format(high.outputFrequency)) Hz)")
            }
            limit = hertz
        }
        let rise = value["rise_ms"] == nil ? nil : try reader.number("rise_ms", in: value, path, within: 0...Limits.maximumMilliseconds)
        return Emphasis(gain: gain, fadeOutPercent: fade, frequencyMin: low, frequencyMax: high, bandLimitHertz: limit, riseMs: rise)
    }

    private static func readEnd(_ value: JSONValue, _ path: String, _ reader: inout ACFFieldReader) throws(ActuatorDiagnostic) -> EmphasisEnd {
        _ = try reader.object(value, path)
        reader.warnUnknownMembers(of: value, known: ["output_frequency", "duration_ms", "shape"], path)
        let hertz = try reader.hertz("output_frequency", in: value, path)
        let durationValue = try reader.required("duration_ms", in: value, path)
        let duration = try reader.number("duration_ms", in: value, path, within: 0...Limits.maximumMilliseconds)
        guard duration > 0 else {
            throw reader.error(.valueOutOfRange, at: durationValue, "\(path).duration_ms", "0 must be more than 0 ms")
        }
        let shapeValue = try reader.required("shape", in: value, path)
        let name = try reader.string(shapeValue, "\(path).shape")
        guard let shape = Shape(rawValue: name) else {
            throw reader.error(.unknownShape, at: shapeValue, "\(path).shape",
                               "\"\(MessageText.excerpt(name, limit: 40))\" is not a shape: saw, sine, square or triangle")
        }
        return EmphasisEnd(outputFrequency: hertz, durationMs: duration, shape: shape)
    }
}

/// Typed access to a parsed ACF that turns every mismatch into an `ActuatorDiagnostic` naming
/// the file, line, column and key path (`$.emphasis.frequency_min.output_frequency`).
struct ACFFieldReader {
    let file: String
    let lines: SourceLines
    private(set) var warnings: [ActuatorDiagnostic] = []

    init(file: String, bytes: [UInt8]) {
        self.file = file
        self.lines = SourceLines(bytes)
    }

    func error(_ rule: ActuatorRule, at value: JSONValue?, _ path: String, _ message: String,
               severity: DiagnosticSeverity = .error) -> ActuatorDiagnostic {
        var line: Int?, column: Int?
        if let value { (line, column) = lines.position(of: value.offset) }
        return ActuatorDiagnostic(rule, severity: severity, file: file, line: line, column: column, jsonPath: path, message: message)
    }

    mutating func warn(_ rule: ActuatorRule, at value: JSONValue, _ path: String, _ message: String) {
        warnings.append(error(rule, at: value, path, message, severity: .warning))
    }

    func object(_ value: JSONValue, _ path: String) throws(ActuatorDiagnostic) -> [(key: String, value: JSONValue)] {
        guard let members = value.object else {
            throw error(.wrongType, at: value, path, "expected an object, found \(value.typeName)")
        }
        return members
    }

    func string(_ value: JSONValue, _ path: String) throws(ActuatorDiagnostic) -> String {
        guard let text = value.string else {
            throw error(.wrongType, at: value, path, "expected a string, found \(value.typeName)")
        }
        return text
    }

    /// The member `key` of `object`, or a missing-field error at the object naming the key's path.
    func required(_ key: String, in object: JSONValue, _ path: String) throws(ActuatorDiagnostic) -> JSONValue {
        guard let value = object[key] else {
            throw error(.missingField, at: object, "\(path).\(key)", "missing required field \"\(key)\"")
        }
        return value
    }

    /// The required number `key` of `object`, within `range`.
    func number(_ key: String, in object: JSONValue, _ path: String, within range: ClosedRange<Double>) throws(ActuatorDiagnostic) -> Double {
        let value = try required(key, in: object, path)
        guard let n = value.number else {
            throw error(.wrongType, at: value, "\(path).\(key)", "expected a number, found \(value.typeName)")
        }
        guard range.contains(n) else {
            throw error(.valueOutOfRange, at: value, "\(path).\(key)",
                        "\(JSONWriter.format(n)) must be in \(JSONWriter.format(range.lowerBound))...\(JSONWriter.format(range.upperBound))")
        }
        return n
    }

    /// The required frequency `key` of `object`: more than 0 Hz.
    func hertz(_ key: String, in object: JSONValue, _ path: String) throws(ActuatorDiagnostic) -> Double {
        let n = try number(key, in: object, path, within: 0...Double.greatestFiniteMagnitude)
        guard n > 0 else {
            throw error(.valueOutOfRange, at: object[key], "\(path).\(key)", "0 Hz: a frequency must be more than 0 Hz")
        }
        return n
    }

    /// Warns once per member of `object` outside `known`.
    mutating func warnUnknownMembers(of object: JSONValue, known: Set<String>, _ path: String) {
        guard let members = object.object else { return }
        for member in members where !known.contains(member.key) {
            warn(.unknownField, at: member.value, "\(path).\(member.key)", "unknown field ignored")
        }
    }
}
