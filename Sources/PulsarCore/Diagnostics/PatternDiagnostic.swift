/// A problem found in a pattern file: an error that stops loading, or a warning about a
/// normalisation that was applied. Its `description` is one line naming the file (`<input>` for
/// in-memory data), the place (line:column and JSON path) and the rule.
public typealias PatternDiagnostic = Diagnostic<PatternRule>

/// Which rule a pattern broke (errors) or had applied (warnings).
public enum PatternRule: String, DiagnosticRule, CaseIterable {
    case missingInput = "missing-input"
    case unreadable = "unreadable"
    case fileTooLarge = "file-too-large"
    case malformedJSON = "malformed-json"
    case unknownFormat = "unknown-format"
    case wrongType = "wrong-type"
    case missingField = "missing-field"
    case unknownField = "unknown-field"
    case nonFinite = "non-finite"
    case negativeTime = "negative-time"
    case valueOutOfRange = "value-out-of-range"
    case unsorted = "unsorted"
    case duplicateTime = "duplicate-time"
    case nearCoincident = "near-coincident"
    case emptyPattern = "empty-pattern"
    case tooLong = "too-long"
    case tooManyPoints = "too-many-points"
    case secondsAsMilliseconds = "times-in-seconds"
    case shortPattern = "short-pattern"
    case defaultFrequency = "default-frequency"
    case clamped = "clamped"
    case absoluteCurveTimes = "absolute-curve-times"
    case ignored = "ignored"
}

extension Diagnostic where R == PatternRule {
    /// A pattern diagnostic; `file` nil is in-memory data, printed as `<input>`.
    public init(_ severity: Severity, _ rule: PatternRule, file: String? = nil, line: Int? = nil, column: Int? = nil,
                path: String = "$", message: String) {
        self.init(rule, severity: severity, file: file ?? "<input>", line: line, column: column,
                  jsonPath: path, message: message)
    }

    /// JSON path of the offending value, like `$.continuousPattern.amplitude[3].time`.
    public var path: String {
        get { jsonPath ?? "$" }
        set { jsonPath = newValue }
    }
}
