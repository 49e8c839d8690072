/// Text for one-line error messages: names and values from hostile input cannot break the line.
///
/// Pure functions: any thread.
public enum MessageText {
    /// The longest line `line(_:)` lets through, in characters.
    public static let maximumLine = 300

    /// Whether `scalar` would break or hide a line on a terminal: C0 and C1 controls, DEL, the
    /// Unicode line and paragraph separators (U+2028, U+2029) and the bidirectional overrides
    /// and isolates (U+202A–202E, U+2066–2069), which can reorder what a reader sees.
    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `text` with control characters escaped (`\n`, `\u{7}`, `\u{2028}`).
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: breaksLine) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if breaksLine(scalar) {
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
    public static func quoted(_ name: String) -> String { "\"\(excerpt(name, limit: 120))\"" }

    /// A whole message as printed: on one line, and at most `maximumLine` characters. A longer
    /// one keeps its start and its end (where the rule, `[rule]`, stands) with the count of what
    /// was left out between them. The backstop for every message a front end prints or returns,
    /// whatever its parts escaped or cut on their own.
    public static func line(_ message: String) -> String {
        var flat = oneLine(message)
        guard flat.count > maximumLine else { return flat }
        // Names first: a long path keeps what precedes it and its file's name
        // (`'pipewire:SERVER=…/pipewire-0'`, `…/pulse.json:`).
        flat = flat.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            guard word.count > 40, let first = word.firstIndex(of: "/"), let last = word.dropLast().lastIndex(of: "/"), first < last else {
                return String(word)
            }
            return String(word[..<first]) + "…" + String(word[last...])
        }.joined(separator: " ")
        guard flat.count > maximumLine else { return flat }
        let tail = 90, head = maximumLine - tail - 40
        let left = flat.count - head - tail
        return "\(flat.prefix(head))… (\(left) characters left out) …\(flat.suffix(tail))"
    }
}
