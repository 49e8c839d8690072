#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON5 parser (spec.json5.org, version 1.0.0) for hand-written configuration files such as
/// actuator configs. It builds the same `JSONValue` tree as `JSONParser`, source offsets
/// included, so a reader names the line and column of a bad value the same way.
///
/// On top of JSON it reads `//` and `/* */` comments, unquoted identifier keys, single-quoted
/// strings, the JSON5 escapes (`\'`, `\v`, `\0`, `\xHH`, a backslash before a line break), one
/// trailing comma in an object or array, hexadecimal numbers, a leading or trailing decimal point,
/// an explicit `+` sign and the JSON5 white space (NBSP, BOM, the Unicode line and paragraph
/// separators and space separators).
///
/// It refuses, where JSON5 would accept them: `Infinity` and `NaN` (no setting can be infinite),
/// a key written twice in one object (which copy wins is a guess), `\u` escapes in unquoted keys,
/// hexadecimal numbers above 2⁵³ (not exact in a double), nesting deeper than `maximumDepth` and
/// sources longer than `maximumBytes` — so no input can crash it or exhaust the stack.
///
/// Stateless: safe to use from any thread.
public struct JSON5Parser: Sendable {
    /// Deepest array/object nesting accepted.
    public var maximumDepth: Int
    /// Longest source accepted, in bytes.
    public var maximumBytes: Int

    public init(maximumDepth: Int = 64, maximumBytes: Int = 1 << 20) {
        self.maximumDepth = maximumDepth
        self.maximumBytes = maximumBytes
    }

    /// A syntax error at a byte offset of the source, with the kind of rule it breaks.
    public struct SyntaxError: Error, Equatable, Sendable {
        public enum Kind: Sendable {
            /// Not JSON5: an unexpected character, an unterminated comment or string, a bad escape.
            case syntax
            /// `Infinity`, `NaN`, or a number beyond the range of a double.
            case nonFinite
            /// A key written twice in one object.
            case duplicateKey
            /// Nesting deeper than `maximumDepth`.
            case tooDeep
            /// A source longer than `maximumBytes`.
            case tooLarge
        }

        public var offset: Int
        public var message: String
        public var kind: Kind

        public init(offset: Int, message: String, kind: Kind = .syntax) {
            self.offset = offset
            self.message = message
            self.kind = kind
        }
    }

    /// Parses a whole document; anything after the value but white space and comments is an error.
    public func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        guard bytes.count <= maximumBytes else {
            throw SyntaxError(offset: 0, message: "the source is \(bytes.count) bytes, more than the \(maximumBytes)-byte limit",
                              kind: .tooLarge)
        }
        var state = JSON5Scanner(bytes: bytes, maximumDepth: maximumDepth)
        try state.skipTrivia()
        let value = try state.parseValue(depth: 0)
        try state.skipTrivia()
        if state.index < bytes.count {
            throw state.error("unexpected \(state.describeCurrent()) after the value")
        }
        return value
    }
}

/// The cursor of one `JSON5Parser.parse`: values, keys and trivia. Numbers and strings are in
/// `JSON5Scanner+Lexemes.swift`.
struct JSON5Scanner {
    typealias SyntaxError = JSON5Parser.SyntaxError

    let bytes: [UInt8]
    let maximumDepth: Int
    var index = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    func describeCurrent() -> String {
        guard let c = current else { return "end of input" }
        if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x\(String(c, radix: 16))"
    }

    func error(_ message: String, at offset: Int? = nil, _ kind: SyntaxError.Kind = .syntax) -> SyntaxError {
        SyntaxError(offset: offset ?? index, message: message, kind: kind)
    }

    // MARK: Trivia

    /// Skips white space and comments; an unterminated block comment is an error at its start.
    mutating func skipTrivia() throws(SyntaxError) {
        while index < bytes.count {
            let space = whitespaceLength(at: index)
            if space > 0 { index += space; continue }
            guard bytes[index] == UInt8(ascii: "/") else { return }
            switch byte(at: index + 1) {
            case UInt8(ascii: "/"):
                index += 2
                while index < bytes.count, lineTerminatorLength(at: index) == 0 { index += 1 }
            case UInt8(ascii: "*"):
                let start = index
                index += 2
                while true {
                    guard index + 1 < bytes.count else {
                        index = bytes.count
                        throw error("unterminated block comment: no '*/' after '/*'", at: start)
                    }
                    if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") { index += 2; break }
                    index += 1
                }
            default:
                throw error("unexpected '/': a comment starts with '//' or '/*'")
            }
        }
    }

