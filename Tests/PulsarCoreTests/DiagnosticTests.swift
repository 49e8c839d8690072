import PulsarCore
import Testing

/// The one-line form every reader's diagnostic prints (the CLI's error line), written out in full.
@Suite struct DiagnosticTests {
    /// A reader's rules, as each domain declares its own.
    enum ReaderRule: String, DiagnosticRule {
        case badValue = "bad-value"
        case notZip = "not-zip"
        case badPattern = "bad-pattern"
    }

    @Test func patternDiagnosticsNameFilePlacePathAndRule() {
        let error = PatternDiagnostic(.error, .valueOutOfRange, file: "a.json", line: 3, column: 14,
                                      path: "$.continuousPattern.amplitude[0].value", message: "2 is above 1")
        #expect(error.description == "a.json:3:14: $.continuousPattern.amplitude[0].value: 2 is above 1 [value-out-of-range]")
        let warning = PatternDiagnostic(.warning, .shortPattern, message: "shorter than 10 ms")
        #expect(warning.description == "<input>: $: shorter than 10 ms [short-pattern]")
        #expect(warning.severity == .warning && warning.path == "$")
    }

    @Test func archiveEntriesComeBetweenFileAndPosition() {
        let error = Diagnostic(ReaderRule.badValue, file: "demo.pulsar", entry: "manifest.json", line: 9, column: 13,
                               jsonPath: "$.presets[0].id", message: "\"1st\" is not a valid preset id")
        #expect(error.description
            == #"demo.pulsar: manifest.json:9:13: $.presets[0].id: "1st" is not a valid preset id [bad-value]"#)
        let unplaced = Diagnostic(ReaderRule.notZip, file: "x.lottie", entry: "a/x.json", message: "CRC error")
        #expect(unplaced.description == "x.lottie: a/x.json: CRC error [not-zip]")
    }

    @Test func withoutAPlaceOnlyTheMessageAndRule() {
        #expect(Diagnostic(ReaderRule.notZip, message: "not a ZIP archive").description == "not a ZIP archive [not-zip]")
    }

    @Test func aCauseAddsItsRuleInsideTheBrackets() {
        let cause = PatternDiagnostic(.error, .valueOutOfRange, file: "haptics/t.json", message: "2 is above 1")
        let error = Diagnostic(ReaderRule.badPattern, file: "b.pulsar", entry: "haptics/t.json",
                               message: "preset \"t\": 2 is above 1", cause: cause)
        #expect(error.description == #"b.pulsar: haptics/t.json: preset "t": 2 is above 1 [bad-pattern: value-out-of-range]"#)
        #expect(error.cause?.rule == .valueOutOfRange)
        var without = error
        without.cause = nil
        #expect(without != error && without.description.hasSuffix("[bad-pattern]"))
    }

    @Test func inputTextIsEscapedOntoOneLineAndCutShort() {
        let escaped = Diagnostic(ReaderRule.badValue, file: "a\nb", entry: "", message: "bell\u{7}")
        #expect(escaped.description == #"a\nb: "": bell\u{7} [bad-value]"#)
        let long = Diagnostic(ReaderRule.badValue, file: String(repeating: "f", count: 250),
                              message: String(repeating: "m", count: 400))
        #expect(long.description == String(repeating: "f", count: 200) + "… (50 more characters): "
            + String(repeating: "m", count: 300) + "… (100 more characters) [bad-value]")
    }

    @Test func equalityCoversEveryField() {
        let a = Diagnostic(ReaderRule.badValue, file: "f", line: 1, column: 2, jsonPath: "$", message: "m")
        var b = a
        #expect(a == b && a.hashValue == b.hashValue)
        b.column = 3
        #expect(a != b)
        b = a
        b.severity = .warning
        #expect(a != b)
    }

    /// Lines and columns count from 1 in UTF-8 bytes; a newline ends its own line; offsets
    /// outside the source are clamped to it.
    @Test func sourcePositionsCountLinesAndBytes() {
        let lines = SourceLines(Array("ab\n\u{e9}x\n".utf8))
        #expect(lines.position(of: 0) == (1, 1) && lines.position(of: 2) == (1, 3))
        #expect(lines.position(of: 3) == (2, 1) && lines.position(of: 5) == (2, 3))
        #expect(lines.position(of: 7) == (3, 1) && lines.position(of: 99) == (3, 1))
        #expect(lines.position(of: -4) == (1, 1))
        #expect(SourceLines([]).position(of: 0) == (1, 1))
    }
}
