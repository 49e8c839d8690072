/// Typed access to a parsed JSON document that turns every mismatch into a `PatternDiagnostic`
/// naming the file, line, column and JSON path. Paths are built only when something is wrong.
struct JSONFieldReader {
    let file: String?
    let lines: SourceLines
    private(set) var warnings: [PatternDiagnostic] = []

    init(file: String?, bytes: [UInt8]) {
        self.file = file
        self.lines = SourceLines(bytes)
    }

    func diagnostic(_ severity: PatternDiagnostic.Severity, _ rule: PatternDiagnostic.Rule, at value: JSONValue?,
                    _ path: String, _ message: String) -> PatternDiagnostic {
        var line: Int?
        var column: Int?
        if let value {
            (line, column) = lines.position(of: value.offset)
        }
        return PatternDiagnostic(severity, rule, file: file, line: line, column: column, path: path, message: message)
    }

    func error(_ rule: PatternDiagnostic.Rule, at value: JSONValue?, _ path: String, _ message: String) -> PatternDiagnostic {
        diagnostic(.error, rule, at: value, path, message)
    }

    mutating func warn(_ rule: PatternDiagnostic.Rule, at value: JSONValue?, _ path: String, _ message: String) {
        warnings.append(diagnostic(.warning, rule, at: value, path, message))
    }

    func object(_ value: JSONValue, _ path: @autoclosure () -> String) throws(PatternDiagnostic) -> [(key: String, value: JSONValue)] {
        guard let members = value.object else {
            throw error(.wrongType, at: value, path(), "expected an object, found \(value.typeName)")
        }
        return members
    }

    func array(_ value: JSONValue, _ path: @autoclosure () -> String) throws(PatternDiagnostic) -> [JSONValue] {
        guard let elements = value.array else {
            throw error(.wrongType, at: value, path(), "expected an array, found \(value.typeName)")
        }
        return elements
    }

    func number(_ value: JSONValue, _ path: @autoclosure () -> String) throws(PatternDiagnostic) -> Double {
        guard let n = value.number else {
            throw error(.wrongType, at: value, path(), "expected a number, found \(value.typeName)")
        }
        return n
    }

    func string(_ value: JSONValue, _ path: @autoclosure () -> String) throws(PatternDiagnostic) -> String {
        guard let s = value.string else {
            throw error(.wrongType, at: value, path(), "expected a string, found \(value.typeName)")
        }
        return s
    }

    /// The member `key` of `object`, or a missing-field error pointing at the object.
    func required(_ key: String, in object: JSONValue, _ path: @autoclosure () -> String) throws(PatternDiagnostic) -> JSONValue {
        guard let v = object[key] else {
            throw error(.missingField, at: object, path(), "missing required field \"\(key)\"")
        }
        return v
    }

    /// A number that must lie in `0...1`.
    func unitValue(_ value: JSONValue, _ path: @autoclosure () -> String) throws(PatternDiagnostic) -> Double {
        let v = try number(value, path())
        guard v >= 0, v <= 1 else {
            throw error(.valueOutOfRange, at: value, path(), "value \(JSONWriter.format(v)) is outside 0...1")
        }
        return v
    }

    /// Warns once per object about members outside `known`.
    mutating func warnUnknownMembers(of object: JSONValue, known: Set<String>, _ path: @autoclosure () -> String) {
        guard let members = object.object else { return }
        for member in members where !known.contains(member.key) {
            let p = path()
            warn(.ignored, at: member.value, p == "$" ? "$.\(member.key)" : "\(p).\(member.key)", "unknown field ignored")
        }
    }
}
