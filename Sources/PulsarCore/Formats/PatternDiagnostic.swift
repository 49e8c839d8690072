/// A problem found in a pattern file: an error that stops loading, or a warning about a
/// normalisation that was applied. Its `description` is one line naming the file, the place
/// (line:column and JSON path) and the rule.
///
/// A plain value type: safe to use from any thread.
public struct PatternDiagnostic: Error, CustomStringConvertible, Hashable, Sendable {
    /// Which rule was broken (errors) or applied (warnings).
    public enum Rule: String, Sendable, CaseIterable {
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

    public enum Severity: String, Sendable {
        case error, warning
    }

    public var severity: Severity
    public var rule: Rule
    /// The file as the user named it, or nil for in-memory data.
    public var file: String?
    /// 1-based line and column in the file, when known.
    public var line: Int?
    public var column: Int?
    /// JSON path of the offending value, like `$.continuousPattern.amplitude[3].time`.
    public var path: String
    /// What is wrong, in words.
    public var message: String

    public init(_ severity: Severity, _ rule: Rule, file: String? = nil, line: Int? = nil, column: Int? = nil,
                path: String = "$", message: String) {
        self.severity = severity
        self.rule = rule
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    public var description: String {
        // Names and keys from the input are echoed cut short: one line, never megabytes.
        var place = MessageText.excerpt(file ?? "<input>", limit: 200)
        if let line { place += ":\(line)" }
        if let column { place += ":\(column)" }
        return "\(place): \(MessageText.excerpt(path, limit: 200)): \(MessageText.excerpt(message, limit: 300)) [\(rule.rawValue)]"
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
