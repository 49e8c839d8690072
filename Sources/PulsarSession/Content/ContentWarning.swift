import PulsarCore

/// A warning met while resolving content (a pattern's, a bundle's, an actuator config's, or the
/// content layer's own), as every front end receives it: the CLI prints it, libpulsar hands it
/// to a callback, Python and C# raise it as a warning.
public struct ContentWarning: Sendable, Equatable, CustomStringConvertible {
    /// The rule's short name (`no-haptics`, `unknown-key`, …).
    public let rule: String
    /// The words without the place: warnings with equal rule and message are one kind.
    public let message: String
    /// The whole line: place, words and rule.
    public let description: String

    public init(rule: String, message: String, description: String) {
        self.rule = rule
        self.message = message
        self.description = description
    }

    public init<R>(_ diagnostic: Diagnostic<R>) {
        self.init(rule: diagnostic.rule.name, message: diagnostic.message, description: diagnostic.description)
    }
}

extension Array where Element == ContentWarning {
    mutating func append<R>(contentsOf diagnostics: [Diagnostic<R>]) {
        append(contentsOf: diagnostics.map(ContentWarning.init))
    }
}
