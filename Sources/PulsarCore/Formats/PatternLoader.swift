import Glibc

/// A pattern read from a file, with the format it was in and the warnings about what was
/// normalised on the way.
public struct LoadedPattern: Sendable {
    public var pattern: PatternData
    public var format: PatternFormat
    public var warnings: [PatternDiagnostic]
    /// True when the file's times were read as seconds and scaled to milliseconds.
    public var scaledFromSeconds: Bool
    /// For a `.haptic` file, the clip's values as written (what Meta's renderer reads); nil
    /// for the other formats.
    public var lofeltClip: LofeltClip? = nil
}

/// How the loader reads the times of Pulsar JSON files (AHAP and `.haptic` are seconds by spec).
public enum TimeUnitPolicy: String, Sendable, CaseIterable {
    /// Milliseconds, unless the times look like seconds (see `PatternLoader.looksLikeSeconds`).
    case automatic = "auto"
    case milliseconds = "ms"
    case seconds = "s"
}

/// Reads pattern files of every supported format into a validated `PatternData`, or fails with
/// one `PatternDiagnostic` that names the file, line, column, JSON path and rule.
///
/// Stateless apart from its settings: safe to use from any thread. Does file I/O: never call it
/// from the real-time path.
public struct PatternLoader: Sendable {
    /// Largest file accepted, in bytes (64 MiB).
    public var maximumFileSize: Int = 64 << 20
    /// Limits on the pattern itself.
    public var validator = PatternValidator()
    public var timeUnit: TimeUnitPolicy = .automatic

    public init(timeUnit: TimeUnitPolicy = .automatic) {
        self.timeUnit = timeUnit
    }

