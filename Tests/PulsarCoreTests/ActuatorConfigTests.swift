import Foundation
import Testing
@testable import PulsarCore

/// The JSON5 reader (`JSON5Parser`) against hand-written JSON5, and Meta's actuator configs
/// (`MetaActuatorConfig`): the shipped files and the one-line errors of bad ones.
@Suite("ActuatorConfig")
struct ActuatorConfigTests {
    // MARK: Helpers

    private func parse(_ text: String) throws(JSON5Parser.SyntaxError) -> JSONValue {
        try JSON5Parser().parse(Array(text.utf8))
    }

    /// The syntax error `text` raises with its 1-based line and column; nil (and an issue) when it parses.
    private func syntaxError(_ text: String, parser: JSON5Parser = JSON5Parser(),
                             sourceLocation: SourceLocation = #_sourceLocation) -> (error: JSON5Parser.SyntaxError, line: Int, column: Int)? {
        let bytes = Array(text.utf8)
        do {
            let value = try parser.parse(bytes)
            Issue.record("expected a syntax error, parsed \(value.typeName)", sourceLocation: sourceLocation)
            return nil
        } catch {
            let (line, column) = SourceLines(bytes).position(of: error.offset)
            return (error, line, column)
        }
    }

    /// The diagnostic decoding `text` as an ACF raises; nil (and an issue) when it decodes.
    private func acfError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ActuatorDiagnostic? {
        do {
            _ = try MetaActuatorConfig.decode(Array(text.utf8), file: "bad.acf")
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// The shipped `Resources/actuators/NAME`.
    private static func shipped(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/actuators/\(name)").path
    }

    /// A valid ACF in which `replace` swaps one line's text for another.
    private static func acf(replacing old: String = "", with new: String = "") -> String {
        let text = """
        {
          continuous: {
            gain: 1.0,
            emphasis_ducking: 0.5,
            frequency_min: 55,
            frequency_max: 200,
          },
          emphasis: {
            gain: 1,
            fade_out_percent: 0,
            frequency_min: { output_frequency: 55, duration_ms: 36.4, shape: 'sine' },
            frequency_max: { output_frequency: 165, duration_ms: 12.1, shape: 'square' },
          },
        }
        """
        return old.isEmpty ? text : text.replacingOccurrences(of: old, with: new)
    }

    // MARK: JSON5 features

    @Test("comments of both kinds are white space")
    func comments() throws {
        let value = try parse("// head\n{ /* a */ a: /* b */ 1 // tail\n, /* multi\nline */ }\n// end")
        #expect(value["a"]?.number == 1)
        #expect(value.object?.count == 1)
    }

    @Test("identifier keys: ASCII, $ and _, digits after the first, Unicode letters")
    func identifierKeys() throws {
        let value = try parse("{ gain: 1, $x: 2, _y_2: 3, frequency_min: 4, größe: 5, null: 6 }")
        #expect(value.object?.map(\.key) == ["gain", "$x", "_y_2", "frequency_min", "größe", "null"])
        #expect(value["größe"]?.number == 5)
    }

    @Test("single-quoted strings, and the JSON5 escapes")
    func strings() throws {
        #expect(try parse("'it\\'s \"quoted\"'").string == "it's \"quoted\"")
        #expect(try parse("\"\\x41\\u00e9\\v\\0\\q\"").string == "Aé\u{0B}\u{0}q")
        #expect(try parse("'one \\\ntwo'").string == "one two")
        #expect(try parse("'\\uD83D\\uDE00'").string == "😀")
        #expect(try parse("'\\é\\/'").string == "é/")
    }

    @Test("trailing commas in objects and arrays")
    func trailingCommas() throws {
        #expect(try parse("{ a: [1, 2, ], }")["a"]?.array?.count == 2)
        #expect(syntaxError("[1,,]") != nil)
        #expect(syntaxError("{,}") != nil)
    }

    @Test("numbers: hexadecimal, leading and trailing point, explicit sign")
    func numbers() throws {
        #expect(try parse("0x1F").number == 31)
        #expect(try parse("-0XfF").number == -255)
        #expect(try parse(".5").number == 0.5)
        #expect(try parse("5.").number == 5)
        #expect(try parse("+1.5e2").number == 150)
        #expect(try parse("-.25").number == -0.25)
        #expect(syntaxError("01")?.error.message == "leading zeros are not allowed in numbers")
        #expect(syntaxError("0x")?.error.kind == .syntax)
        #expect(syntaxError(".")?.error.kind == .syntax)
        #expect(syntaxError("0x20000000000001")?.error.message == "hexadecimal number above 2^53 (not exact in a double)")
    }

    @Test("Infinity and NaN are refused, with their kind")
    func nonFinite() {
        for text in ["Infinity", "-Infinity", "+Infinity", "NaN", "{ gain: NaN }", "1e999"] {
            #expect(syntaxError(text)?.error.kind == .nonFinite, "\(text)")
        }
    }

    @Test("JSON5 white space: NBSP, BOM, line separators")
    func whitespace() throws {
        #expect(try parse("\u{FEFF}{\u{A0}a:\u{2028}1\u{2029}}\u{3000}")["a"]?.number == 1)
    }

    // MARK: JSON5 errors and their places

    @Test("an unterminated block comment is reported at its start")
    func unterminatedComment() throws {
        let found = try #require(syntaxError("{\n  a: 1, /* open\n  b: 2\n}"))
        #expect((found.line, found.column) == (2, 9))
        #expect(found.error.message == "unterminated block comment: no '*/' after '/*'")
        #expect(found.error.kind == .syntax)
    }

    @Test("a bad escape is reported at its backslash")
    func badEscape() throws {
        let hex = try #require(syntaxError("{\n  s: 'ab\\x4G',\n}"))
        #expect((hex.line, hex.column) == (2, 9))
        #expect(hex.error.message == "invalid hex digit in \\x escape (it takes 2)")
        let digit = try #require(syntaxError("'\\1'"))
        #expect((digit.line, digit.column) == (1, 2))
        #expect(digit.error.message == "invalid escape '\\1' in string")
        #expect(syntaxError("'\\uD800'")?.error.message == "unpaired surrogate in \\u escape")
        #expect(syntaxError("'line\nbreak'")?.error.kind == .syntax)
    }

    @Test("a duplicate key is reported at its second occurrence")
    func duplicateKey() throws {
        let found = try #require(syntaxError("{\n  gain: 1,\n  'gain': 2,\n}"))
        #expect((found.line, found.column) == (2 + 1, 3))
        #expect(found.error.kind == .duplicateKey)
        #expect(found.error.message == "duplicate key \"gain\" in one object")
    }

    @Test("nesting beyond the depth limit, and a source beyond the size limit")
    func limits() throws {
        let parser = JSON5Parser(maximumDepth: 3)
        #expect(throws: Never.self) { try parser.parse(Array("[[[1]]]".utf8)) }
        let deep = try #require(syntaxError("[[[[1]]]]", parser: parser))
        #expect(deep.error.kind == .tooDeep)
        #expect((deep.line, deep.column) == (1, 4))
        #expect(deep.error.message == "nesting deeper than 3 levels")
        // The default depth holds a deep attack off without exhausting the stack.
        #expect(syntaxError(String(repeating: "[", count: 100_000))?.error.kind == .tooDeep)
        let large = try #require(syntaxError("[1, 2, 3]", parser: JSON5Parser(maximumBytes: 4)))
        #expect(large.error.kind == .tooLarge)
    }

    @Test("stray characters: a lone slash, an escaped unquoted key, text after the value")
    func strayCharacters() {
        #expect(syntaxError("{ a: 1 / 2 }")?.error.message == "unexpected '/': a comment starts with '//' or '/*'")
        #expect(syntaxError("{ \\u0061: 1 }")?.error.message == "escapes are not supported in unquoted keys: quote the key")
        #expect(syntaxError("{} x")?.error.message == "unexpected 'x' after the value")
    }

    // MARK: Meta's ACF

    @Test("the shipped console ACF reads to the numbers written in it")
    func shippedConsole() throws {
        let loaded = try MetaActuatorConfig.load(path: Self.shipped("meta-console.acf"))
        #expect(loaded.warnings.isEmpty)
        let c = loaded.config
        #expect(c.metadata.device == "VCM Generic f0 65Hz")
        #expect(c.continuous == .init(gain: 1, emphasisDucking: 0.5, frequencyMin: 20, frequencyMax: 250))
        #expect(c.emphasis == .init(gain: 1, fadeOutPercent: 0,
                                    frequencyMin: .init(outputFrequency: 55, durationMs: 27, shape: .sine),
                                    frequencyMax: .init(outputFrequency: 130, durationMs: 20, shape: .square)))
    }

