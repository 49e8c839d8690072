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

/// Maps byte offsets of a source to 1-based lines and columns (columns count UTF-8 bytes).
/// The table of line starts is built on the first question — positions are only needed for
/// diagnostics — and then answers each one by binary search, so a file with many warnings costs
/// one pass, not one pass per warning.
///
/// Used by one decoding at a time (the table is filled without a lock).
struct SourceLines: @unchecked Sendable {
    private let bytes: [UInt8]
    private let table = LineStarts()

    private final class LineStarts {
        var starts: [Int]?
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes  // shares the caller's storage: no copy
    }

    func position(of offset: Int) -> (line: Int, column: Int) {
        let starts = table.starts ?? {
            var list = [0]
            for (i, b) in bytes.enumerated() where b == 0x0A { list.append(i + 1) }
            table.starts = list
            return list
        }()
        // The last line start at or before the offset (a newline byte belongs to its own line).
        let target = min(offset, bytes.count)
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= target { lo = mid } else { hi = mid - 1 }
        }
        return (lo + 1, offset - starts[lo] + 1)
    }
}
