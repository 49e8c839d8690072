import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PulsarTestSupport
import Testing

/// `pulsar --man-page`, `--completion bash|zsh`, `--complete-presets` and `--complete-devices`,
/// checked against what stands outside them: the `--help` texts (a page must say what they say,
/// word for word, and render without a warning from groff), the parser (every option a help
/// text or a completion names is one it accepts), bash and zsh running the scripts, and
/// bundles whose manifests the tests write.
@Suite("Man pages and completions")
struct ManAndCompletionTests {
    /// The commands of `pulsar`, as its README and `pulsar --help` present them.
    static let commands = ["render", "info", "convert", "pack", "play", "devices", "frame", "keypaths", "view", "video", "drift", "latency", "follow", "derive", "actuators", "lint", "plot"]

    /// `pulsar --man-page` for the tool (nil) and `--man-page COMMAND` for each command.
    static let pages: [String?] = [nil] + commands.map { $0 }

    static let zsh = ["/usr/bin/zsh", "/bin/zsh"].first { FileManager.default.isExecutableFile(atPath: $0) }

    // MARK: Running things

    /// Runs a program of the system; `environment` entries replace inherited ones.
    static func system(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess.Result {
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(path) is not installed")
        return try ChildProcess.run(path, arguments, environment: environment)
    }

    /// The page's roff: `pulsar --man-page [COMMAND]`, which must succeed quietly.
    static func roff(_ command: String?) throws -> String {
        let r = try CLI.run(["--man-page"] + (command.map { [$0] } ?? []))
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        return r.stdout
    }

    /// `roff` through `man -l -` at `width` columns, with man's own formatting (overstrikes,
    /// SGR sequences) taken out.
    static func man(_ roff: String, width: Int, in dir: TempDir) throws -> CLIResult {
        let file = try dir.write(roff, to: "page-\(UUID().uuidString).1")
        let r = try system("/bin/bash", ["-c", #"exec /usr/bin/env -u MAN_KEEP_FORMATTING MANWIDTH="$1" MANPAGER=cat PAGER=cat LANG=C.UTF-8 /usr/bin/man -l - < "$2""#,
                                         "man", String(width), file])
        return CLIResult(status: r.status, stdout: plain(r.stdout), stderr: r.stderr)
    }

    /// Text without terminal formatting: `X\bX` overstrikes and `ESC[…m` sequences.
    static func plain(_ text: String) -> String {
        var out: [Character] = []
        var chars = Array(text)[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            if c == "\u{8}" {
                if !out.isEmpty { out.removeLast() }
            } else if c == "\u{1B}", chars.first == "[" {
                chars = chars.dropFirst()
                while let d = chars.first, !d.isLetter { chars = chars.dropFirst() }
                chars = chars.dropFirst()
            } else {
                out.append(c)
            }
        }
        return String(out)
    }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    /// The words of a rendered page from the line `first` to the line `last` (section
    /// headings), without those headings and without the DESCRIPTION heading between them.
    static func words(of rendered: String, from first: String, to last: String) throws -> [String] {
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: first), "no \(first) heading in\n\(rendered)")
        let end = try #require(lines[start...].firstIndex(of: last), "no \(last) heading in\n\(rendered)")
        return lines[(start + 1)..<end].filter { $0 != "DESCRIPTION" }.flatMap { words(String($0)) }
    }

    /// `--help` of `command` (nil: of pulsar).
    static func help(_ command: String?) throws -> String {
        let r = try CLI.run((command.map { [$0] } ?? []) + ["--help"])
        try #require(r.status == 0, "\(r)")
        return r.stdout
    }

    /// The option names (`-o`, `--time-unit`) among `text`'s words: a `-` or `--` at the start
    /// of a word or after punctuation, then a letter.
    static func optionWords(_ text: String) -> [String] {
        let chars = Array(text)
        var found: [String] = []
        var i = 0
        while i < chars.count {
            if chars[i] == "-", i == 0 || !(chars[i - 1].isLetter || chars[i - 1].isNumber || chars[i - 1] == "-") {
                var j = i
                while j < chars.count, chars[j] == "-" { j += 1 }
                if j - i <= 2, j < chars.count, chars[j].isASCII, chars[j].isLetter {
                    while j < chars.count, chars[j].isASCII, chars[j].isLetter || chars[j].isNumber || chars[j] == "-" { j += 1 }
                    found.append(String(chars[i..<j]))
                    i = j
                    continue
                }
            }
            i += 1
        }
        return found
    }

    /// The `usage:` lines of a help text: up to the first blank line.
    static func usageLines(_ help: String) -> String {
        help.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .joined(separator: "\n")
    }

    /// The tags of a help text's indented option lists: an indented line that starts with `-`,
    /// up to two spaces.
    static func optionTags(_ help: String) -> [String] {
        help.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  ") else { return nil }
            let body = line.drop { $0 == " " }
            guard body.hasPrefix("-") else { return nil }
            return body.range(of: "  ").map { String(body[..<$0.lowerBound]) } ?? String(body)
        }
    }

    /// Whether `word` occurs in `text` as a whole command-line word (not inside `--word-more`).
    static func mentions(_ text: String, _ word: String) -> Bool {
        var searchRange = text.startIndex..<text.endIndex
        while let r = text.range(of: word, range: searchRange) {
            let before = r.lowerBound == text.startIndex ? nil : text[text.index(before: r.lowerBound)]
            let after = r.upperBound == text.endIndex ? nil : text[r.upperBound]
            func joins(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "-" } ?? false }
            if !joins(before), !joins(after) { return true }
            searchRange = r.upperBound..<text.endIndex
        }
        return false
    }

    /// What the parser of `command` makes of `option`: given inline (`--name=x`) or with a value,
    /// and followed by an option no command has, so the run always ends in the parser (exit 64)
    /// and nothing is played or written. True when it knows the option.
    static func parserAccepts(_ command: String, _ option: String) throws -> Bool {
        let given = option.hasPrefix("--") ? [option + "=x"] : [option, "x"]
        let r = try CLI.run([command] + given + ["--zz-no-such-option"])
        #expect(r.status == 64, "\(command) \(option): \(r)")
        return !r.stderr.contains("unknown option '\(option)'")
    }

    // MARK: bash

    /// Runs the bash completion for the command line `line` (completing its last word; a
    /// trailing space starts a new one) with this build's `pulsar` first on PATH; the replies.
    static func bashComplete(_ line: String, script: String, environment: [String: String] = [:]) throws -> [String] {
        let folder = URL(fileURLWithPath: try CLI.executable()).deletingLastPathComponent().path
        let path = folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let r = try system("/bin/bash", ["-c", """
            source "$1" || exit 90
            COMP_LINE=$2
            COMP_POINT=${#COMP_LINE}
            read -r -a COMP_WORDS <<<"$COMP_LINE"
            [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=('')
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            _pulsar || exit 91
            (( ${#COMPREPLY[@]} )) && printf '%s\\n' "${COMPREPLY[@]}"
            exit 0
            """, "bash", script, line], environment: environment.merging(["PATH": path]) { $1 })
        #expect(r.status == 0 && r.stderr.isEmpty, "\(line): \(r.status) \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    static func bashScript(in dir: TempDir) throws -> String {
        let r = try CLI.run(["--completion", "bash"])
        try #require(r.status == 0 && r.stderr.isEmpty, "\(r)")
        return try dir.write(r.stdout, to: "pulsar.bash")
    }

    /// A bundle folder of presets with these ids, written here, and the same packed by
    /// `pulsar pack`.
    static func bundles(ids: [String], in dir: TempDir) throws -> (folder: String, packed: String) {
        let folder = try dir.directory("bundle")
        _ = try dir.directory("bundle/haptics")
        let presets = ids.map { #"{"id":"\#($0)","name":"\#($0)","haptics":"haptics/\#($0).json"}"# }.joined(separator: ",")
        try dir.write(#"{"schema":"pulsar.bundle/1","id":"dev.test.completion","name":"t","presets":[\#(presets)]}"#, to: "bundle/manifest.json")
        for id in ids { try dir.write(CLITests.workedExample, to: "bundle/haptics/\(id).json") }
        let packed = dir.file("packed.pulsar")
        let r = try CLI.run(["pack", folder, "-o", packed, "--quiet"])
        try #require(r.status == 0, "\(r)")
        return (folder, packed)
    }

    // MARK: Man pages

    @Test("Each page renders with man and groff without a warning, and from SYNOPSIS on says exactly the words of its --help",
          arguments: pages)
    func pageSaysTheHelp(_ command: String?) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let roff = try Self.roff(command)
        let ascii = roff.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(ascii, "the roff is ASCII (other characters as \\[uXXXX])")
        let file = try dir.write(roff, to: "page.1")
        let groff = try Self.system("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", file])
        #expect(groff.status == 0 && groff.stderr.isEmpty, "groff: \(groff.stderr)")

        // On one very wide line per paragraph, nothing is broken or hyphenated: the words of the
        // page's SYNOPSIS and DESCRIPTION are the help's, in order ("usage:" is the SYNOPSIS heading).
        let wide = try Self.man(roff, width: 10_000, in: dir)
        #expect(wide.status == 0 && wide.stderr.isEmpty, "man: \(wide.stderr)")
        var helpWords = Self.words(try Self.help(command))
        #expect(helpWords.first == "usage:")
        helpWords.removeFirst()
        let pageWords = try Self.words(of: wide.stdout, from: "SYNOPSIS", to: command == nil ? "EXIT STATUS" : "SEE ALSO")
        #expect(pageWords == helpWords, "first difference at word \(zip(pageWords, helpWords).prefix { $0 == $1 }.count): page \(pageWords.dropFirst(zip(pageWords, helpWords).prefix { $0 == $1 }.count).prefix(8)) help \(helpWords.dropFirst(zip(pageWords, helpWords).prefix { $0 == $1 }.count).prefix(8))")

        // At 80 columns the page fits a terminal.
        let narrow = try Self.man(roff, width: 80, in: dir)
        #expect(narrow.status == 0 && narrow.stderr.isEmpty, "man: \(narrow.stderr)")
        let long = narrow.stdout.split(separator: "\n").filter { $0.count > 80 }
        #expect(long.isEmpty, "\(long)")
    }

    @Test("NAME is the command list's line, the header carries the version and no date, SEE ALSO names the pages",
          arguments: pages)
    func nameHeaderSeeAlso(_ command: String?) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let roff = try Self.roff(command)
        let version = try CLI.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)  // "pulsar X.Y.Z"
        let number = String(version.dropFirst("pulsar ".count))
        let title = (command.map { "pulsar-\($0)" } ?? "pulsar").uppercased().replacingOccurrences(of: "-", with: "\\-")
        let th = roff.split(separator: "\n").first { $0.hasPrefix(".TH ") }
        #expect(th.map(String.init) == ".TH \(title) 1 \"\(number)\" \"\(version)\" \"Pulsar Manual\"", "\(th ?? "no .TH")")
        #expect(try Self.roff(command) == roff, "the same page every time")

        let rendered = try Self.man(roff, width: 10_000, in: dir).stdout
        let nameSection = try Self.words(of: rendered, from: "NAME", to: "SYNOPSIS")
        // SEE ALSO: its indented lines, up to the footer.
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        let seeAlso = lines.drop { $0 != "SEE ALSO" }.dropFirst().prefix { $0.isEmpty || $0.hasPrefix(" ") }.flatMap { Self.words(String($0)) }
        if let command {
            let listed = try Self.help(nil).split(separator: "\n").first { $0.hasPrefix("  \(command) ") }
            let summary = try #require(listed).dropFirst(2 + command.count).trimmingCharacters(in: .whitespaces)
            #expect(nameSection == ["pulsar-\(command)", "-"] + Self.words(summary))
            #expect(seeAlso.first == "pulsar(1)" || seeAlso.first == "pulsar(1),", "\(seeAlso)")
        } else {
            #expect(nameSection.first == "pulsar" && nameSection.dropFirst().first == "-")
            let pages = Self.commands.map { "pulsar-\($0)(1)" }
            #expect(Array(seeAlso.prefix(pages.count)).map { $0.trimmingCharacters(in: [","]) } == pages, "\(seeAlso)")
            // EXIT STATUS lists the codes the usage text names.
            let status = try Self.words(of: rendered, from: "EXIT STATUS", to: "SEE ALSO")
            for code in ["0", "64", "65", "66", "69", "70", "74", "130"] { #expect(status.contains(code), "\(code)") }
        }
    }

    @Test("--man-page with an unknown command: one line, exit 64")
    func unknownPage() throws {
        let r = try CLI.run(["--man-page", "nosuch"])
        #expect(r.status == 64 && r.stdout.isEmpty && r.stderrLines.count == 1 && r.stderr.contains("nosuch"), "\(r)")
        let two = try CLI.run(["--man-page", "render", "info"])
        #expect(two.status == 64 && two.stderrLines.count == 1, "\(two)")
        let shell = try CLI.run(["--completion", "fish"])
        #expect(shell.status == 64 && shell.stdout.isEmpty && shell.stderrLines.count == 1, "\(shell)")
    }

    @Test("pulsar --help lists the seventeen commands and the setup options")
    func usageLists() throws {
        let usage = try Self.help(nil)
        let listed = usage.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "commands:" }.dropFirst()
            .prefix { !$0.isEmpty }.map { String($0.split(separator: " ")[0]) }
        #expect(listed == Self.commands)
        for option in ["--man-page", "--completion", "--complete-presets", "--complete-devices"] { #expect(Self.mentions(usage, option)) }
        #expect(usage.contains("Exit codes: 0 ok, 1 findings, 64 usage,\n65 bad data, 66 missing input, 69 device unavailable, 70 internal error, 74 I/O error,\n130 interrupted."))
    }

    // MARK: Options: help, parser, completion

    @Test("Every option a help text names is one its parser takes and the completion offers; every option offered is in the help",
          arguments: commands)
    func optionsAgree(_ command: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let script = try Self.bashScript(in: dir)
        let help = try Self.help(command)
        let offered = try Self.bashComplete("pulsar \(command) -", script: script).filter { $0 != "--help" }
        let named = Set(Self.optionWords(Self.usageLines(help)) + Self.optionTags(help).flatMap(Self.optionWords))
            .subtracting(["-h", "--help"])
        for option in named.sorted() {
            #expect(try Self.parserAccepts(command, option), "\(command) --help names \(option), which the parser does not take")
            #expect(offered.contains(option), "\(command) --help names \(option), which the completion does not offer")
        }
        for option in offered {
            #expect(Self.mentions(help, option), "the completion offers \(command) \(option), which \(command) --help does not mention")
            #expect(try Self.parserAccepts(command, option), "the completion offers \(command) \(option), which the parser does not take")
        }
        let knowsBogus = try Self.parserAccepts(command, "--zz-other")
        #expect(!knowsBogus, "the probe tells an unknown option")
        if command == "devices" { #expect(offered.isEmpty && named.isEmpty) } else { #expect(!offered.isEmpty) }
    }

    // MARK: bash completion, run

    @Test("bash: commands, options, fixed values, files")
    func bashBasics() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let script = try Self.bashScript(in: dir)
        #expect(try Self.bashComplete("pulsar re", script: script) == ["render"])
        #expect(try Self.bashComplete("pulsar p", script: script).sorted() == ["pack", "play", "plot"])
        #expect(try Self.bashComplete("pulsar render --la", script: script) == ["--layout"])
        // The layouts `pulsar render --help` lists.
        #expect(Set(try Self.bashComplete("pulsar render --layout ", script: script)) == ["mix", "stereo+haptic", "quad", "haptic", "android"])
        // After `=`, readline replaces only what follows it (it is a word break).
        #expect(try Self.bashComplete("pulsar render --layout=st", script: script) == ["stereo+haptic"])
        #expect(Set(try Self.bashComplete("pulsar render --profile ", script: script)) == ["wideband", "lra"])
        #expect(Set(try Self.bashComplete("pulsar render --format ", script: script)) == ["float", "s16", "s24"])
        #expect(Set(try Self.bashComplete("pulsar info --time-unit ", script: script)) == ["auto", "ms", "s"])
        #expect(try Self.bashComplete("pulsar play x.json --loop ", script: script) == ["forever"])
        #expect(Set(try Self.bashComplete("pulsar frame x.json --mode ", script: script)) == ["fit", "fill", "stretch"])
        #expect(try Self.bashComplete("pulsar --man-page dr", script: script) == ["drift"])
        #expect(Set(try Self.bashComplete("pulsar --completion ", script: script)) == ["bash", "zsh"])
        #expect(try Self.bashComplete("pulsar --comp", script: script).sorted() == ["--complete-devices", "--complete-presets", "--completion"])
        // A free value (a number) offers nothing; after `--` an option-like word is a file.
        #expect(try Self.bashComplete("pulsar render --rate ", script: script).isEmpty)
        #expect(try Self.bashComplete("pulsar devices ", script: script).isEmpty)

        // Files: for an operand and for a path-valued option, including its --name=PATH form.
        try dir.write("{}", to: "alpha.json")
        try dir.write("{}", to: "alpine.ahap")
        try dir.write("{}", to: "beta.json")
        _ = try dir.directory("alps")
        let expected = Set(["alpha.json", "alpine.ahap", "alps"].map { dir.file($0) })
        #expect(Set(try Self.bashComplete("pulsar render \(dir.file("al"))", script: script)) == expected)
        #expect(Set(try Self.bashComplete("pulsar render x.json -o \(dir.file("al"))", script: script)) == expected)
        #expect(Set(try Self.bashComplete("pulsar render x.json --output=\(dir.file("al"))", script: script)) == expected)
        #expect(Set(try Self.bashComplete("pulsar info \(dir.file("b"))", script: script)) == [dir.file("beta.json")])
        #expect(try Self.bashComplete("pulsar render -- \(dir.file("al"))", script: script).count == 3)
    }

    @Test("bash: --preset offers exactly the ids of the bundle named earlier, a folder or a .pulsar")
    func bashPresets() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let script = try Self.bashScript(in: dir)
        // In manifest order, not sorted; `$` (an id may hold one) must reach the reply unexpanded.
        let ids = ["zeta", "alpha_1", "alpha2", "m$id"]
        let (folder, packed) = try Self.bundles(ids: ids, in: dir)
        for bundle in [folder, packed] {
            #expect(try Self.bashComplete("pulsar play \(bundle) --preset ", script: script) == ids, "\(bundle)")
            #expect(try Self.bashComplete("pulsar render -o out.wav --layout quad \(bundle) --preset al", script: script) == ["alpha_1", "alpha2"])
            #expect(try Self.bashComplete("pulsar render \(bundle) --preset=m", script: script) == ["m$id"])
        }
        // The value of an option is not the bundle; without a bundle there is nothing to offer.
        #expect(try Self.bashComplete("pulsar render -o \(folder) --preset ", script: script).isEmpty)
        #expect(try Self.bashComplete("pulsar play x.json --preset ", script: script).isEmpty)
        #expect(try Self.bashComplete("pulsar play \(dir.file("missing.pulsar")) --preset ", script: script).isEmpty)
    }

    @Test("bash: --device and --haptic-device offer auto, sim, the ALSA names, and dualsense when a usable one is there")
    func bashDevices() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let script = try Self.bashScript(in: dir)
        #expect(try Self.bashComplete("pulsar play x --device s", script: script).contains("sim"))
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/proc-asound").path
        let with = try Self.bashComplete("pulsar play x --device ", script: script, environment: ["PULSAR_PROC_ASOUND": fixtures + "/dualsense"])
        #expect(Array(with.prefix(3)) == ["auto", "sim", "dualsense"], "\(with)")
        for tree in ["none", "split"] {
            let without = try Self.bashComplete("pulsar drift --device ", script: script, environment: ["PULSAR_PROC_ASOUND": fixtures + "/" + tree])
            #expect(Array(without.prefix(2)) == ["auto", "sim"] && !without.contains("dualsense"), "\(tree): \(without)")
        }
        #expect(try Self.bashComplete("pulsar view x --haptic-device d", script: script, environment: ["PULSAR_PROC_ASOUND": fixtures + "/dualsense"])
            .contains("dualsense"))
    }

    // MARK: zsh

    @Test("zsh: the script parses, autoloads from fpath as _pulsar, and registers itself when sourced after compinit",
          .enabled(if: zsh != nil, "needs zsh (apt-get install zsh)"))
    func zshScript() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["--completion", "zsh"])
        #expect(r.status == 0 && r.stderr.isEmpty && r.stdout.hasPrefix("#compdef pulsar\n"), "\(r)")
        let functions = try dir.directory("functions")
        let file = try dir.write(r.stdout, to: "functions/_pulsar")
        let zsh = try #require(Self.zsh)
        let parsed = try Self.system(zsh, ["-n", file])
        #expect(parsed.status == 0 && parsed.stderr.isEmpty, "\(parsed)")
        let home = ["HOME": dir.path, "ZDOTDIR": dir.path]
        let fpath = try Self.system(zsh, ["-f", "-c", "fpath=(\"$1\" $fpath); autoload -U compinit; compinit -u -D; print -r -- $_comps[pulsar]", "zsh", functions],
                                    environment: home)
        #expect(fpath.status == 0 && fpath.stdout == "_pulsar\n", "\(fpath)")
        let sourced = try Self.system(zsh, ["-f", "-c", "autoload -U compinit; compinit -u -D; source \"$1\" && print -r -- $_comps[pulsar] ${+functions[_pulsar_presets]}", "zsh", file],
                                      environment: home)
        #expect(sourced.status == 0 && sourced.stdout == "_pulsar 1\n" && sourced.stderr.isEmpty, "\(sourced)")
    }

    // MARK: The helpers the scripts call

    @Test("--complete-presets: the manifest's ids in order; on a missing file, a file that is no bundle or a FIFO, nothing and exit 0")
    func completePresets() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let ids = ["b", "a", "c$d"]
        let (folder, packed) = try Self.bundles(ids: ids, in: dir)
        for bundle in [folder, packed] {
            let r = try CLI.run(["--complete-presets", bundle])
            #expect(r.status == 0 && r.stdout == ids.joined(separator: "\n") + "\n" && r.stderr.isEmpty, "\(r)")
        }
        let fifo = dir.file("fifo.pulsar")
        #expect(mkfifo(fifo, 0o600) == 0)
        try dir.write("not a zip", to: "fake.pulsar")
        for bad in [[dir.file("missing.pulsar")], [dir.file("fake.pulsar")], [dir.path], [fifo], [], [folder, packed]] {
            let r = try CLI.run(["--complete-presets"] + bad)
            #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(bad): \(r)")
        }
        // A name that is not UTF-8 (every other command refuses it with exit 64).
        let bytes = try Self.system("/bin/bash", ["-c", #"exec "$1" --complete-presets $'\xff.pulsar'"#, "bash", try CLI.executable()])
        #expect(bytes.status == 0 && bytes.stdout.isEmpty && bytes.stderr.isEmpty, "\(bytes)")
    }

    @Test("--complete-devices: auto, sim, then the PCMs pulsar devices lists; exit 0")
    func completeDevices() throws {
        let r = try CLI.run(["--complete-devices"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        let names = r.stdout.split(separator: "\n").map(String.init)
        #expect(Array(names.prefix(2)) == ["auto", "sim"])
        // Every ALSA PCM and PipeWire sink `pulsar devices` lists (its lines at column 0, less
        // the headings, the haptic cards and the PipeWire sources).
        let listed = try CLI.run(["devices"]).stdout.split(separator: "\n").map(String.init)
        let sources = listed.firstIndex { $0.hasPrefix("PipeWire sources") }.map { start in
            Set(listed[start...].prefix { !$0.hasPrefix("auto") }.filter { $0.hasPrefix("pw:") })
        } ?? []
        let devices = listed
            .filter { !$0.hasPrefix(" ") && !$0.hasPrefix("haptic devices") && !$0.contains("(--device dualsense)") }
            .filter { !$0.hasPrefix("PipeWire ") && !$0.contains("(PipeWire card") && !sources.contains($0) }
        for name in devices { #expect(names.contains(name), "\(name)") }
    }
}

/// docs/cli.md is what `pulsar --cli-reference` prints, so the reference cannot drift from the
/// command table; it holds every command's `--help` word for word.
@Suite("Command reference")
struct CLIReferenceTests {
    @Test("docs/cli.md is `pulsar --cli-reference` (regenerate: pulsar --cli-reference > docs/cli.md), and holds every command's --help and the exit codes")
    func referenceIsGenerated() throws {
        let r = try CLI.run(["--cli-reference"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
        let file = try String(contentsOfFile: SharedCorpus.projectRoot + "/docs/cli.md", encoding: .utf8)
        #expect(file == r.stdout, "docs/cli.md differs from `pulsar --cli-reference`: regenerate it")
        for command in ManAndCompletionTests.commands {
            let help = try ManAndCompletionTests.help(command)
            #expect(file.contains("## pulsar \(command)\n") && file.contains("```text\n" + help), "pulsar \(command)")
        }
        #expect(file.contains("| 64 |") && file.contains("| 65 |") && file.contains("| 69 |"))
        let extra = try CLI.run(["--cli-reference", "x"])
        #expect(extra.status == 64 && extra.stdout.isEmpty, "\(extra)")
    }
}
