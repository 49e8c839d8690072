/// The rule a `Diagnostic` names. Each reader has its own rules (an enum per domain); `name` is
/// the stable text printed in brackets, which scripts and tests may match.
public protocol DiagnosticRule: Hashable, Sendable {
    /// The printed rule name, like `not-found`.
    var name: String { get }
}

extension DiagnosticRule where Self: RawRepresentable, RawValue == String {
    public var name: String { rawValue }
}

/// Whether a diagnostic stopped the reading or reports a normalisation that was applied.
public enum DiagnosticSeverity: String, Sendable {
    case error, warning
}

/// A problem found while reading an input — a pattern file, a `.pulsar` bundle, a Lottie
/// animation or dotLottie archive, a keypath, a ZIP held in memory — as one value: the rule
/// broken (typed per reader), where (file, archive entry, line:column, JSON path) and what, in
/// words. Callers decide which error happened by `rule`, never by the words.
///
/// Its `description` is the one-line form the CLI prints:
/// `file: entry:line:column: $.json.path: message [rule]`, each place part only when known, e.g.
/// `demo.pulsar: manifest.json:9:13: $.presets[0].id: "1st" is not a valid preset id [bad-preset-id]`.
/// With a `cause` the brackets name both rules: `[bad-pattern: value-out-of-range]`. Text taken
/// from the input is escaped onto one line (`\n`, `\u{7}`) and cut short (names and paths after
/// 200 characters, the message after 300) so no input can make the line long.
///
/// A plain value type: safe to use from any thread.
public struct Diagnostic<R: DiagnosticRule>: Error, CustomStringConvertible, Hashable, Sendable {
    /// The reader's rules (`BundleError.Rule` is `BundleRule`).
    public typealias Rule = R
    public typealias Severity = DiagnosticSeverity

    public var rule: Rule
    public var severity: Severity
    /// The file (or bundle, or keypath) as the caller named it, when there is one.
    public var file: String?
    /// The entry inside an archive or bundle, when there is one.
    public var entry: String?
    /// 1-based line and column (UTF-8 bytes) inside the JSON, when known.
    public var line: Int?
    public var column: Int?
    /// JSON path of the value concerned (`$.layers[3].shapes`), when relevant.
    public var jsonPath: String?
    /// What is wrong, in words.
    public var message: String
    /// Kept in an array so that a diagnostic of any reader can hold a pattern diagnostic.
    private var causes: [Diagnostic<PatternRule>]

    public init(_ rule: Rule, severity: Severity = .error, file: String? = nil, entry: String? = nil,
                line: Int? = nil, column: Int? = nil, jsonPath: String? = nil, message: String,
                cause: Diagnostic<PatternRule>? = nil) {
        self.rule = rule
        self.severity = severity
        self.file = file
        self.entry = entry
        self.line = line
        self.column = column
        self.jsonPath = jsonPath
        self.message = message
        self.causes = cause.map { [$0] } ?? []
    }

    /// The pattern reader's own diagnostic behind this one (a bundle's haptics file), if any.
    public var cause: Diagnostic<PatternRule>? {
        get { causes.first }
        set { causes = newValue.map { [$0] } ?? [] }
    }

    public var description: String {
        var parts: [String] = []
        let place = self.place
        if !place.isEmpty { parts.append(place) }
        if let jsonPath { parts.append(MessageText.excerpt(jsonPath, limit: 200)) }
        parts.append(MessageText.excerpt(message, limit: 300) + " [\(ruleNames)]")
        return parts.joined(separator: ": ")
    }

    /// `file: entry:line:column`, each part only when known.
    private var place: String {
        var names: [String] = []
        if let file { names.append(MessageText.excerpt(file, limit: 200)) }
        if let entry { names.append(entry.isEmpty ? "\"\"" : MessageText.excerpt(entry, limit: 200)) }
        var text = names.joined(separator: ": ")
        if let line { text += ":\(line)" }
        if let column { text += ":\(column)" }
        return text
    }

    private var ruleNames: String {
        cause.map { "\(rule.name): \($0.rule.name)" } ?? rule.name
    }
}
