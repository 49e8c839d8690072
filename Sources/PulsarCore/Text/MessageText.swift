/// Text for one-line error messages: names and values from hostile input cannot break the line.
///
/// Pure functions: any thread.
public enum MessageText {
    /// `text` with control characters escaped (`\n`, `\u{7}`).
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Input echoed in a message: on one line, and cut after `limit` characters with the count
    /// of the rest (`unknown command 'xxxx… (19 999 920 more characters)'`), so hostile input
    /// cannot make a message long.
    public static func excerpt(_ text: String, limit: Int = 80) -> String {
        guard text.utf8.count > limit else { return oneLine(text) }
        let head = text.prefix(limit)
        let rest = text.count - head.count
        return rest > 0 ? "\(oneLine(String(head)))… (\(rest) more characters)" : oneLine(text)
    }

    /// A name quoted for a message: `"name"` with control characters escaped.
    public static func quoted(_ name: String) -> String { "\"\(oneLine(name))\"" }
}
