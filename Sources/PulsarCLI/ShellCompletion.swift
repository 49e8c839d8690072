import PulsarCommandLine

/// `pulsar --completion bash|zsh`: completion scripts made from the command table — each
/// command's options exactly as its parser takes them, their values as the table says
/// (files, fixed words, a bundle's presets through `pulsar --complete-presets`, devices through
/// `pulsar --complete-devices`), and in zsh their descriptions from the help texts.
enum ShellCompletion {
    enum Shell: String, CaseIterable {
        case bash, zsh
    }

    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: return bash()
        case .zsh: return zsh()
        }
    }

    /// `text` as one word in single quotes, for either shell.
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// The top-level words: commands, then `pulsar`'s own options.
    private static var toolOptions: [Arguments.Option] {
        PulsarTool.otherOptions + PulsarTool.setupOptions.map(\.option)
    }

    // MARK: bash

    /// The bash script, as one template filled from the command table: kept whole (over 80
    /// lines) so the script reads top to bottom as the shell will run it.
    private static func bash() -> String {
        let commandNames = CLICommand.all.map(\.name).map(quoted).joined(separator: " ")
        let toolNames = toolOptions.flatMap(\.names).map(quoted).joined(separator: " ")
        var specs = ""
        var values = ""
        let setup = PulsarTool.setupOptions.map { (name: $0.option.names[0], options: [Arguments.Option](), operands: $0.option.completion) }
        for command in CLICommand.all.map({ (name: $0.name, options: $0.options, operands: $0.operands) }) + setup {
            let names = command.options.flatMap(\.names)
            let valued = command.options.filter(\.takesValue).flatMap(\.names)
            specs += """
                    \(quoted(command.name)))
                        opts=(\(names.map(quoted).joined(separator: " ")))
                        valued=\(quoted(" " + valued.joined(separator: " ") + " "))
                        operands=\(bashKind(command.operands)) ;;

            """
            for option in command.options where option.takesValue {
                let cases = option.names.map { quoted("\(command.name) \($0)") }.joined(separator: "|")
                values += "        \(cases)) \(bashAction(option.completion)) ;;\n"
            }
            if command.name.hasPrefix("-") {
                // A setup option: its argument is the operand.
                values += "        \(quoted("\(command.name) "))) \(bashAction(command.operands)) ;;\n"
            }
        }
        return """
        # bash completion for pulsar                               -*- shell-script -*-
        # Made by `pulsar --completion bash` from pulsar's own option tables. Source it, or
        # install it as share/bash-completion/completions/pulsar. Needs nothing else.

        # _pulsar_add PREFIX CUR WORD...: each WORD starting with CUR, after PREFIX.
        _pulsar_add() {
            local prefix=$1 cur=$2 word
            shift 2
            for word in "$@"; do
                [[ $word == "$cur"* ]] && COMPREPLY+=("$prefix$word")
            done
        }

        # _pulsar_files PREFIX CUR: the file and folder names starting with CUR.
        _pulsar_files() {
            local -a files
            compopt -o filenames 2>/dev/null
            mapfile -t files < <(compgen -f -- "$2")
            _pulsar_add "$1" "" "${files[@]}"
        }

        # _pulsar_presets PREFIX CUR: the preset ids of the bundle named earlier on the line (its
        # first operand that ends in .pulsar or is a folder).
        _pulsar_presets() {
            local i word bundle= skip= ended=
            for (( i = 2; i < cword; i++ )); do
                word=${words[i]}
                if [[ -n $skip ]]; then skip=; continue; fi
                if [[ -z $ended && $word == -- ]]; then ended=1; continue; fi
                if [[ -z $ended && $word == -?* ]]; then
                    [[ $word != *=* && $valued == *" $word "* ]] && skip=1
                    continue
                fi
                word=${word/#\\~/$HOME}
                if [[ $word == *.pulsar || -d $word ]]; then bundle=$word; break; fi
            done
            [[ -n $bundle ]] || return 0
            local -a ids
            mapfile -t ids < <("$pulsar" --complete-presets "$bundle" 2>/dev/null)
            _pulsar_add "$1" "$2" "${ids[@]}"
        }

        # _pulsar_devices PREFIX CUR: what --device takes.
        _pulsar_devices() {
            local -a devices
            mapfile -t devices < <("$pulsar" --complete-devices 2>/dev/null)
            _pulsar_add "$1" "$2" "${devices[@]}"
        }

        # _pulsar_spec COMMAND: its options (opts), those that take a value (valued), its operands.
        _pulsar_spec() {
            case $1 in
        \(specs)        *) return 1 ;;
            esac
        }

        # _pulsar_value COMMAND OPTION PREFIX CUR: the values of OPTION (or of an operand: no OPTION).
        _pulsar_value() {
            case "$1 $2" in
        \(values)    esac
        }

        # Readline replaces only what follows the last word-break character (= and : by default):
        # drop what comes before it from each reply.
        _pulsar_trim() {
            local cur=$1 breaks=${COMP_WORDBREAKS-$' \\t\\n"\\'><=;|&(:'} k keep= i
            for (( k = ${#cur} - 1; k >= 0; k-- )); do
                if [[ $breaks == *"${cur:k:1}"* ]]; then keep=${cur:0:k+1}; break; fi
            done
            [[ -n $keep ]] || return 0
            for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$keep"}; done
        }

        _pulsar() {
            local -a words
            if [[ -n ${COMP_LINE+set} ]]; then
                local line=${COMP_LINE:0:COMP_POINT}
                # Split as the shell does at blanks (a backslash keeps a blank in a word).
                read -a words <<<"$line"
                if [[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]]; then words+=(""); fi
            else
                words=("${COMP_WORDS[@]:0:COMP_CWORD+1}")
            fi
            local cword=$(( ${#words[@]} - 1 ))
            local cur=${words[cword]} pulsar=${words[0]:-pulsar}
            [[ $pulsar == pulsar || $pulsar == */* ]] || pulsar=pulsar
            pulsar=${pulsar/#\\~/$HOME}
            COMPREPLY=()
            if (( cword == 1 )); then
                if [[ $cur == -* ]]; then
                    _pulsar_add "" "$cur" \(toolNames)
                else
                    _pulsar_add "" "$cur" \(commandNames)
                fi
            else
                local command=${words[1]} opts valued operands ended= i
                if _pulsar_spec "$command"; then
                    for (( i = 2; i < cword; i++ )); do [[ ${words[i]} == -- ]] && ended=1; done
                    local prev=${words[cword-1]}
                    if [[ $command == -* ]]; then
                        (( cword == 2 )) && _pulsar_value "$command" "" "" "$cur"
                    elif [[ -z $ended && $cur == --*=* ]]; then
                        local option=${cur%%=*}
                        [[ $valued == *" $option "* ]] && _pulsar_value "$command" "$option" "$option=" "${cur#*=}"
                    elif [[ -z $ended && $valued == *" $prev "* ]]; then
                        _pulsar_value "$command" "$prev" "" "$cur"
                    elif [[ -z $ended && $cur == -* ]]; then
                        _pulsar_add "" "$cur" "${opts[@]}" --help
                    elif [[ $operands == files ]]; then
                        _pulsar_files "" "$cur"
                    fi
                fi
            fi
            _pulsar_trim "$cur"
            return 0
        }

        complete -F _pulsar pulsar

        """
    }

    private static func bashKind(_ completion: Arguments.Completion) -> String {
        switch completion {
        case .none: return "none"
        case .files: return "files"
        case .choices: return "choices"
        case .presets: return "presets"
        case .devices: return "devices"
        }
    }

    private static func bashAction(_ completion: Arguments.Completion) -> String {
        switch completion {
        case .none: return ":"
        case .files: return "_pulsar_files \"$3\" \"$4\""
        case .choices(let words): return "_pulsar_add \"$3\" \"$4\" " + words.map(quoted).joined(separator: " ")
        case .presets: return "_pulsar_presets \"$3\" \"$4\""
        case .devices: return "_pulsar_devices \"$3\" \"$4\""
        }
    }

    // MARK: zsh

    /// The zsh script, one template filled from the command table, kept whole as `bash()` is.
    private static func zsh() -> String {
        let commands = CLICommand.all.map { quoted($0.name.replacing(":", with: "\\:") + ":" + $0.summary) }
        var top = [
            "'(- *)'{-h,--help}'[print the usage and the commands]'",
            "'(- *)'{-V,--version}'[print the version]'",
        ]
        for setup in PulsarTool.setupOptions {
            let name = setup.option.names[0]
            let explanation = "[" + bracketed(setup.summary) + "]"
            if setup.option.takesValue {
                let metavar = setup.synopsis.split(separator: " ").dropFirst().first.map { String($0.filter { $0 != "[" && $0 != "]" }) } ?? "value"
                top.append(quoted("(- *)" + name + explanation + (setup.argumentIsOptional ? "::" : ":")
                                  + message(metavar) + ":" + zshAction(setup.option.completion)))
            } else {
                top.append(quoted("(- *)" + name + explanation))
            }
        }
        var cases = ""
        for command in CLICommand.all {
            let help = HelpText(command.help)
            var specs: [String] = []
            for option in command.options {
                let item = help.item(naming: option.names[0]) ?? option.names.lazy.compactMap(help.item(naming:)).first
                    ?? (command.name == "render" ? nil : HelpText(RenderCommand.help).item(naming: option.names[0]))
                let explanation = item.map { "[" + bracketed(summary(of: $0)) + "]" } ?? ""
                let exclusion = option.names.count > 1 ? "(" + option.names.joined(separator: " ") + ")" : ""
                for name in option.names {
                    var spec = exclusion + (option.repeats ? "*" : "") + name
                    if option.takesValue {
                        let metavar = item.flatMap { item in option.names.lazy.compactMap { HelpText.metavar(of: $0, in: item.tag) }.first }
                        spec += (name.hasPrefix("--") ? "=" : "") + explanation + ":" + message(metavar ?? "value") + ":" + zshAction(option.completion)
                    } else {
                        spec += explanation
                    }
                    specs.append(quoted(spec))
                }
            }
            switch command.operands {
            case .none: break
            default: specs.append(quoted("*:" + message(operandName(help)) + ":" + zshAction(command.operands)))
            }
            let valued = " " + command.options.filter(\.takesValue).flatMap(\.names).joined(separator: " ") + " "
            cases += """
                        \(quoted(command.name)))
                          valued=\(quoted(valued))

            """
            if specs.isEmpty {
                cases += "              _message 'no arguments' ;;\n"
            } else {
                cases += "              _arguments -S \\\n" + specs.map { "                " + $0 }.joined(separator: " \\\n") + " && ret=0 ;;\n"
            }
        }
        return """
        #compdef pulsar
        # zsh completion for pulsar, made by `pulsar --completion zsh` from pulsar's own option
        # tables and help texts. Put it in a folder of $fpath as _pulsar, or source it after
        # compinit.

        # The preset ids of the bundle named earlier on the line (its first operand that ends in
        # .pulsar or is a folder), through `pulsar --complete-presets`.
        _pulsar_presets() {
          local i word bundle skip ended
          for (( i = 2; i < CURRENT; i++ )); do
            word=${(Q)words[i]}
            if [[ -n $skip ]]; then skip=; continue; fi
            if [[ -z $ended && $word == -- ]]; then ended=1; continue; fi
            if [[ -z $ended && $word == -?* ]]; then
              [[ $word != *=* && $valued == *" $word "* ]] && skip=1
              continue
            fi
            word=${word/#\\~/$HOME}
            if [[ $word == *.pulsar || -d $word ]]; then bundle=$word; break; fi
          done
          [[ -n $bundle ]] || return 1
          local -a ids
          ids=(${(f)"$(_call_program presets $_pulsar_exe --complete-presets ${(q)bundle} 2>/dev/null)"})
          _wanted presets expl 'preset' compadd -a ids
        }

        # What --device takes, through `pulsar --complete-devices`.
        _pulsar_devices() {
          local -a devices
          devices=(${(f)"$(_call_program devices $_pulsar_exe --complete-devices 2>/dev/null)"})
          _wanted devices expl 'device' compadd -a devices
        }

        _pulsar_commands() {
          local -a commands
          commands=(
            \(commands.joined(separator: "\n    "))
          )
          _describe -t commands 'pulsar command' commands
        }

        _pulsar() {
          local curcontext=$curcontext state line valued ret=1
          local _pulsar_exe=${words[1]}
          typeset -A opt_args
          _arguments -C \\
            \(top.joined(separator: " \\\n    ")) \\
            '1: :_pulsar_commands' \\
            '*:: :->command' && ret=0
          case $state in
            command)
              curcontext=${curcontext%:*:*}:pulsar-$words[1]:
              case $words[1] in
        \(cases)      esac
              ;;
          esac
          return ret
        }

        if [[ $funcstack[1] == _pulsar ]]; then
          _pulsar "$@"
        else
          compdef _pulsar pulsar
        fi

        """
    }

    private static func zshAction(_ completion: Arguments.Completion) -> String {
        switch completion {
        case .none: return " "
        case .files: return "_files"
        case .choices(let words): return "(" + words.map { $0.replacing(" ", with: "\\ ") }.joined(separator: " ") + ")"
        case .presets: return "_pulsar_presets"
        case .devices: return "_pulsar_devices"
        }
    }

    /// An option's description for a completion list: the first line of the help's, marked
    /// when it goes on.
    private static func summary(of item: HelpText.Item) -> String {
        guard let first = item.description.first else { return "" }
        var text = first
        while text.last == "," || text.last == ";" { text.removeLast() }
        return item.description.count > 1 || text != first ? text + " …" : text
    }

    /// Text for inside `[…]` of an `_arguments` spec.
    private static func bracketed(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("[", with: "\\[").replacing("]", with: "\\]")
    }

    /// Text for a spec's message (between colons).
    private static func message(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing(":", with: "\\:")
    }

    /// What the first synopsis calls its operand (`INPUT`, `FOLDER`).
    private static func operandName(_ help: HelpText) -> String {
        let words = (help.synopses.first ?? []).joined(separator: " ").split(separator: " ").dropFirst(2)
        let name = words.first { word in word.first?.isUppercase == true && word.allSatisfy { $0.isUppercase || $0 == "_" } }
        return name.map(String.init) ?? "file"
    }
}
