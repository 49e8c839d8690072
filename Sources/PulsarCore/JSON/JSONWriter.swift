/// Writes `JSONValue` trees as pretty-printed JSON with members in the order given, and numbers
/// in their shortest round-tripping form (`10`, not `10.0`), so exported files read like
/// hand-written ones and reload to the same doubles.
///
/// Stateless: safe to use from any thread.
public struct JSONWriter: Sendable {
    /// Spaces per nesting level.
    public var indent: Int = 2

    public init(indent: Int = 2) {
        self.indent = indent
    }

    /// The document as UTF-8 text, with a final newline.
    public func write(_ value: JSONValue) -> String {
        var out = ""
        append(value, to: &out, level: 0)
        out.append("\n")
        return out
    }

    /// A number the way the writer prints it: integers without a fraction, others shortest.
    public static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return "\(number)"
    }

    private func append(_ value: JSONValue, to out: inout String, level: Int) {
        switch value.kind {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .number(let n): out.append(Self.format(n))
        case .string(let s): appendString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { out.append("[]"); return }
            // Arrays of numbers only (raw points) stay on one line.
            if elements.allSatisfy({ $0.number != nil }) {
                out.append("[")
                out.append(elements.map { Self.format($0.number!) }.joined(separator: ", "))
                out.append("]")
                return
            }
            out.append("[\n")
            for (i, element) in elements.enumerated() {
                pad(&out, level + 1)
                append(element, to: &out, level: level + 1)
                out.append(i + 1 < elements.count ? ",\n" : "\n")
            }
            pad(&out, level)
            out.append("]")
        case .object(let members):
            if members.isEmpty { out.append("{}"); return }
            out.append("{\n")
            for (i, member) in members.enumerated() {
                pad(&out, level + 1)
                appendString(member.key, to: &out)
                out.append(": ")
                append(member.value, to: &out, level: level + 1)
                out.append(i + 1 < members.count ? ",\n" : "\n")
            }
            pad(&out, level)
            out.append("}")
        }
    }

    private func pad(_ out: inout String, _ level: Int) {
        out.append(String(repeating: " ", count: level * indent))
    }

    private func appendString(_ s: String, to out: inout String) {
        out.append("\"")
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }
}

extension JSONValue {
    /// Convenience builders for writers of formats.
    public static func num(_ v: Double) -> JSONValue { JSONValue(.number(v)) }
    public static func str(_ v: String) -> JSONValue { JSONValue(.string(v)) }
    public static func arr(_ v: [JSONValue]) -> JSONValue { JSONValue(.array(v)) }
    public static func obj(_ v: KeyValuePairs<String, JSONValue>) -> JSONValue {
        JSONValue(.object(v.map { (key: $0.key, value: $0.value) }))
    }
}
