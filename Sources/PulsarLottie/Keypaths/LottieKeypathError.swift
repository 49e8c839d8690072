import PulsarCore

/// Why a keypath cannot be used for a dynamic property. Its `description` is one line: the
/// keypath, what is wrong, and the rule in brackets.
public typealias LottieKeypathError = Diagnostic<LottieKeypathRule>

/// The rule a keypath broke; `rawValue` is what the description prints.
public enum LottieKeypathRule: String, DiagnosticRule, CaseIterable {
    /// The keypath is empty or has an empty component.
    case malformedKeypath = "malformed-keypath"
    /// Nothing in the animation matches the keypath.
    case noMatch = "no-match"
    /// The keypath ends at a layer, shape item or transform node, not a property.
    case notAProperty = "not-a-property"
    /// rlottie does not apply the property there (a layer's transform, an anchor point, a
    /// transform's opacity, a property other than fill/stroke colour, opacity, width and
    /// group position, scale, rotation).
    case unsupportedByRlottie = "unsupported-by-rlottie"
    /// A name along the keypath holds a `.`, which rlottie's keypaths cannot express.
    case unaddressableName = "unaddressable-name"
    /// The value provider yields a different type than the property takes.
    case valueTypeMismatch = "value-type-mismatch"
}

extension Diagnostic where R == LottieKeypathRule {
    /// `keypath` is the keypath concerned (a concrete one when a match was refused).
    public init(_ rule: LottieKeypathRule, keypath: String, message: String) {
        self.init(rule, file: keypath, message: message)
    }

    /// The keypath concerned.
    public var keypath: String { file ?? "" }
}
