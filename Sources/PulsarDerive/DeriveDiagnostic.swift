import PulsarCore

/// A problem found while deriving haptics from audio — a setting out of range, an unreadable
/// file — or a finding that did not stop it (silence, a part cut short), as the one
/// `Diagnostic` type every reader reports with (docs/decisions.md, "Rules the code keeps", rule 10). Callers decide
/// which problem happened by `rule`, never by the words.
public typealias DeriveDiagnostic = Diagnostic<DeriveRule>

/// The error `DeriveSettings`, `EnvelopeDeriver`, `HapticGenerator` and `AudioDeriver` throw: a
/// `DeriveDiagnostic` of severity `error`.
public typealias DeriveError = DeriveDiagnostic

/// Which rule a derivation broke (errors) or which finding it reports (warnings).
public enum DeriveRule: String, DiagnosticRule, CaseIterable {
    // Settings (errors).
    case badResolution = "bad-resolution"
    case badGain = "bad-gain"
    case badThreshold = "bad-threshold"
    case badExponent = "bad-exponent"
    case badTolerance = "bad-tolerance"
    case badBand = "bad-band"
    case badPart = "bad-part"
    case badProfile = "bad-profile"
    case badSampleRate = "bad-sample-rate"
    case badGeneratorParameter = "bad-generator-parameter"
    /// `follow`'s gate level.
    case badGate = "bad-gate"
    /// `follow`'s attack or release time.
    case badEnvelopeTime = "bad-envelope-time"
    // Input (errors).
    /// The file could not be opened (it does not exist, is not a regular file, is not readable).
    case missingAudio = "missing-audio"
    /// The file was opened but is not audio libsndfile decodes, or is damaged.
    case unreadableAudio = "unreadable-audio"
    // Findings (warnings).
    case silence = "silence"
    case silentBand = "silent-band"
    case partClipped = "part-clipped"
    case nonFiniteSamples = "non-finite-samples"
    case resampled = "resampled"
}

extension Diagnostic where R == DeriveRule {
    /// An error about a setting: `"<name> <value> is out of range: must be <range>"`.
    static func setting(_ rule: DeriveRule, _ name: String, _ value: Double, _ requirement: String) -> DeriveDiagnostic {
        let shown = value.isFinite ? JSONWriter.format(value) : "\(value)"
        return DeriveDiagnostic(rule, message: "\(name) \(shown) is out of range: must be \(requirement)")
    }

    /// A warning.
    static func warning(_ rule: DeriveRule, file: String? = nil, _ message: String) -> DeriveDiagnostic {
        DeriveDiagnostic(rule, severity: .warning, file: file, message: message)
    }
}
