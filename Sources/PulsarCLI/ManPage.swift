import PulsarCore

/// `pulsar(1)` and `pulsar-COMMAND(1)` as roff (the man macros), made from the help texts so
/// a page says what `--help` says, word for word:
///
/// - NAME: `pulsar-COMMAND \- summary`, the summary of `pulsar --help`'s command list;
/// - SYNOPSIS: one `.SY`/`.YS` per synopsis of the `usage:` lines (its continuation lines filled
///   after the command's name, with a hanging indent);
/// - DESCRIPTION: the rest, block for block: prose as `.PP` paragraphs, an indented list as
///   `.TP` items at the help's own indentation and description column (`.RS`, `.TP WIDTH`), as
///   tight as in the help (`.PD 0`);
/// - pulsar(1) adds EXIT STATUS; SEE ALSO names pulsar(1) and the pages of the commands a help
///   text mentions (`pulsar COMMAND`), or, in pulsar(1), every command's page.
///
/// Escaped for roff: backslashes, a line's leading `.`, the hyphens of option names and
/// command-line words as `\-`, quotes as `\(aq` and `\(ga` (so they print as typed), every
/// non-ASCII character as `\[uXXXX]`. Hyphenation and justification are off: the pages are
/// full of option names, paths and values to copy. The date field is the version: the same
/// build makes the same pages.
enum ManPage {
    static let manual = "Pulsar Manual"

    /// `pulsar(1)`.
    static func tool() -> String {
        let help = HelpText(PulsarTool.usage)
        var page = header(name: "pulsar", summary: PulsarTool.summary, source: "`pulsar --man-page` from `pulsar --help`")
        page += synopsis(help, program: "pulsar")
        page += description(help)
        page += ".SH EXIT STATUS\n"
        page += list(indent: 0, width: 6, items: PulsarTool.exitCodes.map {
            HelpText.Item(tag: String($0.code.rawValue), description: [$0.meaning])
        }, first: true)
        page += seeAlso(CLICommand.all.map { "pulsar-\($0.name)" })
        return page
    }

    /// `pulsar-COMMAND(1)`.
    static func command(_ command: CLICommand) -> String {
        let help = HelpText(command.help)
        let program = "pulsar \(command.name)"
        var page = header(name: "pulsar-\(command.name)", summary: command.summary,
                          source: "`pulsar --man-page \(command.name)` from `\(program) --help`")
        page += synopsis(help, program: program)
        page += description(help)
        let mentioned = CLICommand.all.map(\.name).filter { $0 != command.name && command.help.contains("pulsar \($0)") }
        page += seeAlso(["pulsar"] + mentioned.map { "pulsar-\($0)" })
        return page
    }

    private static func header(name: String, summary: String, source: String) -> String {
        """
        .\\" \(name)(1), made by \(escapeComment(source)).
        .TH \(escape(name.uppercased(), minus: true)) 1 "\(Pulsar.version)" "pulsar \(Pulsar.version)" "\(manual)"
        .nr HY 0
        .nh
        .ad l
        .SH NAME
        \(escape(name, minus: true)) \\- \(escape(summary))
        .SH SYNOPSIS

        """
    }

    private static func synopsis(_ help: HelpText, program: String) -> String {
        var roff = ""
        for lines in help.synopses {
            guard var first = lines.first else { continue }
            if first.hasPrefix(program) { first.removeFirst(program.count) }
            roff += ".SY \"\(escape(program, minus: true))\"\n"
            for line in [first] + lines.dropFirst() {
                let text = line.trimmingSpaces
                if !text.isEmpty { roff += textLine(escape(text, marks: true)) }
            }
            roff += ".YS\n"
        }
        return roff
    }

    private static func description(_ help: HelpText) -> String {
        var roff = ".SH DESCRIPTION\n"
        for block in help.blocks {
            for (index, part) in block.enumerated() {
                switch part {
                case .paragraph(let lines):
                    // A paragraph right after a list in the same block follows it without a gap.
                    roff += index == 0 ? ".PP\n" : ".PD 0\n.PP\n.PD\n"
                    for line in lines { roff += textLine(escape(line)) }
                case .list(let indent, let width, let items):
                    if index == 0 { roff += ".PP\n" }
                    roff += list(indent: indent, width: width, items: items, first: index == 0)
                }
            }
        }
        return roff
    }

    /// Tagged paragraphs: each tag at `indent`, its description `width` columns further in.
    private static func list(indent: Int, width: Int, items: [HelpText.Item], first: Bool) -> String {
        var roff = indent > 0 ? ".RS \(indent)n\n" : ""
        roff += ".PD 0\n"
        for item in items {
            roff += ".TP \(max(width, 1))n\n"
            roff += textLine(escape(item.tag, marks: true, tag: true))
            if !item.descriptionBesideTag, !item.description.isEmpty { roff += ".br\n" }
            for line in item.description { roff += textLine(escape(line)) }
        }
        roff += ".PD\n"
        if indent > 0 { roff += ".RE\n" }
        return roff
    }

