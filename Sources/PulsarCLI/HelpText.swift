/// A help text (`pulsar --help`, `pulsar COMMAND --help`) read as its parts: the synopses of its
/// `usage:` lines, then blocks (separated by blank lines) of prose paragraphs and indented lists
/// of `TAG  description` items. The man pages and the completion scripts read it this way.
///
/// The shape it reads: the first block is `usage: pulsar … ` and its continuation lines (a line
/// that starts `pulsar` after the width of `usage: ` starts another synopsis); a line at column 0
/// is prose; an indented line is a list item — its tag, two or more spaces, its description — or,
/// indented further than the item, the continuation of the item's description.
struct HelpText {
    /// One way to call the command: its lines, the first starting with the program's name,
    /// each without its indentation.
    var synopses: [[String]] = []
    var blocks: [[Part]] = []

    enum Part: Equatable {
        /// Prose lines, one paragraph.
        case paragraph([String])
        /// Items indented by `indent` columns, descriptions `width` columns after that.
        case list(indent: Int, width: Int, items: [Item])
    }

    struct Item: Equatable {
        var tag: String
        var description: [String]
        /// Whether the description starts on the tag's line (else on the next).
        var descriptionBesideTag = true
    }

    init(_ text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
        while lines.last?.allSatisfy(\.isWhitespace) == true { lines.removeLast() }
        var index = 0
        let prefix = "usage: "
        if let first = lines.first, first.hasPrefix(prefix) {
            while index < lines.count, !Self.isBlank(lines[index]) {
                let line = lines[index]
                let indent = Self.indent(line)
                let body = index == 0 ? String(line.dropFirst(prefix.count))
                    : indent >= prefix.count ? String(line.dropFirst(prefix.count)) : Self.trimmed(line)
                if synopses.isEmpty || (!body.hasPrefix(" ") && body.hasPrefix("pulsar")) {
                    synopses.append([Self.trimmed(body)])
                } else {
                    synopses[synopses.count - 1].append(Self.trimmed(body))
                }
                index += 1
            }
        }
        var block: [Part] = []
        for line in lines[index...] {
            if Self.isBlank(line) {
                if !block.isEmpty { blocks.append(block) }
                block = []
                continue
            }
            Self.add(line, to: &block)
        }
        if !block.isEmpty { blocks.append(block) }
    }

    private static func add(_ line: String, to block: inout [Part]) {
        let indent = Self.indent(line)
        let body = trimmed(line)
        if indent == 0 {
            if case .paragraph(var lines)? = block.last {
                lines.append(body)
                block[block.count - 1] = .paragraph(lines)
            } else {
                block.append(.paragraph([body]))
            }
            return
        }
        if case .list(let listIndent, var width, var items)? = block.last {
            if indent > listIndent, !items.isEmpty {
                if items[items.count - 1].description.isEmpty, width == 0 { width = indent - listIndent }
                items[items.count - 1].description.append(body)
            } else {
                let (item, column) = Self.item(body)
                if width == 0, let column { width = column }
                items.append(item)
            }
            block[block.count - 1] = .list(indent: listIndent, width: width, items: items)
        } else {
            let (item, column) = Self.item(body)
            block.append(.list(indent: indent, width: column ?? 0, items: [item]))
        }
    }

    /// An item line (without its indentation): the tag, and the column of its description.
    private static func item(_ body: String) -> (Item, Int?) {
        let chars = Array(body)
        var i = 0
        while i + 1 < chars.count {
            if chars[i] == " ", chars[i + 1] == " " {
                var j = i
                while j < chars.count, chars[j] == " " { j += 1 }
                return (Item(tag: String(chars[..<i]), description: [String(chars[j...])]), j)
            }
            i += 1
        }
        return (Item(tag: body, description: [], descriptionBesideTag: false), nil)
    }

    private static func isBlank(_ line: String) -> Bool { line.allSatisfy(\.isWhitespace) }

    private static func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    private static func trimmed(_ line: String) -> String {
        var s = Substring(line)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }

    /// Every list item, in order.
    var items: [Item] {
        blocks.flatMap { $0 }.flatMap { part -> [Item] in
            if case .list(_, _, let items) = part { return items }
            return []
        }
    }

    /// The item whose tag names `option` (e.g. `--from` in `--from MS, --to MS`), if any.
    func item(naming option: String) -> Item? {
        items.first { Self.optionNames(in: $0.tag).contains(option) }
    }

    /// The option names (`-o`, `--output`) among `text`'s words.
    static func optionNames(in text: String) -> [String] {
        var names: [String] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let startsWord = i == 0 || !(chars[i - 1].isLetter || chars[i - 1].isNumber || chars[i - 1] == "-")
            if chars[i] == "-", startsWord {
                var j = i
                while j < chars.count, chars[j] == "-" { j += 1 }
                if j - i <= 2, j < chars.count, chars[j].isASCII, chars[j].isLetter {
                    while j < chars.count, chars[j].isASCII, chars[j].isLetter || chars[j].isNumber || chars[j] == "-" { j += 1 }
                    names.append(String(chars[i..<j]))
                    i = j
                    continue
                }
            }
            i += 1
        }
        return names
    }

    /// What the item's tag calls `option`'s value (`PATH` in `-o, --output PATH`), if anything.
    static func metavar(of option: String, in tag: String) -> String? {
        let words = tag.split(separator: " ").map(String.init)
        guard let at = words.firstIndex(where: { $0.trimmingCommas == option }), at + 1 < words.count else { return nil }
        let next = words[at + 1]
        guard !next.hasPrefix("-"), !words[at].hasSuffix(",") else { return nil }
        return next.trimmingCommas
    }
}

private extension String {
    var trimmingCommas: String {
        var s = Substring(self)
        while s.last == "," { s.removeLast() }
        return String(s)
    }
}
