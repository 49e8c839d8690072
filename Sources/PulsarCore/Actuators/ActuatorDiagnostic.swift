/// A problem found in an actuator config file: an error that stops loading, or a warning about
/// something read and ignored. Its `description` is one line naming the file, the line:column,
/// the key path and the rule, like
/// `meta-quest.acf:9:15: $.emphasis.gain: 1.5 must be in 0...1 [value-out-of-range]`.
public typealias ActuatorDiagnostic = Diagnostic<ActuatorRule>

/// Which rule an actuator config broke (errors) or had applied (warnings).
public enum ActuatorRule: String, DiagnosticRule, CaseIterable {
    case unreadable = "unreadable"
    case fileTooLarge = "file-too-large"
    /// Not JSON5 (an unterminated comment, a bad escape, an unexpected character).
    case malformedJSON5 = "malformed-json5"
    /// `Infinity`, `NaN`, or a number beyond a double.
    case nonFinite = "non-finite"
    case duplicateKey = "duplicate-key"
    /// Nesting deeper than the reader's limit.
    case tooDeep = "too-deep"
    case wrongType = "wrong-type"
    case missingField = "missing-field"
    case valueOutOfRange = "value-out-of-range"
    /// An emphasis shape other than saw, sine, square and triangle.
    case unknownShape = "unknown-shape"
    /// A `model` other than envelope and burst (this project's key).
    case unknownModel = "unknown-model"
    /// A law other than linear and sqrt (this project's `laws`).
    case unknownLaw = "unknown-law"
    /// Warning: a key this reader does not know, ignored (Meta's reader ignores it too).
    case unknownField = "unknown-field"
    /// Warning: a `fade_out_percent` in (0, 1], read as a percentage as Meta's renderer reads it,
    /// though Meta's ACF README describes a 0–1 fraction.
    case percentScale = "percent-scale"
}

extension ActuatorRule {
    /// The rule of a JSON5 syntax error.
    init(_ kind: JSON5Parser.SyntaxError.Kind) {
        switch kind {
        case .syntax: self = .malformedJSON5
        case .nonFinite: self = .nonFinite
        case .duplicateKey: self = .duplicateKey
        case .tooDeep: self = .tooDeep
        case .tooLarge: self = .fileTooLarge
        }
    }
}
