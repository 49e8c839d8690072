import PulsarCore
import PulsarSession

/// Prints warnings the way a person can read them: each kind once with its first place and how
/// many more there were like it, at most `limit` lines, then one line counting the rest
/// ("… and 99 999 more warnings").
enum WarningPrinter {
    static func print<R>(_ warnings: [Diagnostic<R>], limit: Int = 20, prefix: String = "pulsar: warning: ",
                         to line: (String) -> Void = { Console.error($0) }) {
        print(warnings.map(ContentWarning.init), limit: limit, prefix: prefix, to: line)
    }

    static func print(_ warnings: [ContentWarning], limit: Int = 20, prefix: String = "pulsar: warning: ",
                      to line: (String) -> Void = { Console.error($0) }) {
        var order: [String] = []
        var groups: [String: (first: ContentWarning, count: Int)] = [:]
        for w in warnings {
            // Same rule and same words (the place aside): the same warning.
            let key = "\(w.rule)\u{0}\(w.message)"
            if let g = groups[key] {
                groups[key] = (g.first, g.count + 1)
            } else {
                groups[key] = (w, 1)
                order.append(key)
            }
        }
        var shown = 0
        for key in order.prefix(limit) {
            let g = groups[key]!
            line(MessageText.line(prefix + g.first.description + (g.count > 1 ? " (and \(g.count - 1) more like it)" : "")))
            shown += g.count
        }
        if warnings.count > shown {
            line("\(prefix)… and \(warnings.count - shown) more warnings")
        }
    }
}
