import Testing
@testable import PulsarCore

/// The strict RFC 8259 parser (`JSONParser`) and its inverse (`JSONWriter`).
@Suite("JSONParser")
struct JSONParserTests {
    // MARK: Helpers

    private func parse(_ text: String, trailingCommas: Bool = false) throws(JSONParser.SyntaxError) -> JSONValue {
        try JSONParser(allowsTrailingCommas: trailingCommas).parse(Array(text.utf8))
    }

    private func parse(bytes: [UInt8]) throws(JSONParser.SyntaxError) -> JSONValue {
        try JSONParser().parse(bytes)
    }

    /// The syntax error `text` raises; records an issue and returns nil when it parses.
    private func syntaxError(_ text: String, trailingCommas: Bool = false,
                             sourceLocation: SourceLocation = #_sourceLocation) -> JSONParser.SyntaxError? {
        syntaxError(bytes: Array(text.utf8), trailingCommas: trailingCommas, sourceLocation: sourceLocation)
    }

    private func syntaxError(bytes: [UInt8], trailingCommas: Bool = false,
                             sourceLocation: SourceLocation = #_sourceLocation) -> JSONParser.SyntaxError? {
        do {
            let value = try JSONParser(allowsTrailingCommas: trailingCommas).parse(bytes)
            Issue.record("expected a syntax error, parsed \(value.typeName)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Valid documents

    @Test("scalars parse to their kinds")
    func scalars() throws {
        #expect(try parse("true").kind.isBool(true))
        #expect(try parse("false").kind.isBool(false))
        #expect(try parse("null").typeName == "null")
        #expect(try parse("42").number == 42)
        #expect(try parse("-0.5").number == -0.5)
        #expect(try parse("1.5e3").number == 1500)
        #expect(try parse("2E-2").number == 0.02)
        #expect(try parse("1e+2").number == 100)
        #expect(try parse("0").number == 0)
        #expect(try parse("-0").number == 0)
        #expect(try parse("\"hi\"").string == "hi")
        #expect(try parse(" \t\r\n 7 \n").number == 7)
    }

    @Test("objects keep members in source order, duplicates included, with offsets")
    func objects() throws {
        let text = #"{"b": 1, "a": [true, null, {"c": "x"}], "b": 2}"#
        let value = try parse(text)
        let members = try #require(value.object)
        #expect(members.map(\.key) == ["b", "a", "b"])
        #expect(members[0].value.number == 1)
        #expect(members[2].value.number == 2)
        #expect(value["b"]?.number == 1, "subscript returns the first member")
        let array = try #require(value["a"]?.array)
        #expect(array.count == 3)
        #expect(array[2]["c"]?.string == "x")
        // Offsets point at each value's first character.
        let bytes = Array(text.utf8)
        #expect(value.offset == 0)
        #expect(bytes[members[1].value.offset] == UInt8(ascii: "["))
        #expect(members[1].value.offset == 14)
        #expect(bytes[array[2].offset] == UInt8(ascii: "{"))
        #expect(bytes[members[2].value.offset] == UInt8(ascii: "2"))
    }

    @Test("empty containers and nesting")
    func emptyContainers() throws {
        #expect(try parse("[]").array?.isEmpty == true)
        #expect(try parse("{}").object?.isEmpty == true)
        #expect(try parse("[[], {}, [[]]]").array?.count == 3)
        #expect(try parse("[ ]").array?.isEmpty == true)
        #expect(try parse("{ }").object?.isEmpty == true)
    }

    @Test("escapes decode, including surrogate pairs")
    func escapes() throws {
        #expect(try parse(#""a\"b\\c\/d\be\ff\ng\rh\ti""#).string == "a\"b\\c/d\u{08}e\u{0C}f\ng\rh\ti")
        #expect(try parse(#""\u0041\u00e9\u20AC""#).string == "Aé€")
        #expect(try parse(#""\uD83D\uDE00""#).string == "😀")
        #expect(try parse(#""x\u0000y""#).string == "x\u{0}y")
        #expect(try parse("\"héllo 😀\"").string == "héllo 😀", "raw UTF-8 passes through")
        #expect(try parse("\"\u{7F}\"").string == "\u{7F}", "DEL is not a control character in JSON")
        #expect(try parse("\"é\\n€\\u00e9😀\\t\"").string == "é\n€é😀\t", "multi-byte runs between escapes")
        // Invalid UTF-8 before an escape is repaired as it is without one.
        #expect(try parse(bytes: [0x22, 0xE2, 0x5C, 0x6E, 0x22]).string == "\u{FFFD}\n")
    }

    @Test("A string of 200 000 escapes decodes to its 200 000 characters (unescaping is one pass)")
    func manyEscapes() throws {
        let text = "\"" + String(repeating: #"a\n\u00e9"#, count: 200_000) + "\""
        let value = try #require(try parse(text).string)
        #expect(value == String(repeating: "a\né", count: 200_000))
    }

    // MARK: Syntax rules

    @Test("trailing commas are rejected by default")
    func trailingCommasRejected() throws {
        let array = try #require(syntaxError("[1, 2,]"))
        #expect(array.offset == 6)
        #expect(!array.isNonFiniteNumber)
        let object = try #require(syntaxError(#"{"a": 1,}"#))
        #expect(object.offset == 8)
        _ = syntaxError(#"{"a": [1,], "b": 2}"#)
    }

    @Test("trailing commas are accepted with allowsTrailingCommas")
    func trailingCommasAccepted() throws {
        #expect(try parse("[1, 2,]", trailingCommas: true).array?.count == 2)
        let object = try parse(#"{"a": 1, "b": {"c": [3,],},}"#, trailingCommas: true)
        #expect(object.object?.count == 2)
        #expect(object["b"]?["c"]?.array?.count == 1)
        // Still not allowed: a lone comma, two commas, a leading comma.
        _ = syntaxError("[,]", trailingCommas: true)
        _ = syntaxError("{,}", trailingCommas: true)
        _ = syntaxError("[1,,]", trailingCommas: true)
        _ = syntaxError("[1,,2]", trailingCommas: true)
        _ = syntaxError("[,1]", trailingCommas: true)
    }

    @Test("NaN, Infinity and overflowing numbers are flagged isNonFiniteNumber",
          arguments: ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "[0, NaN]", #"{"t": Infinity}"#, "[1e400]"])
    func nonFinite(_ text: String) throws {
        let error = try #require(syntaxError(text))
        #expect(error.isNonFiniteNumber)
    }

    @Test("non-finite numbers are reported at the number's offset")
    func nonFiniteOffsets() throws {
        #expect(syntaxError(#"{"t": NaN}"#)?.offset == 6)
        #expect(syntaxError("[1, -Infinity]")?.offset == 4)
        #expect(syntaxError("[1, 2e999]")?.offset == 4)
        // Large but finite numbers and underflow are fine.
        #expect(try parse("1.7976931348623157e308").number == .greatestFiniteMagnitude)
        #expect(try parse("1e-400").number == 0)
    }

    @Test("other syntax errors are not flagged non-finite",
          arguments: ["nan", "inf", "[1,]", "01", "tru", "\"\\x\""])
    func notNonFinite(_ text: String) throws {
        let error = try #require(syntaxError(text))
        #expect(!error.isNonFiniteNumber)
    }

    @Test("malformed numbers are rejected",
          arguments: ["01", "-01", "00", "1.", ".5", "-", "+1", "1e", "1e+", "1.e3", "0x10", "1_000", "- 1", "-.5"])
    func malformedNumbers(_ text: String) throws {
        let error = try #require(syntaxError(text))
        #expect(error.offset <= text.utf8.count)
    }

    @Test("leading zeros are rejected at the number's start")
    func leadingZeros() throws {
        let error = try #require(syntaxError("[0, 012]"))
        #expect(error.offset == 4)
        #expect(error.message.contains("leading zero"))
        #expect(try parse("[0, 0.12, -0.5, 10]").array?.count == 4)
    }

    @Test("bad escapes are rejected at the backslash")
    func badEscapes() throws {
        let x = try #require(syntaxError(#"["ab\x"]"#))
        #expect(x.offset == 4)
        #expect(x.message.contains("escape"))
        #expect(syntaxError(#""\a""#)?.offset == 1)
        #expect(syntaxError(#""\'""#) != nil)
        #expect(syntaxError(#""\U0041""#) != nil)
        #expect(syntaxError(#""\u12G4""#) != nil)
        #expect(syntaxError(#""\u12""#) != nil)
        #expect(syntaxError(#""\u"#) != nil)
        #expect(syntaxError("\"abc\\") != nil)
    }

    @Test("unpaired surrogates are rejected",
          arguments: [#""\uD800""#, #""\uD800x""#, #""\uDBFF\u0041""#, #""\uDC00""#, #""\uDFFF\uD800""#,
                      #""\uD800\uD800""#, #""\uD83D\n""#])
    func unpairedSurrogates(_ text: String) throws {
        let error = try #require(syntaxError(text))
        #expect(error.message.contains("surrogate") || error.message.contains("escape"))
    }

    @Test("control characters in strings are rejected", arguments: [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] as [UInt8])
    func controlCharacters(_ byte: UInt8) throws {
        let bytes: [UInt8] = Array("[\"ab".utf8) + [byte] + Array("c\"]".utf8)
        let error = try #require(syntaxError(bytes: bytes))
        #expect(error.offset == 4)
        #expect(error.message.contains("control character"))
    }

    @Test("unterminated strings, containers and junk are rejected with their offsets")
    func structuralErrors() throws {
        #expect(syntaxError(#"{"a": tru}"#)?.offset == 6)
        #expect(syntaxError("[1, 2")?.offset == 5)
        #expect(syntaxError("[1 2]")?.offset == 3)
        #expect(syntaxError("[1] x")?.offset == 4)
        #expect(syntaxError("[1]]")?.offset == 3)
        #expect(syntaxError(#"{"a" 1}"#)?.offset == 5)
        #expect(syntaxError(#"{a: 1}"#)?.offset == 1)
        #expect(syntaxError(#"{"a": 1 "b": 2}"#)?.offset == 8)
        #expect(syntaxError(#"  "abc"#)?.offset == 2, "unterminated string points at its opening quote")
        #expect(syntaxError("")?.offset == 0)
        #expect(syntaxError("   ")?.offset == 3)
        #expect(syntaxError("// c\n1") != nil, "comments are not JSON")
        #expect(syntaxError("[1] /* c */") != nil)
        #expect(syntaxError("'a'") != nil)
        #expect(syntaxError("True") != nil)
        #expect(syntaxError("nul") != nil)
        #expect(syntaxError("1 2")?.offset == 2)
        #expect(syntaxError("\u{FEFF}1") != nil, "a byte-order mark is not whitespace")
    }

    @Test("error offsets on later lines count bytes from the start of the input")
    func multiLineOffsets() throws {
        let text = "{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}"
        let error = try #require(syntaxError(text))
        let index = text.utf8.firstIndex(of: UInt8(ascii: "]"))!
        #expect(error.offset == text.utf8.distance(from: text.utf8.startIndex, to: index))
    }

    @Test("10 000 levels of nesting give an error, not a crash")
    func deepNesting() throws {
        let depth = 10_000
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let error = try #require(syntaxError(arrays))
        #expect(error.message.contains("nesting"))
        #expect(error.offset == JSONParser().maximumDepth)
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(syntaxError(objects)?.message.contains("nesting") == true)
        // Unclosed, too: still an error rather than a stack overflow.
        #expect(syntaxError(String(repeating: "[", count: depth)) != nil)
    }

    @Test("nesting up to maximumDepth is accepted, one more is not")
    func nestingLimit() throws {
        let limit = JSONParser().maximumDepth
        let ok = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try parse(ok).array?.count == 1)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(syntaxError(tooDeep)?.message.contains("nesting") == true)
        var shallow = JSONParser()
        shallow.maximumDepth = 2
        #expect(throws: JSONParser.SyntaxError.self) { try shallow.parse(Array("[[[]]]".utf8)) }
        #expect(try shallow.parse(Array("[[]]".utf8)).array?.count == 1)
    }

    // MARK: JSONWriter

    @Test("numbers round-trip exactly through JSONWriter",
          arguments: [0.1, 1e-7, 123456789.125, 0.0, 1.0, -1.0, 42.0, 0.3, 2.0 / 3.0, 1e-300, .leastNonzeroMagnitude,
                      .greatestFiniteMagnitude, 1e15, 1e16, 999_999_999_999_999.0, -0.000123, 86_400_000.0,
                      0.149, 1e21, 123.456e-10])
    func numberRoundTrip(_ x: Double) throws {
        let text = JSONWriter().write(.num(x))
        let back = try #require(try parse(text).number)
        #expect(back.bitPattern == x.bitPattern || (back == 0 && x == 0), "\(x) written as \(text)")
        let inArray = JSONWriter().write(.arr([.num(x), .num(-x)]))
        let values = try #require(try parse(inArray).array)
        #expect(values.map { $0.number } == [x, -x])
    }

    @Test("integers are written without a fraction")
    func integersWithoutFraction() {
        #expect(JSONWriter.format(10) == "10")
        #expect(JSONWriter.format(-3) == "-3")
        #expect(JSONWriter.format(0) == "0")
        #expect(JSONWriter.format(86_400_000) == "86400000")
        #expect(JSONWriter.format(0.5) == "0.5")
        #expect(JSONWriter.format(0.1) == "0.1")
        #expect(JSONWriter.format(123456789.125) == "123456789.125")
        #expect(JSONWriter().write(.arr([.num(1), .num(2.5)])) == "[1, 2.5]\n")
        #expect(!JSONWriter().write(.obj(["t": .num(149)])).contains("149.0"))
    }

    @Test("documents round-trip through JSONWriter: parse(write(x)) equals x")
    func documentRoundTrip() throws {
        let document: JSONValue = .obj([
            "name": .str("quote \" backslash \\ newline \n tab \t cr \r nul \u{0} bell \u{07} é 😀 /"),
            "numbers": .arr([.num(0.1), .num(1e-7), .num(123456789.125), .num(10), .num(-2)]),
            "empty": .arr([]),
            "object": .obj([:]),
            "nested": .arr([.obj(["time": .num(0), "value": .num(0.25)]), JSONValue(.null), JSONValue(.bool(true)),
                            JSONValue(.bool(false)), .arr([.arr([.num(1)])])]),
            "dup": .num(1),
            "dup": .num(2),
        ])
        for indent in [0, 2, 4] {
            let text = JSONWriter(indent: indent).write(document)
            #expect(text.hasSuffix("\n"))
            let back = try parse(text)
            #expect(Self.same(back, document), "indent \(indent):\n\(text)")
            // And writing the re-parsed document gives the same text.
            #expect(JSONWriter(indent: indent).write(back) == text)
        }
    }

    @Test("the round-trip comparison itself notices differences")
    func comparisonNoticesDifferences() {
        #expect(!Self.same(.num(0.1), .num(0.1000000001)))
        #expect(!Self.same(.obj(["a": .num(1), "b": .num(2)]), .obj(["b": .num(2), "a": .num(1)])))
        #expect(!Self.same(.arr([.num(1)]), .arr([.num(1), .num(1)])))
        #expect(!Self.same(.str("a"), .str("b")))
        #expect(Self.same(.obj(["a": .arr([.str("x")])]), .obj(["a": .arr([.str("x")])])))
    }

    /// Structural equality of two JSON values (offsets ignored, member order significant).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a.kind, b.kind) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x.bitPattern == y.bitPattern
        case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && same($0.value, $1.value) }
        default: return false
        }
    }
}

private extension JSONValue.Kind {
    func isBool(_ expected: Bool) -> Bool {
        if case .bool(let b) = self { return b == expected }
        return false
    }
}
