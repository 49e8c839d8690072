#if canImport(Glibc)
import Glibc
#endif
import PulsarALSA
import PulsarPipeWire
import PulsarBundle
import PulsarCommandLine
import PulsarCore

/// `pulsar --man-page [COMMAND]`, `--completion SHELL`, `--complete-presets PATH` and
/// `--complete-devices`: what a system needs to set `pulsar` up, printed to stdout.
enum SetupOutputs {
    /// Runs the setup option `name` with the words after it; returns the exit code.
    static func run(_ name: String, _ words: [String]) -> ExitCode {
        switch name {
        case "--man-page":
            guard words.count <= 1 else { return usage("--man-page takes at most one COMMAND") }
            guard let word = words.first else {
                Console.out(ManPage.tool(), terminator: "")
                return .ok
            }
            guard let command = CLICommand.named(word) else {
                return usage("--man-page: unknown command '\(MessageText.excerpt(word))' (see 'pulsar --help')")
            }
            Console.out(ManPage.command(command), terminator: "")
            return .ok
        case "--completion":
            guard words.count == 1, let shell = ShellCompletion.Shell(rawValue: words[0]) else {
                return usage("--completion takes bash or zsh")
            }
            Console.out(ShellCompletion.script(for: shell), terminator: "")
            return .ok
        case "--cli-reference":
            guard words.isEmpty else { return usage("--cli-reference takes no argument") }
            Console.out(CLIReference.markdown(), terminator: "")
            return .ok
        case "--complete-presets":
            // Runs inside a shell's completion: never a word on stderr, never a failure.
            silenceErrors()
            if words.count == 1 { for id in presetIDs(words[0]) { Console.out(id) } }
            return .ok
        default:
            silenceErrors()
            for device in deviceNames() { Console.out(device) }
            return .ok
        }
    }

    private static func usage(_ message: String) -> ExitCode {
        Console.error("pulsar: \(message)")
        return .usage
    }

    /// Points stderr at /dev/null: what a library would say there must not reach a completion.
    private static func silenceErrors() {
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, 2)
            close(null)
        }
    }

    /// The preset ids of the bundle at `path` (a `.pulsar` file or a folder), in manifest
    /// order, from its manifest alone (its audio is not read through); none when it cannot be
    /// read.
    static func presetIDs(_ path: String) -> [String] {
        guard let manifest = try? PresetBundle.manifest(at: path) else { return [] }
        return manifest.presets.map(\.id)
    }

    /// What `--device` takes, as `pulsar devices` lists it: `auto`, `sim`, `dualsense` when a
    /// usable haptic card is there, then the ALSA playback PCMs, then (when a PipeWire server
    /// answers) `pw:` and `pw:NAME` for each of its sinks.
    static func deviceNames() -> [String] {
        var names = ["auto", "sim"]
        if SoundCards.haptic().contains(where: \.isUsableHaptic) { names.append("dualsense") }
        for device in alsaPlaybackDevices() where !names.contains(device.name) { names.append(device.name) }
        if let nodes = try? PipeWireGraph.nodes(timeoutMs: 500) {
            names.append("pw:")
            for node in nodes where node.isSink { if let name = node.name { names.append("pw:" + name) } }
        }
        return names
    }
}
