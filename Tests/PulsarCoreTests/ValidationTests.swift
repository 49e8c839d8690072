import Foundation
import Testing
@testable import PulsarCore

/// One test per row of the bad-input table (docs/formats.md, "Validation"): the loader throws one
/// `PatternDiagnostic` with the right rule, whose description is one line naming the file, the
/// JSON path and, where the format has one, the line and column.
@Suite("Validation")
struct ValidationTests {
    // MARK: Helpers

    /// Writes `text` to a fresh temp file named `name`, loads it and returns the thrown error and
    /// the file's path; records an issue when it loads.
    private func loadError(_ text: String, name: String = "bad.json", timeUnit: TimeUnitPolicy = .automatic,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> (error: PatternDiagnostic, file: String)? {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(text, to: name)
        do {
            let loaded = try PatternLoader(timeUnit: timeUnit).load(contentsOf: file)
            Issue.record("expected an error, loaded \(loaded.pattern.pointCount) points", sourceLocation: sourceLocation)
            return nil
        } catch {
            return (error, file)
        }
    }

    /// Loads `text` from a temp file and expects success.
    private func load(_ text: String, name: String = "good.json", timeUnit: TimeUnitPolicy = .automatic) throws -> LoadedPattern {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try PatternLoader(timeUnit: timeUnit).load(contentsOf: try directory.write(text, to: name))
    }

    /// Checks the error of `text`: rule, path, position, and a one-line description holding them.
    private func expectError(_ text: String, name: String = "bad.json", rule: PatternDiagnostic.Rule, path: String,
                             line: Int? = nil, column: Int? = nil,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let (error, file) = try loadError(text, name: name, sourceLocation: sourceLocation) else { return }
        Self.check(error, rule: rule, file: file, path: path, line: line, column: column, sourceLocation: sourceLocation)
    }

    static func check(_ error: PatternDiagnostic, rule: PatternDiagnostic.Rule, file: String?, path: String,
                      line: Int? = nil, column: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = error.description
        #expect(error.rule == rule, "\(text)", sourceLocation: sourceLocation)
        #expect(error.severity == .error, sourceLocation: sourceLocation)
        #expect(error.path == path, "\(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("\n") && !text.contains("\r") && !text.isEmpty, "one line: \(text)", sourceLocation: sourceLocation)
        #expect(text.contains(" \(path): "), "names the JSON path: \(text)", sourceLocation: sourceLocation)
        #expect(text.hasSuffix("[\(rule.rawValue)]"), "names the rule: \(text)", sourceLocation: sourceLocation)
        if let file {
            #expect(text.hasPrefix(file), "starts with the file: \(text)", sourceLocation: sourceLocation)
            let name = URL(fileURLWithPath: file).lastPathComponent
            #expect(text.contains(name), sourceLocation: sourceLocation)
        } else {
            #expect(text.hasPrefix("<input>"), "\(text)", sourceLocation: sourceLocation)
        }
        if let line, let column {
            #expect(error.line == line && error.column == column, "position of \(text)", sourceLocation: sourceLocation)
            #expect(text.contains(":\(line):\(column): "), "names line:column: \(text)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Rows

    @Test("malformed JSON: error at its line and column")
    func malformedJSON() throws {
        let text = """
        {
          "discretePattern": [
            {"time": 0, "amplitude": 1, "frequency": 1}
          ,]
        }
        """
        try expectError(text, rule: .malformedJSON, path: "$", line: 4, column: 4)
        try expectError("{\"discretePattern\": [", rule: .malformedJSON, path: "$", line: 1, column: 22)
        try expectError("", name: "empty.json", rule: .malformedJSON, path: "$", line: 1, column: 1)
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        try expectError(#"{"bar": "# + deep + "}", rule: .malformedJSON, path: "$", line: 1, column: 9 + 255)  // the object is one of the 256 levels
    }

    @Test("wrong types: error at the value, with its JSON path")
    func wrongTypes() throws {
        let text = """
        {"discretePattern": [
          {"time": "10", "amplitude": 1, "frequency": 0.5}
        ]}
        """
        try expectError(text, rule: .wrongType, path: "$.discretePattern[0].time", line: 2, column: 12)
        try expectError(#"{"continuousPattern": [1]}"#, rule: .wrongType, path: "$.continuousPattern", line: 1, column: 23)
        try expectError(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": null}]}}"#,
                        rule: .wrongType, path: "$.continuousPattern.amplitude[0].value", line: 1, column: 59)
        try expectError(#"{"discretePattern": [[0, 1, 1]]}"#, rule: .wrongType, path: "$.discretePattern[0]", line: 1, column: 22)
        try expectError(#"{"line": [[[0, true]]]}"#, rule: .wrongType, path: "$.line[0][0][1]", line: 1, column: 16)
        try expectError(#"[1, 2]"#, rule: .unknownFormat, path: "$", line: 1, column: 1)
        // A missing field names the object that lacks it.
        try expectError(#"{"discretePattern": [{"time": 0, "amplitude": 1}]}"#,
                        rule: .missingField, path: "$.discretePattern[0]", line: 1, column: 22)
    }

    @Test("NaN, Infinity and 1e999 in JSON are non-finite errors at their position",
          arguments: ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
    func nonFiniteJSON(_ literal: String) throws {
        let text = "{\"discretePattern\": [\n  {\"time\": 0, \"amplitude\": \(literal), \"frequency\": 0.5}\n]}"
        try expectError(text, rule: .nonFinite, path: "$", line: 2, column: 28)
    }

    @Test("NaN and infinity in an in-memory pattern are non-finite errors with the wire path")
    func nonFiniteInMemory() throws {
        var pattern = PatternData(continuousPattern: ContinuousPattern(
            amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 10, value: .nan)]))
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try PatternValidator().validate(pattern) })
        Self.check(error, rule: .nonFinite, file: nil, path: "$.continuousPattern.amplitude[1].value")
        pattern.continuousPattern.amplitude[1].value = 0.5
        #expect(try PatternValidator().validate(pattern).map(\.rule) == [.defaultFrequency], "valid once fixed")
        pattern.discretePattern = [DiscretePoint(time: .infinity, amplitude: 1, frequency: 1)]
        let time = try #require(#expect(throws: PatternDiagnostic.self) { try PatternValidator().validate(pattern) })
        Self.check(time, rule: .nonFinite, file: nil, path: "$.discretePattern[0].time")
        pattern.discretePattern = [DiscretePoint(time: 5, amplitude: 1, frequency: -.nan)]
        let frequency = try #require(#expect(throws: PatternDiagnostic.self) { try PatternValidator().validate(pattern) })
        Self.check(frequency, rule: .nonFinite, file: nil, path: "$.discretePattern[0].frequency")
    }

    @Test("negative times are errors")
    func negativeTimes() throws {
        let text = """
        {"continuousPattern": {"amplitude": [
          {"time": 0, "value": 0.5},
          {"time": -5, "value": 0.5}
        ]}}
        """
        try expectError(text, rule: .negativeTime, path: "$.continuousPattern.amplitude[1].time", line: 3, column: 12)
        try expectError(#"{"bar": [[-0.5, 1, 1]]}"#, rule: .negativeTime, path: "$.bar[0][0]", line: 1, column: 11)
        try expectError(#"{"Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#, name: "bad.ahap",
                        rule: .negativeTime, path: "$.Pattern[0].Event.Time", line: 1, column: 33)
    }

    @Test("values outside 0...1 are errors")
    func valuesOutOfRange() throws {
        try expectError(#"{"continuousPattern": {"amplitude": [{"time": 0, "value": 1.5}]}}"#,
                        rule: .valueOutOfRange, path: "$.continuousPattern.amplitude[0].value", line: 1, column: 59)
        try expectError(#"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": -0.1}]}"#,
                        rule: .valueOutOfRange, path: "$.discretePattern[0].frequency", line: 1, column: 63)
        try expectError(#"{"line": [[{"x": 0, "y": 0.5}], [{"x": 0, "y": 2}]]}"#,
                        rule: .valueOutOfRange, path: "$.line[1][0].y", line: 1, column: 48)
        // The ends of the range are fine.
        #expect(try load(#"{"discretePattern": [{"time": 0, "amplitude": 0, "frequency": 1}]}"#).pattern.discretePattern.count == 1)
    }

    @Test("unsorted points are errors")
    func unsortedPoints() throws {
        let text = """
        {"continuousPattern": {"amplitude": [
          {"time": 0, "value": 0}, {"time": 50, "value": 1}, {"time": 20, "value": 0}
        ]}}
        """
        try expectError(text, rule: .unsorted, path: "$.continuousPattern.amplitude[2].time", line: 2, column: 63)
        try expectError(#"{"discretePattern": [{"time": 9, "amplitude": 1, "frequency": 1}, {"time": 8, "amplitude": 1, "frequency": 1}]}"#,
                        rule: .unsorted, path: "$.discretePattern[1].time", line: 1, column: 76)
    }

    @Test("three curve points at one time are an error; two are a step")
    func duplicateCurveTimes() throws {
        let three = """
        {"continuousPattern": {"amplitude": [
          {"time": 0, "value": 0},
          {"time": 10, "value": 1},
          {"time": 10, "value": 0.5},
          {"time": 10, "value": 0}
        ]}}
        """
        try expectError(three, rule: .duplicateTime, path: "$.continuousPattern.amplitude[3].time", line: 5, column: 12)
        let two = #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0}, {"time": 10, "value": 1}, {"time": 10, "value": 0}, {"time": 20, "value": 0}]}}"#
        let loaded = try load(two)
        #expect(loaded.pattern.continuousPattern.amplitude.count == 4)
        let curve = Curve(loaded.pattern.continuousPattern.amplitude)
        #expect(curve.valueBefore(10) == 1 && curve.value(at: 10) == 0, "a step, right-continuous")
    }

    @Test("two transients at one time are an error")
    func duplicateTransientTimes() throws {
        let text = """
        {"discretePattern": [
          {"time": 10, "amplitude": 1, "frequency": 1},
          {"time": 10, "amplitude": 0.5, "frequency": 0.5}
        ]}
        """
        try expectError(text, rule: .duplicateTime, path: "$.discretePattern[1].time", line: 3, column: 12)
    }

    @Test("an empty pattern is an error")
    func emptyPattern() throws {
        try expectError(#"{"continuousPattern": {"amplitude": [], "frequency": []}, "discretePattern": []}"#,
                        rule: .emptyPattern, path: "$")
        try expectError(#"{"line": [[], []], "bar": []}"#, rule: .emptyPattern, path: "$")
        // A frequency curve alone plays nothing either.
        try expectError(#"{"continuousPattern": {"frequency": [{"time": 0, "value": 1}]}}"#, rule: .emptyPattern, path: "$")
        try expectError(#"{"Pattern": []}"#, name: "empty.ahap", rule: .emptyPattern, path: "$")
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try PatternValidator().validate(PatternData()) })
        Self.check(error, rule: .emptyPattern, file: nil, path: "$")
    }

    @Test("a duration over 24 h is an error; exactly 24 h is not")
    func tooLong() throws {
        try expectError(#"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}, {"time": 86400001, "amplitude": 1, "frequency": 1}]}"#,
                        rule: .tooLong, path: "$.discretePattern[1].time", line: 1, column: 76)
        try expectError(#"{"Pattern": [{"Event": {"Time": 86401, "EventType": "HapticTransient"}}]}"#, name: "long.ahap",
                        rule: .tooLong, path: "$.discretePattern[0].time")
        let ok = try load(#"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}, {"time": 86400000, "amplitude": 1, "frequency": 1}]}"#)
        #expect(ok.pattern.lastPointTime == 86_400_000)
    }

    @Test("more than 1 000 000 points is an error, counted before decoding")
    func tooManyPoints() throws {
        let limit = PatternValidator().maximumPoints
        #expect(limit == 1_000_000)
        // Raw form (the most compact): 1 000 001 amplitude points.
        var text = #"{"line": [["#
        text.reserveCapacity(8 * (limit + 1) + 32)
        text += Array(repeating: "[0,0]", count: limit + 1).joined(separator: ",")
        text += "]]}"
        let error = try #require(#expect(throws: PatternDiagnostic.self) {
            try PatternLoader().decode(Array(text.utf8), file: "many.json", format: .pulsarJSON)
        })
        Self.check(error, rule: .tooManyPoints, file: "many.json", path: "$", line: 1, column: 1)
        #expect(error.message.contains("1000001"))
        // The wire form's count before decoding is checked with a small limit in pointLimitBoundary.
    }

    @Test("the point limit is inclusive")
    func pointLimitBoundary() throws {
        var validator = PatternValidator()
        validator.maximumPoints = 3
        let three = PatternData(discretePattern: (0..<3).map { DiscretePoint(time: Double($0), amplitude: 1, frequency: 1) })
        #expect(try validator.validate(three).isEmpty)
        var four = three
        four.discretePattern.append(DiscretePoint(time: 3, amplitude: 1, frequency: 1))
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try validator.validate(four) })
        Self.check(error, rule: .tooManyPoints, file: nil, path: "$")
        var loader = PatternLoader()
        loader.validator.maximumPoints = 3
        let text = #"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}, {"time": 1, "amplitude": 1, "frequency": 1}, {"time": 2, "amplitude": 1, "frequency": 1}, {"time": 3, "amplitude": 1, "frequency": 1}]}"#
        let loaded = try #require(#expect(throws: PatternDiagnostic.self) { try loader.decode(Array(text.utf8), file: "four.json") })
        Self.check(loaded, rule: .tooManyPoints, file: "four.json", path: "$", line: 1, column: 1)
    }

    @Test("a file over 64 MiB is refused before it is read")
    func fileTooLarge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/huge.json"
        #expect(FileManager.default.createFile(atPath: file, contents: Data(#"{"bar": []}"#.utf8)))
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: UInt64(64 << 20) + 1)  // sparse: no data written
        try handle.close()
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try PatternLoader().load(contentsOf: file) })
        Self.check(error, rule: .fileTooLarge, file: file, path: "$")
        #expect(error.message.contains("\((64 << 20) + 1)"))

        // The limit itself is inclusive (checked with a small limit, to keep the test light).
        var small = PatternLoader()
        let text = #"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}]}"#
        small.maximumFileSize = text.utf8.count
        let atLimit = try directory.write(text, to: "limit.json")
        #expect(try small.load(contentsOf: atLimit).pattern.discretePattern.count == 1)
        let over = try directory.write(text + " ", to: "over.json")
        let overError = try #require(#expect(throws: PatternDiagnostic.self) { try small.load(contentsOf: over) })
        Self.check(overError, rule: .fileTooLarge, file: over, path: "$")
    }

