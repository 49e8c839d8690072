#if canImport(Glibc)
import PulsarAudio
import PulsarCommandLine
import PulsarCore
import Glibc
#endif

/// `pulsar`: dispatches a subcommand and turns its failure into a one-line message and an exit code.
let version = Pulsar.version

let usage = """
usage: pulsar COMMAND [OPTIONS]

commands:
  render    synthesize a pattern's haptic waveform into a WAV file
  info      show what a pattern file holds
  convert   convert a pattern between Pulsar JSON and AHAP
  pack      pack a bundle folder into a .pulsar file (manifest checked, hash filled in)
  play      play a preset live (ALSA, or the simulated device), with a script, a log and a clock log
  devices   list the ALSA playback devices play can use
  frame     render one animation frame to a PNG (with lottie-ios dynamic properties)
  keypaths  list an animation's keypaths
  view      play a preset in a window: the animation in step with its sound and haptics
  drift     measure a device's clock drift and the engine's device-slaved clock on it
  plot      draw a pattern or preset (curves, transients, rendered output, audio) to a PNG or SVG

'pulsar COMMAND --help' describes a command. Exit codes: 0 ok, 64 usage, 65 bad data,
66 missing input, 69 device unavailable, 70 internal error, 74 I/O error, 130 interrupted.
"""

let commands: [String: (help: String, run: ([String]) throws(CommandFailure) -> Void)] = [
    "render": (RenderCommand.help, RenderCommand.run),
    "info": (InfoCommand.help, InfoCommand.run),
    "convert": (ConvertCommand.help, ConvertCommand.run),
    "pack": (PackCommand.help, PackCommand.run),
    "play": (PlayCommand.help, PlayCommand.run),
    "devices": (DevicesCommand.help, DevicesCommand.run),
    "frame": (FrameCommand.help, FrameCommand.run),
    "keypaths": (KeypathsCommand.help, KeypathsCommand.run),
    "view": (ViewCommand.help, ViewCommand.run),
    "drift": (DriftCommand.help, DriftCommand.run),
    "plot": (PlotCommand.help, PlotCommand.run),
]

// Arguments are file names and values as bytes; Swift's decoding would turn invalid UTF-8 into
// U+FFFD and a file name into one that does not exist. Say so instead.
for index in 1..<Int(CommandLine.argc) {
    guard let raw = CommandLine.unsafeArgv[index] else { continue }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
    if String(validating: bytes, as: UTF8.self) == nil {
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
default:
    break
}
guard let command = commands[name] else {
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
    Console.error(error.message)
    exit(error.code.rawValue)
}