    @Test("the shipped Quest ACF reads to the numbers written in it")
    func shippedQuest() throws {
        let loaded = try MetaActuatorConfig.load(path: Self.shipped("meta-quest.acf"))
        #expect(loaded.warnings.isEmpty)
        let c = loaded.config
        #expect(c.metadata.device == "Meta Quest controllers")
        #expect(c.metadata.version == "2.0.0")
        #expect(c.continuous == .init(gain: 1, emphasisDucking: 0.5, frequencyMin: 55, frequencyMax: 200))
        #expect(c.emphasis == .init(gain: 1, fadeOutPercent: 0,
                                    frequencyMin: .init(outputFrequency: 55, durationMs: 36.4, shape: .sine),
                                    frequencyMax: .init(outputFrequency: 165, durationMs: 12.1, shape: .square)))
    }

    @Test("the burst of an emphasis slides linearly between the two ends")
    func burstInterpolation() throws {
        let c = try MetaActuatorConfig.load(path: Self.shipped("meta-console.acf")).config
        let middle = c.emphasis.burst(at: 0.5)
        #expect(middle.hertz == 92.5)
        #expect(middle.durationMs == 23.5)
        #expect((middle.minimumShapeWeight, middle.maximumShapeWeight) == (0.5, 0.5))
        #expect(middle.endGain == 1)
        #expect(c.continuous.hertz(at: 0.5) == 135)
        #expect(c.problem(at: SampleRate(8000)!) == nil)
        var high = c
        high.continuous.frequencyMax = 4000
        #expect(high.problem(at: SampleRate(8000)!) == "the highest frequency 4000 Hz must be below half the sample rate (4000 Hz)")
    }

    @Test("a missing field is one line naming its key path")
    func missingField() throws {
        let text = Self.acf(replacing: "output_frequency: 55, ", with: "")
        let error = try #require(acfError(text))
        #expect(error.rule == .missingField)
        #expect(error.description == "bad.acf:11:20: $.emphasis.frequency_min.output_frequency: missing required field \"output_frequency\" [missing-field]")
        #expect(!error.description.contains("\n"))
    }

    @Test("out-of-range values are one line naming the value and the range")
    func outOfRange() throws {
        let gain = try #require(acfError(Self.acf(replacing: "gain: 1,", with: "gain: 1.5,")))
        #expect(gain.description == "bad.acf:9:11: $.emphasis.gain: 1.5 must be in 0...1 [value-out-of-range]")
        let fade = try #require(acfError(Self.acf(replacing: "fade_out_percent: 0", with: "fade_out_percent: 101")))
        #expect(fade.description == "bad.acf:10:23: $.emphasis.fade_out_percent: 101 must be in 0...100 [value-out-of-range]")
        let hertz = try #require(acfError(Self.acf(replacing: "frequency_min: 55,", with: "frequency_min: 0,")))
        #expect(hertz.description == "bad.acf:5:20: $.continuous.frequency_min: 0 Hz: a frequency must be more than 0 Hz [value-out-of-range]")
        let duration = try #require(acfError(Self.acf(replacing: "duration_ms: 12.1", with: "duration_ms: -1")))
        #expect(duration.rule == .valueOutOfRange)
        #expect(duration.jsonPath == "$.emphasis.frequency_max.duration_ms")
        let order = try #require(acfError(Self.acf(replacing: "frequency_max: 200", with: "frequency_max: 50")))
        #expect(order.description == "bad.acf:6:20: $.continuous.frequency_max: 50 Hz is below frequency_min (55 Hz) [value-out-of-range]")
        let shape = try #require(acfError(Self.acf(replacing: "'square'", with: "'pulse'")))
        #expect(shape.description == "bad.acf:12:71: $.emphasis.frequency_max.shape: \"pulse\" is not a shape: saw, sine, square or triangle [unknown-shape]")
        let type = try #require(acfError(Self.acf(replacing: "gain: 1.0,", with: "gain: '1',")))
        #expect(type.rule == .wrongType)
    }

    @Test("unknown keys are warnings, a percent-looking fraction is a warning, every shape of Meta's is read")
    func warnings() throws {
        var text = Self.acf(replacing: "gain: 1.0,", with: "gain: 1.0, boost: 2,")
        text = text.replacingOccurrences(of: "fade_out_percent: 0", with: "fade_out_percent: 0.5")
        text = text.replacingOccurrences(of: "'sine'", with: "'triangle', extra: true")
        text = "{ profile: 'x', " + text.dropFirst()
        let loaded = try MetaActuatorConfig.decode(Array(text.utf8), file: "w.acf")
        #expect(loaded.warnings.map(\.rule) == [.unknownField, .unknownField, .percentScale, .unknownField])
        #expect(loaded.warnings.map(\.jsonPath) == ["$.profile", "$.continuous.boost", "$.emphasis.fade_out_percent",
                                                    "$.emphasis.frequency_min.extra"])
        #expect(loaded.warnings.allSatisfy { $0.severity == .warning })
        #expect(loaded.config.emphasis.frequencyMin.shape == .triangle)
        #expect(loaded.config.emphasis.fadeOutPercent == 0.5)
    }

    @Test("a JSON5 error in an ACF is one line with the file, place and rule")
    func syntaxInFile() throws {
        let error = try #require(acfError("{\n  continuous: { gain: 1, /* open\n}"))
        #expect(error.description == "bad.acf:2:26: $: unterminated block comment: no '*/' after '/*' [malformed-json5]")
        let dup = try #require(acfError("{ continuous: {}, continuous: {} }"))
        #expect(dup.rule == .duplicateKey)
        #expect(acfError("[]")?.rule == .wrongType)
    }
}
