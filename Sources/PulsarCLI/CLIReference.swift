import PulsarCore

/// docs/cli.md, printed by `pulsar --cli-reference`: `pulsar --help`, the exit codes, then every
/// command's `--help` word for word under a heading with its summary. Made from the command table
/// that `--help`, the man pages and the completions are made from, so it cannot say anything
/// else; a test compares the file with this output.
enum CLIReference {
    static func markdown() -> String {
        var md = """
        # Command reference

        <!-- Made by `pulsar --cli-reference > docs/cli.md` from the command table (as `--help`, the
             man pages and the completions are); edit the help texts, not this file. -->

        Every command of `pulsar` \(Pulsar.version) with its `--help`, as `pulsar COMMAND --help` prints
        it; `man pulsar-COMMAND` shows the same text. The README's quick start shows five of them at
        work.

        ## pulsar

        \(PulsarTool.summary.prefix(1).uppercased() + PulsarTool.summary.dropFirst()).

        ```text
        \(PulsarTool.usage)
        ```

        ## Exit codes

        | code | meaning |
        | ---: | --- |

        """
        for exit in PulsarTool.exitCodes { md += "| \(exit.code.rawValue) | \(exit.meaning) |\n" }
        for command in CLICommand.all {
            md += "\n## pulsar \(command.name)\n\n"
            md += command.summary.prefix(1).uppercased() + command.summary.dropFirst() + ".\n\n"
            md += "```text\n\(command.help)\n```\n"
        }
        return md
    }
}