    @Test("a missing file or a directory is a missing-input error")
    func missingInput() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.path + "/nope.json"
        let error = try #require(#expect(throws: PatternDiagnostic.self) { try PatternLoader().load(contentsOf: missing) })
        Self.check(error, rule: .missingInput, file: missing, path: "$")
        let dir = try #require(#expect(throws: PatternDiagnostic.self) { try PatternLoader().load(contentsOf: directory.path) })
        Self.check(dir, rule: .missingInput, file: directory.path, path: "$")
    }

    @Test("times that look like seconds are scaled with a warning; --time-unit ms keeps them")
    func timesInSeconds() throws {
        let text = """
        {"discretePattern": [
          {"time": 0, "amplitude": 1, "frequency": 1},
          {"time": 0.149, "amplitude": 0.5, "frequency": 0.5}
        ]}
        """
        let auto = try load(text, name: "seconds.json")
        #expect(auto.scaledFromSeconds)
        #expect(auto.pattern.discretePattern.map(\.time) == [0, 149])
        let warning = try #require(auto.warnings.first { $0.rule == .secondsAsMilliseconds })
        #expect(warning.severity == .warning)
        #expect(warning.file?.hasSuffix("/seconds.json") == true)
        #expect(!warning.description.contains("\n"))

        let ms = try load(text, name: "seconds.json", timeUnit: .milliseconds)
        #expect(!ms.scaledFromSeconds)
        #expect(ms.pattern.discretePattern.map(\.time) == [0, 0.149])
        #expect(!ms.warnings.contains { $0.rule == .secondsAsMilliseconds })

        let s = try load(#"{"discretePattern": [{"time": 2, "amplitude": 1, "frequency": 1}]}"#, timeUnit: .seconds)
        #expect(s.scaledFromSeconds)
        #expect(s.pattern.discretePattern[0].time == 2000)
        #expect(!s.warnings.contains { $0.rule == .secondsAsMilliseconds }, "asked for, so no warning")

        // Whole times, or a longer pattern, are milliseconds.
        let whole = try load(#"{"discretePattern": [{"time": 0, "amplitude": 1, "frequency": 1}, {"time": 75, "amplitude": 1, "frequency": 1}]}"#)
        #expect(!whole.scaledFromSeconds && whole.warnings.isEmpty)
        let long = try load(#"{"discretePattern": [{"time": 0.5, "amplitude": 1, "frequency": 1}, {"time": 30.5, "amplitude": 1, "frequency": 1}]}"#)
        #expect(!long.scaledFromSeconds)
        #expect(long.pattern.discretePattern[1].time == 30.5)
    }

    @Test("seconds detection is applied before validation: 25 s in seconds is fine, out-of-order is still caught")
    func secondsThenValidation() throws {
        let text = #"{"discretePattern": [{"time": 0.5, "amplitude": 1, "frequency": 1}, {"time": 0.25, "amplitude": 1, "frequency": 1}]}"#
        guard let (error, file) = try loadError(text) else { return }
        Self.check(error, rule: .unsorted, file: file, path: "$.discretePattern[1].time", line: 1, column: 78)
        #expect(error.message.contains("250"), "the message speaks in scaled milliseconds: \(error.message)")
    }
}