    /// Loads `path`, choosing the format by extension and then by content.
    public func load(contentsOf path: String) throws(PatternDiagnostic) -> LoadedPattern {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: maximumFileSize)
        } catch {
            switch error.reason {
            case .missing:
                throw PatternDiagnostic(.error, .missingInput, file: path, message: "no such file")
            case .directory:
                throw PatternDiagnostic(.error, .missingInput, file: path, message: "is a directory, not a pattern file")
            case .tooLarge:
                throw PatternDiagnostic(.error, .fileTooLarge, file: path, message: error.message + " (64 MiB)")
            case .special, .unreadable:
                throw PatternDiagnostic(.error, .unreadable, file: path, message: error.message)
            }
        }
        return try decode(bytes, file: path, format: PatternFormat.forPath(path))
    }

    /// Decodes a document already in memory. `format` nil means: decide by content.
    public func decode(_ bytes: [UInt8], file: String? = nil, format: PatternFormat? = nil) throws(PatternDiagnostic) -> LoadedPattern {
        // Canonical wire JSON that breaks no rule and draws no warning takes the tree-free path;
        // anything else — including every error — goes the general way, which says where.
        if format == .pulsarJSON || format == nil,
           let fast = WireFastDecoder.decode(bytes, maximumPoints: validator.maximumPoints) {
            var pattern = fast
            var warnings: [PatternDiagnostic] = []
            var scaled = false
            switch timeUnit {
            case .seconds: scaled = true
            case .automatic where Self.looksLikeSeconds(fast): scaled = true
            case .automatic where fast.lastPointTime > 0 && fast.lastPointTime <= Self.shortPatternThreshold:
                warnings.append(PatternDiagnostic(.warning, .shortPattern, file: file, path: "$", message: ""))
            default: break
            }
            if scaled { pattern = Self.scaled(fast, by: 1000) }
            if !scaled, warnings.isEmpty, (try? validator.validate(pattern))?.isEmpty == true {
                return LoadedPattern(pattern: pattern, format: .pulsarJSON, warnings: [], scaledFromSeconds: false)
            }
        }
        return try decodeGeneral(bytes, file: file, format: format)
    }

    func decodeGeneral(_ bytes: [UInt8], file: String?, format: PatternFormat?) throws(PatternDiagnostic) -> LoadedPattern {
        var reader = JSONFieldReader(file: file, bytes: bytes)
        let parser = JSONParser(allowsTrailingCommas: format == .ahap || format == nil)
        let document: JSONValue
        do {
            document = try parser.parse(bytes)
        } catch {
            let (line, column) = reader.lines.position(of: error.offset)
            throw PatternDiagnostic(.error, error.isNonFiniteNumber ? .nonFinite : .malformedJSON, file: file,
                                    line: line, column: column, path: "$", message: error.message)
        }
        guard let sniffed = PatternFormat.sniff(document) else {
            throw reader.error(.unknownFormat, at: document, "$",
                               "not a haptic pattern: expected Pulsar JSON (continuousPattern/discretePattern or line/bar), AHAP (Pattern) or Lofelt (signals)")
        }
        var actual = format ?? sniffed
        if actual == .pulsarJSON && sniffed == .pulsarRaw { actual = .pulsarRaw }
        if actual != sniffed {
            throw reader.error(.unknownFormat, at: document, "$",
                               "the file name says \(actual.displayName) but the content is \(sniffed.displayName)")
        }
        let limit = validator.maximumPoints
        var decoded: DecodedPattern
        switch actual {
        case .pulsarJSON: decoded = try PulsarJSONCodec.decodeWire(document, reader: &reader, maximumPoints: limit)
        case .pulsarRaw: decoded = try PulsarJSONCodec.decodeRaw(document, reader: &reader, maximumPoints: limit)
        case .ahap: decoded = try AHAPCodec.decode(document, reader: &reader, maximumPoints: limit)
        case .lofelt: decoded = try LofeltCodec.decode(document, reader: &reader, maximumPoints: limit)
        }
        var warnings = reader.warnings

        var scaled = false
        if actual == .pulsarJSON || actual == .pulsarRaw {
            let last = decoded.pattern.lastPointTime
            switch timeUnit {
            case .seconds:
                scaled = true
            case .automatic where Self.looksLikeSeconds(decoded.pattern):
                scaled = true
                warnings.append(PatternDiagnostic(.warning, .secondsAsMilliseconds, file: file, path: "$",
                    message: "times look like seconds (the latest is \(JSONWriter.format(last)), with fractions): read as seconds; pass --time-unit ms to keep milliseconds"))
            case .automatic where last > 0 && last <= Self.shortPatternThreshold:
                warnings.append(PatternDiagnostic(.warning, .shortPattern, file: file, path: "$",
                    message: "the pattern lasts only \(JSONWriter.format(last)) ms; if its times are seconds pass --time-unit s"))
            default:
                break
            }
            if scaled { decoded.pattern = Self.scaled(decoded.pattern, by: 1000) }
        }

        let lines = reader.lines
        let locate = decoded.locate
        let warningsFromValidation = try validator.validate(decoded.pattern) { rule, location, message in
            guard let location else { return PatternDiagnostic(.error, rule, file: file, path: "$", message: message) }
            let (path, value) = locate(location)
            var line: Int?, column: Int?
            if let value { (line, column) = lines.position(of: value.offset) }
            return PatternDiagnostic(.error, rule, file: file, line: line, column: column, path: path, message: message)
        }
        warnings += warningsFromValidation
        return LoadedPattern(pattern: decoded.pattern, format: actual, warnings: warnings, scaledFromSeconds: scaled,
                             lofeltClip: decoded.lofeltClip)
    }

    /// Latest time (in the file's unit) up to which a pattern with fractional times is taken to be
    /// written in seconds: a Pulsar pattern of at most 30 ms with sub-millisecond times does not
    /// occur, while Pulsar's documentation writes whole patterns in seconds (0.149, 0.65).
    public static let secondsThreshold: Double = 30

    /// Latest time (ms) at or below which a pattern with whole times draws a `short-pattern`
    /// warning: a pattern written in seconds with whole times (`0, 1, 2`) looks like this. Real
    /// millisecond presets are longer (the shortest corpus preset with a curve lasts 28 ms).
    public static let shortPatternThreshold: Double = 10

    /// True when every time is at most `secondsThreshold`, the latest is above 0 and at least one
    /// time has a fractional part.
    public static func looksLikeSeconds(_ pattern: PatternData) -> Bool {
        let last = pattern.lastPointTime
        guard last > 0, last <= secondsThreshold else { return false }
        let times = pattern.continuousPattern.amplitude.map(\.time) + pattern.continuousPattern.frequency.map(\.time)
            + pattern.discretePattern.map(\.time)
        return times.contains { $0 != $0.rounded() }
    }

    static func scaled(_ pattern: PatternData, by factor: Double) -> PatternData {
        var p = pattern
        p.continuousPattern.amplitude = p.continuousPattern.amplitude.map { ValuePoint(time: $0.time * factor, value: $0.value) }
        p.continuousPattern.frequency = p.continuousPattern.frequency.map { ValuePoint(time: $0.time * factor, value: $0.value) }
        p.discretePattern = p.discretePattern.map { DiscretePoint(time: $0.time * factor, amplitude: $0.amplitude, frequency: $0.frequency) }
        return p
    }
}