    private static func seeAlso(_ pages: [String]) -> String {
        var roff = ".SH SEE ALSO\n"
        for (i, page) in pages.enumerated() {
            roff += ".BR \(escape(page, minus: true)) (1)\(i + 1 < pages.count ? "," : "")\n"
        }
        return roff
    }

    /// One line of text input: a leading `.` or `'` would make it a request.
    private static func textLine(_ escaped: String) -> String {
        (escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" : "") + escaped + "\n"
    }

    private static func escapeComment(_ text: String) -> String {
        String(text.map { $0.isASCII ? $0 : "?" })
    }

    /// `text` as roff input. Hyphens in a word that is (or holds) a command-line word — one at
    /// its start or after punctuation, as in `--layout`, `[--quiet]`, `+-10%` — become `\-` and
    /// print as typed; other hyphens (`device-slaved`, `16-bit`) stay hyphens. With `minus`,
    /// every hyphen is `\-` (names). With `marks`, option names are bold, capitalised
    /// placeholders (`INPUT`, `MS`) italic and a line may break after a `,` or `|` within a
    /// word (`\:`); with `tag` too, a tag without an option name has its
    /// first word bold.
    static func escape(_ text: String, minus: Bool = false, marks: Bool = false, tag: Bool = false) -> String {
        let chars = Array(text)
        var commandLine = [Bool](repeating: minus, count: chars.count)
        var start = 0
        while start < chars.count {
            var end = start
            while end < chars.count, chars[end] != " " { end += 1 }
            if (start..<end).contains(where: { chars[$0] == "-" && ($0 == start || !isWordCharacter(chars[$0 - 1])) }) {
                for k in start..<end { commandLine[k] = true }
            }
            start = end + 1
        }
        func plain(_ k: Int) -> String {
            let c = chars[k]
            switch c {
            case "\\": return "\\e"
            case "-": return commandLine[k] ? "\\-" : "-"
            case "'": return "\\(aq"
            case "`": return "\\(ga"
            case "\t": return " "
            default:
                guard c.isASCII else {
                    return c.unicodeScalars.map { "\\[u" + hex($0.value) + "]" }.joined()
                }
                return String(c)
            }
        }
        guard marks else { return (0..<chars.count).map(plain).joined() }
        let hasOption = !HelpText.optionNames(in: text).isEmpty
        var out = ""
        var k = 0
        while k < chars.count {
            let before: Character? = k > 0 ? chars[k - 1] : nil
            let startsWord = before.map { !(isWordCharacter($0) || $0 == "-") } ?? true
            if chars[k] == "-", startsWord, let end = optionEnd(chars, from: k) {
                out += "\\fB" + (k..<end).map { chars[$0] == "-" ? "\\-" : String(chars[$0]) }.joined() + "\\fR"
                k = end
                continue
            }
            if chars[k].isASCII, chars[k].isUppercase, before.map({ !$0.isLetter }) ?? true {
                var end = k
                while end < chars.count, chars[end].isASCII, chars[end].isUppercase || chars[end].isNumber || chars[end] == "_" { end += 1 }
                if end == chars.count || !chars[end].isLetter {
                    out += "\\fI" + String(chars[k..<end]) + "\\fR"
                } else {
                    out += (k..<end).map(plain).joined()
                }
                k = end
                continue
            }
            if tag, !hasOption, k == 0 {
                var end = 0
                while end < chars.count, chars[end] != " " { end += 1 }
                out += "\\fB" + (0..<end).map(plain).joined() + "\\fR"
                k = end
                continue
            }
            out += plain(k)
            // A long value list may break after a comma or bar, as at a space.
            if chars[k] == "," || chars[k] == "|", k + 1 < chars.count, chars[k + 1] != " " { out += "\\:" }
            k += 1
        }
        return out
    }

    /// The end of the option name starting at `k` (`-o`, `--time-unit`), if one does.
    private static func optionEnd(_ chars: [Character], from k: Int) -> Int? {
        var j = k
        while j < chars.count, chars[j] == "-" { j += 1 }
        guard j - k <= 2, j < chars.count, chars[j].isASCII, chars[j].isLetter else { return nil }
        while j < chars.count, chars[j].isASCII, chars[j].isLetter || chars[j].isNumber || chars[j] == "-" { j += 1 }
        return j
    }

    private static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber }

    private static func hex(_ v: UInt32) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(4 - digits.count, 0)) + digits
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
