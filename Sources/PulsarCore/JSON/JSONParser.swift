#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict RFC 8259 JSON parser that records source offsets and reports errors with a line and
/// column. It rejects what JSON does not allow (`NaN`, `Infinity`, trailing commas, comments,
/// control characters in strings), numbers that overflow a `Double`, and nesting deeper than
/// `maximumDepth`, so no input can crash it or exhaust the stack.
///
/// Stateless: safe to use from any thread.
public struct JSONParser: Sendable {
    /// Deepest array/object nesting accepted.
    public var maximumDepth: Int = 256
    /// Accept a comma before a closing bracket (Apple's AHAP files have them; Core Haptics reads them).
    public var allowsTrailingCommas: Bool = false

    public init(allowsTrailingCommas: Bool = false) {
        self.allowsTrailingCommas = allowsTrailingCommas
    }

    /// A syntax error at a byte offset of the source.
    public struct SyntaxError: Error, Sendable {
        public var offset: Int
        public var message: String
        /// True when the input holds a number JSON cannot represent (NaN, Infinity, overflow).
        public var isNonFiniteNumber: Bool = false
    }

    /// Parses a whole document; anything after the value but whitespace is an error.
    public func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError> = bytes.withUnsafeBufferPointer { raw in
            var state = State(bytes: raw, end: bytes.count, maximumDepth: maximumDepth, allowsTrailingCommas: allowsTrailingCommas)
            return Result { () throws(SyntaxError) -> JSONValue in
                state.skipWhitespace()
                let value = try state.parseValue(depth: 0)
                state.skipWhitespace()
                if state.index < state.end {
                    throw SyntaxError(offset: state.index, message: "unexpected \(state.describeCurrent()) after the JSON value")
                }
                return value
            }
        }
        return try result.get()
    }

    private struct State {
        let bytes: UnsafeBufferPointer<UInt8>
        let end: Int
        let maximumDepth: Int
        let allowsTrailingCommas: Bool
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, end: Int, maximumDepth: Int, allowsTrailingCommas: Bool) {
            self.bytes = bytes
            self.end = end
            self.maximumDepth = maximumDepth
            self.allowsTrailingCommas = allowsTrailingCommas
        }

        var current: UInt8? { index < end ? bytes[index] : nil }

        func describeCurrent() -> String {
            guard let c = current else { return "end of input" }
            if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
            return "byte 0x\(String(c, radix: 16))"
        }

        mutating func skipWhitespace() {
            while index < end {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func error(_ message: String, at offset: Int? = nil) -> SyntaxError {
            SyntaxError(offset: offset ?? index, message: message)
        }

        mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
            guard let c = current else { throw error("unexpected end of input, expected a value") }
            let start = index
            switch c {
            case UInt8(ascii: "{"):
                guard depth < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
                return JSONValue(.object(try parseObject(depth: depth + 1)), offset: start)
            case UInt8(ascii: "["):
                guard depth < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
                return JSONValue(.array(try parseArray(depth: depth + 1)), offset: start)
            case UInt8(ascii: "\""):
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
            case UInt8(ascii: "N"), UInt8(ascii: "I"):
                throw SyntaxError(offset: index, message: "NaN and Infinity are not JSON numbers", isNonFiniteNumber: true)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return JSONValue(.number(try parseNumber()), offset: start)
            default:
                throw error("unexpected \(describeCurrent()), expected a value")
            }
        }

        mutating func expectWord(_ word: String) throws(SyntaxError) {
            let start = index
            for byte in word.utf8 {
                guard index < end, bytes[index] == byte else {
                    throw error("invalid literal, expected '\(word)'", at: start)
                }
                index += 1
            }
        }

        mutating func parseObject(depth: Int) throws(SyntaxError) -> [(key: String, value: JSONValue)] {
            index += 1  // {
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if current == UInt8(ascii: "}") { index += 1; return members }
            while true {
                skipWhitespace()
                if allowsTrailingCommas, !members.isEmpty, current == UInt8(ascii: "}") { index += 1; return members }
                guard current == UInt8(ascii: "\"") else {
                    throw error("expected a string key, found \(describeCurrent())")
                }
                let key = try parseString()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
                index += 1
                skipWhitespace()
                let value = try parseValue(depth: depth)
                members.append((key, value))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return Array(members)  // exact capacity: no growth slack kept
                default: throw error("expected ',' or '}' in object, found \(describeCurrent())")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(SyntaxError) -> [JSONValue] {
            index += 1  // [
            var elements: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") { index += 1; return elements }
            while true {
                skipWhitespace()
                if allowsTrailingCommas, !elements.isEmpty, current == UInt8(ascii: "]") { index += 1; return elements }
                elements.append(try parseValue(depth: depth))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return Array(elements)  // exact capacity: no growth slack kept
                default: throw error("expected ',' or ']' in array, found \(describeCurrent())")
                }
            }
        }

        mutating func parseNumber() throws(SyntaxError) -> Double {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            guard let first = current, first >= 0x30, first <= 0x39 else {
                if current == UInt8(ascii: "I") {
                    throw SyntaxError(offset: start, message: "NaN and Infinity are not JSON numbers", isNonFiniteNumber: true)
                }
                throw error("invalid number", at: start)
            }
            if first == 0x30 {
                index += 1
                if let c = current, c >= 0x30, c <= 0x39 { throw error("leading zeros are not allowed in JSON numbers", at: start) }
            } else {
                while let c = current, c >= 0x30, c <= 0x39 { index += 1 }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let c = current, c >= 0x30, c <= 0x39 else { throw error("invalid number: digits must follow '.'", at: start) }
                while let c = current, c >= 0x30, c <= 0x39 { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let c = current, c >= 0x30, c <= 0x39 else { throw error("invalid number: digits must follow the exponent", at: start) }
                while let c = current, c >= 0x30, c <= 0x39 { index += 1 }
            }
            // strtod needs a terminated string: copy the validated digits (short) with a NUL, so the
            // source never has to be copied whole.
            let length = index - start
            let value: Double = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text in
                UnsafeMutableRawPointer(text.baseAddress!).copyMemory(from: bytes.baseAddress! + start, byteCount: length)
                text[length] = 0
                return strtod(text.baseAddress!, nil)
            }
            guard value.isFinite else {
                throw SyntaxError(offset: start, message: "number out of the range of a double", isNonFiniteNumber: true)
            }
            return value
        }

        /// A string, unescaped in one pass: runs of plain bytes and the UTF-8 of each escape are
        /// copied into one byte buffer, decoded once at the end (linear in the string's length).
        mutating func parseString() throws(SyntaxError) -> String {
            let start = index
            index += 1  // opening quote
            var utf8: [UInt8] = []
            var runStart = index
            var hasEscapes = false
            while true {
                guard index < end else { throw error("unterminated string", at: start) }
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    if !hasEscapes {
                        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                        index += 1
                        return s
                    }
                    utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    index += 1
                    return String(decoding: utf8, as: UTF8.self)
                }
                if c < 0x20 { throw error("control character in string") }
                if c == UInt8(ascii: "\\") {
                    hasEscapes = true
                    utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    index += 1
                    guard index < end else { throw error("unterminated string", at: start) }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(e)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try parseHex4()
                        if (0xD800...0xDBFF).contains(code) {
                            guard index + 1 < end, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw error("unpaired surrogate in \\u escape")
                            }
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(code)!)!)
                    default:
                        throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: index - 2)
                    }
                    runStart = index
                    continue
                }
                index += 1
            }
        }

        mutating func parseHex4() throws(SyntaxError) -> UInt32 {
            guard index + 4 <= end else { throw error("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw error("invalid hex digit in \\u escape")
                }
                v = v << 4 | d
                index += 1
            }
            return v
        }
    }
}
