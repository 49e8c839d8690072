#if canImport(Glibc)
import PulsarAudio
import PulsarCommandLine
import PulsarCore
import Glibc
#endif

/// `pulsar`: dispatches a subcommand and turns its failure into a one-line message and an exit code.
let version = Pulsar.version

let usage = PulsarTool.usage

// Arguments are file names and values as bytes; Swift's decoding would turn invalid UTF-8 into
// U+FFFD and a file name into one that does not exist. Say so instead.
for index in 1..<Int(CommandLine.argc) {
    guard let raw = CommandLine.unsafeArgv[index] else { continue }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
    if String(validating: bytes, as: UTF8.self) == nil {
        // A shell's completion asking: no bundle by that name, and never a word on stderr.
        if index > 1, ["--complete-presets", "--complete-devices"].contains(CommandLine.arguments[1]) { exit(0) }
        let shown = bytes.prefix(80).map { $0 < 0x80 && $0 >= 0x20 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
        Console.error("pulsar: error: argument \(index) is not valid UTF-8 (\(shown)): names and values must be UTF-8 [not-utf8]")
        exit(ExitCode.usage.rawValue)
    }
}

var words = Array(CommandLine.arguments.dropFirst())
guard let name = words.first else {
    Console.error(usage)
    exit(ExitCode.usage.rawValue)
}
words.removeFirst()
switch name {
case "--help", "-h", "help":
    Console.out(usage)
    exit(0)
case "--version", "-V":
    Console.out("pulsar \(version)")
    exit(0)
case "--man-page", "--completion", "--complete-presets", "--complete-devices", "--cli-reference":
    exit(SetupOutputs.run(name, words).rawValue)
default:
    break
}
guard let command = CLICommand.named(name) else {
    Console.error("pulsar: unknown command '\(name)' (see 'pulsar --help')")
    exit(ExitCode.usage.rawValue)
}
if words.contains("--help") || words.contains("-h") {
    Console.out(command.help)
    exit(0)
}
do {
    try command.run(words)
    // What the audio decoders said on their own, with our prefix and rule (a failure's one
    // line stays the only line).
    if !words.contains("--quiet") {
        let messages = DecoderMessages.drain()
        for m in messages.prefix(20) {
            Console.error("pulsar: warning: \(MessageText.oneLine(m.source)): the decoder said: \(MessageText.oneLine(m.text))"
                          + (m.count > 1 ? " (\(m.count) times)" : "") + " [decoder-message]")
        }
        if messages.count > 20 { Console.error("pulsar: warning: … and \(messages.count - 20) more kinds of decoder message") }
        for r in NonFiniteSamples.drain() {
            Console.error("pulsar: warning: \(MessageText.oneLine(r.source)): \(r.count) non-finite sample\(r.count == 1 ? "" : "s") (NaN or infinity) decoded as silence [non-finite-sample]")
        }
    }
    exit(0)
} catch {
    Console.error(MessageText.line(error.message))
    exit(error.code.rawValue)
}
