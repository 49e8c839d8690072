#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JSON5 numbers and strings.
extension JSON5Scanner {
    // MARK: Numbers

    /// A JSON5 number: an optional sign, then a hexadecimal integer (`0x1F`) or a decimal with
    /// optional leading or trailing point and exponent. `Infinity` and `NaN` are refused.
    mutating func parseNumber() throws(SyntaxError) -> Double {
        let start = index
        var negative = false
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
            negative = current == UInt8(ascii: "-")
            index += 1
        }
        if current == UInt8(ascii: "I") || current == UInt8(ascii: "N") {
            throw error("Infinity and NaN are not accepted: a setting must be a finite number", at: start, .nonFinite)
        }
        if current == UInt8(ascii: "0"), let x = byte(at: index + 1), x == UInt8(ascii: "x") || x == UInt8(ascii: "X") {
            index += 2
            let value = try parseHexDigits(numberStart: start)
            return negative ? -value : value
        }
        try scanDecimal(numberStart: start)
        let value = Self.decimalValue(bytes[start..<index])
        guard value.isFinite else {
            throw error("number out of the range of a double", at: start, .nonFinite)
        }
        return value
    }

    /// The digits of a hexadecimal integer after `0x`: at least one, at most 2⁵³.
    mutating func parseHexDigits(numberStart: Int) throws(SyntaxError) -> Double {
        var value: UInt64 = 0
        var count = 0
        while let c = current, let digit = Self.hexDigit(c) {
            value = value << 4 | UInt64(digit)  // at most 2⁵³ before: no overflow
            count += 1
            index += 1
            guard value <= 1 << 53 else {
                throw error("hexadecimal number above 2^53 (not exact in a double)", at: numberStart)
            }
        }
        guard count > 0 else { throw error("invalid number: hexadecimal digits must follow '0x'", at: numberStart) }
        return Double(value)
    }

    /// Checks the decimal literal at `index` (after any sign) and moves past it: integer digits
    /// (no leading zero but a lone `0`), an optional `.` and digits, an optional exponent; at
    /// least one digit before or after the point.
    mutating func scanDecimal(numberStart: Int) throws(SyntaxError) {
        let integerStart = index
        if current == UInt8(ascii: "0") {
            index += 1
            if let c = current, Self.isDigit(c) { throw error("leading zeros are not allowed in numbers", at: numberStart) }
        } else {
            skipDigits()
        }
        var digits = index - integerStart
        if current == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            skipDigits()
            digits += index - fractionStart
        }
        guard digits > 0 else { throw error("invalid number: no digits", at: numberStart) }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let c = current, Self.isDigit(c) else {
                throw error("invalid number: digits must follow the exponent", at: numberStart)
            }
            skipDigits()
        }
    }

    mutating func skipDigits() {
        while let c = current, Self.isDigit(c) { index += 1 }
    }

    /// `strtod` of checked decimal text (a terminated copy: the text is short).
    static func decimalValue(_ text: ArraySlice<UInt8>) -> Double {
        var copy = Array(text)
        copy.append(0)
        return copy.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { strtod($0.baseAddress!, nil) }
        }
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    static func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46: return UInt32(c - 0x41 + 10)
        case 0x61...0x66: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }

    // MARK: Strings

    /// A string in double or single quotes, unescaped. A raw line feed or carriage return inside
    /// is an error (escape it, or end the line with a backslash to continue the string).
    mutating func parseString() throws(SyntaxError) -> String {
        let start = index
        let quote = bytes[index]
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated string", at: start) }
            if c == quote { index += 1; return String(decoding: utf8, as: UTF8.self) }
            if c == 0x0A || c == 0x0D {
                throw error("line break in a string: write \\n, or end the line with a backslash to continue it")
            }
            if c == UInt8(ascii: "\\") {
                try parseEscape(into: &utf8)
            } else {
                utf8.append(c)
                index += 1
            }
        }
    }

    /// One escape sequence at `index` (the backslash), appended as UTF-8.
    mutating func parseEscape(into utf8: inout [UInt8]) throws(SyntaxError) {
        let escapeStart = index
        index += 1
        guard let e = current else { throw error("unterminated escape at the end of input", at: escapeStart) }
        let continuation = lineTerminatorLength(at: index)
        if continuation > 0 { index += continuation; return }  // a backslash before a line break: nothing
        index += 1
        switch e {
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "v"): utf8.append(0x0B)
        case UInt8(ascii: "0"):
            if let c = current, Self.isDigit(c) {
                throw error("invalid escape '\\0' followed by a digit in string", at: escapeStart)
            }
            utf8.append(0)
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in string", at: escapeStart)
        case UInt8(ascii: "x"):
            let code = try parseHexEscape(digits: 2, escapeStart: escapeStart)
            utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(UInt8(code)))!)
        case UInt8(ascii: "u"):
            try appendUnicodeEscape(into: &utf8, escapeStart: escapeStart)
        default:
            // Any other character stands for itself; a multi-byte one is copied whole.
            let length = scalar(at: index - 1)?.1 ?? 1
            utf8.append(contentsOf: bytes[(index - 1)..<(index - 1 + length)])
            index += length - 1
        }
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`; a lone surrogate is an error.
    mutating func appendUnicodeEscape(into utf8: inout [UInt8], escapeStart: Int) throws(SyntaxError) {
        var code = try parseHexEscape(digits: 4, escapeStart: escapeStart)
        if (0xD800...0xDBFF).contains(code) {
            guard byte(at: index) == UInt8(ascii: "\\"), byte(at: index + 1) == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in \\u escape", at: escapeStart)
            }
            index += 2
            let low = try parseHexEscape(digits: 4, escapeStart: escapeStart)
            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape", at: escapeStart) }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
            throw error("unpaired surrogate in \\u escape", at: escapeStart)
        }
        utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(code)!)!)
    }

    /// `digits` hexadecimal digits after `\x` or `\u`.
    mutating func parseHexEscape(digits: Int, escapeStart: Int) throws(SyntaxError) -> UInt32 {
        let name = digits == 2 ? "\\x" : "\\u"
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let c = current, let d = Self.hexDigit(c) else {
                throw error("invalid hex digit in \(name) escape (it takes \(digits))", at: escapeStart)
            }
            value = value << 4 | d
            index += 1
        }
        return value
    }
}