    /// The byte length of the JSON5 white space at `offset`, or 0.
    func whitespaceLength(at offset: Int) -> Int {
        guard let b = byte(at: offset) else { return 0 }
        switch b {
        case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20: return 1
        case 0xC2: return byte(at: offset + 1) == 0xA0 ? 2 : 0  // U+00A0
        case 0xE1: return (byte(at: offset + 1) == 0x9A && byte(at: offset + 2) == 0x80) ? 3 : 0  // U+1680
        case 0xE2:
            guard let b1 = byte(at: offset + 1), let b2 = byte(at: offset + 2) else { return 0 }
            if b1 == 0x80, (0x80...0x8A).contains(b2) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF { return 3 }  // U+2000–200A, 2028, 2029, 202F
            return (b1 == 0x81 && b2 == 0x9F) ? 3 : 0  // U+205F
        case 0xE3: return (byte(at: offset + 1) == 0x80 && byte(at: offset + 2) == 0x80) ? 3 : 0  // U+3000
        case 0xEF: return (byte(at: offset + 1) == 0xBB && byte(at: offset + 2) == 0xBF) ? 3 : 0  // U+FEFF
        default: return 0
        }
    }

    /// The byte length of the line terminator at `offset` (LF, CR, CR LF, U+2028, U+2029), or 0.
    func lineTerminatorLength(at offset: Int) -> Int {
        switch byte(at: offset) {
        case 0x0A: return 1
        case 0x0D: return byte(at: offset + 1) == 0x0A ? 2 : 1
        case 0xE2:
            guard byte(at: offset + 1) == 0x80, let b2 = byte(at: offset + 2), b2 == 0xA8 || b2 == 0xA9 else { return 0 }
            return 3
        default: return 0
        }
    }

    // MARK: Values

    mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
        guard let c = current else { throw error("unexpected end of input, expected a value") }
        let start = index
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels", at: start, .tooDeep) }
            if c == UInt8(ascii: "{") { return JSONValue(.object(try parseObject(depth: depth + 1)), offset: start) }
            return JSONValue(.array(try parseArray(depth: depth + 1)), offset: start)
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return JSONValue(.string(try parseString()), offset: start)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return JSONValue(.bool(true), offset: start)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return JSONValue(.bool(false), offset: start)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return JSONValue(.null, offset: start)
        case UInt8(ascii: "I"), UInt8(ascii: "N"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(.number(try parseNumber()), offset: start)
        default:
            throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    mutating func expectWord(_ word: String) throws(SyntaxError) {
        let start = index
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else {
                throw error("invalid literal, expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(SyntaxError) -> [(key: String, value: JSONValue)] {
        index += 1  // {
        var members: [(key: String, value: JSONValue)] = []
        var seen: Set<String> = []
        while true {
            try skipTrivia()
            if current == UInt8(ascii: "}") { index += 1; return members }  // empty, or after a trailing comma
            let keyStart = index
            let key = try parseKey()
            guard seen.insert(key).inserted else {
                throw error("duplicate key \"\(MessageText.oneLine(key))\" in one object", at: keyStart, .duplicateKey)
            }
            try skipTrivia()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(MessageText.oneLine(key))\", found \(describeCurrent())") }
            index += 1
            try skipTrivia()
            members.append((key, try parseValue(depth: depth)))
            try skipTrivia()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return members
            default: throw error("expected ',' or '}' in object, found \(describeCurrent())")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(SyntaxError) -> [JSONValue] {
        index += 1  // [
        var elements: [JSONValue] = []
        while true {
            try skipTrivia()
            if current == UInt8(ascii: "]") { index += 1; return elements }  // empty, or after a trailing comma
            elements.append(try parseValue(depth: depth))
            try skipTrivia()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return elements
            default: throw error("expected ',' or ']' in array, found \(describeCurrent())")
            }
        }
    }

    // MARK: Keys

    /// A quoted string or an ECMAScript identifier name (`$`, `_`, letters; then digits, marks,
    /// connector punctuation, ZWNJ and ZWJ too).
    mutating func parseKey() throws(SyntaxError) -> String {
        if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") { return try parseString() }
        let start = index
        while let (scalar, length) = scalar(at: index) {
            let accepted = index == start ? Self.isIdentifierStart(scalar) : Self.isIdentifierPart(scalar)
            guard accepted else { break }
            index += length
        }
        if current == UInt8(ascii: "\\") {
            throw error("escapes are not supported in unquoted keys: quote the key")
        }
        guard index > start else { throw error("expected a key, found \(describeCurrent())") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func isIdentifierStart(_ s: Unicode.Scalar) -> Bool {
        if s == "$" || s == "_" { return true }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber: return true
        default: return false
        }
    }

    static func isIdentifierPart(_ s: Unicode.Scalar) -> Bool {
        if isIdentifierStart(s) || s.value == 0x200C || s.value == 0x200D { return true }
        switch s.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    /// The Unicode scalar whose UTF-8 starts at `offset` and its length, or nil at the end or on
    /// malformed UTF-8.
    func scalar(at offset: Int) -> (Unicode.Scalar, Int)? {
        guard let lead = byte(at: offset) else { return nil }
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        guard length > 0, offset + length <= bytes.count else { return nil }
        var decoder = UTF8()
        var iterator = bytes[offset..<(offset + length)].makeIterator()
        guard case .scalarValue(let s) = decoder.decode(&iterator) else { return nil }
        return (s, length)
    }
}
