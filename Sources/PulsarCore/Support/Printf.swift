#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value `String(printf:)` can format: the C library formats numbers, `%@` takes any text.
package protocol PrintfArgument {
    /// The value as C variadic argument, or nil for text (`%@`).
    var cArgument: (any CVarArg)? { get }
}

extension Int: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension Int32: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension Int64: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension UInt: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension UInt32: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension UInt64: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension Double: PrintfArgument { package var cArgument: (any CVarArg)? { self } }
extension Float: PrintfArgument { package var cArgument: (any CVarArg)? { Double(self) } }
extension String: PrintfArgument { package var cArgument: (any CVarArg)? { nil } }
extension Substring: PrintfArgument { package var cArgument: (any CVarArg)? { nil } }

extension String {
    /// `String(printf:)` without Foundation (whose formatting pulls in ICU): each conversion of
    /// `format` (`%[flags][width][.precision][length]conversion`) is handed with its argument to
    /// the C library's `vsnprintf`, so numbers print exactly as `printf` prints them (the C
    /// locale's decimal point); `%@` inserts a `String`, `%%` a percent sign. A conversion
    /// without its argument, or of the wrong kind, prints nothing: the format strings are the
    /// program's own.
    package init(printf format: String, _ arguments: any PrintfArgument...) {
        var out = ""
        var next = arguments.makeIterator()
        var scalars = Array(format.unicodeScalars)[...]
        while let percent = scalars.firstIndex(of: "%") {
            out.unicodeScalars.append(contentsOf: scalars[..<percent])
            var end = percent + 1
            while end < scalars.endIndex, !Self.isConversion(scalars[end]) { end += 1 }
            guard end < scalars.endIndex else { scalars = scalars[scalars.endIndex...]; break }
            let spec = String(String.UnicodeScalarView(scalars[percent...end]))
            switch scalars[end] {
            case "%": out += "%"
            case "@": if let argument = next.next() { out += "\(argument)" }
            default:
                if let argument = next.next()?.cArgument { out += Self.formatOne(spec, argument) }
            }
            scalars = scalars[(end + 1)...]
        }
        out.unicodeScalars.append(contentsOf: scalars)
        self = out
    }

    private static func isConversion(_ c: Unicode.Scalar) -> Bool {
        "diouxXeEfFgGaAcs@%".unicodeScalars.contains(c)
    }

    /// One conversion through `vsnprintf`; an integer conversion gets the `l` length its 64-bit
    /// argument needs.
    private static func formatOne(_ spec: String, _ argument: any CVarArg) -> String {
        var spec = spec
        if argument is Int || argument is Int64 || argument is UInt || argument is UInt64, let last = spec.last,
           "diouxX".contains(last), !spec.contains("l") {
            spec.insert("l", at: spec.index(before: spec.endIndex))
        }
        var buffer = [CChar](repeating: 0, count: 64)
        var needed = withVaList([argument]) { Int(vsnprintf(&buffer, buffer.count, spec, $0)) }
        if needed >= buffer.count {
            buffer = [CChar](repeating: 0, count: needed + 1)
            needed = withVaList([argument]) { Int(vsnprintf(&buffer, buffer.count, spec, $0)) }
        }
        return String(decoding: buffer.prefix(Swift.max(needed, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
