import PulsarCommandLine
import Foundation
import PulsarBundle

/// `pulsar pack FOLDER -o OUT.pulsar`: packs an unpacked bundle folder into a `.pulsar` archive.
enum PackCommand {
    static let help = """
    usage: pulsar pack FOLDER -o OUTPUT.pulsar [--quiet]

    Packs an unpacked bundle folder (manifest.json, haptics/, audio/, animation/) into a .pulsar
    archive. The folder is checked exactly as a bundle is when loaded (manifest, every preset's
    files, names, symlinks, sizes); the manifest's "hash" is computed and filled in (the folder
    itself is not changed); audio and images are stored, the rest deflated. The output appears
    only when complete and verified by a strict load.

    options:
      -o, --output PATH   the archive to write (required)
      --quiet             no summary
      -h, --help          this help

    exit codes: 65 the folder is not a valid bundle, 66 the folder is missing or unreadable,
    74 writing the archive failed.
    """

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files),
        .flag("--quiet"),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: "pulsar pack")
        let input = try args.singleInput(command: "pulsar pack")
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "pulsar pack: missing -o OUTPUT (see 'pulsar pack --help')")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CommandFailure(.usage, "pulsar pack: '\(input)' is a file: pack takes an unpacked bundle folder")
        }
        let manifest: BundleManifest
        InterruptCleanup.arm(BundlePacker.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        do {
            manifest = try BundlePacker.pack(directory: input, to: output)
        } catch {
            throw CommandFailure(exitCode(for: error.rule), "pulsar: error: \(error)")
        }
        if !args.flag("--quiet") {
            let count = manifest.presets.count
            Console.error("wrote \(output): \(count) preset\(count == 1 ? "" : "s"), \(manifest.hash ?? "")")
        }
    }

    /// 66 when the input is missing or unreadable, 74 when writing failed, 65 for every bundle rule.
    static func exitCode(for rule: BundleError.Rule) -> ExitCode {
        switch rule {
        case .notFound, .unreadable: return .noInput
        case .writeFailed: return .ioError
        default: return .dataError
        }
    }
}
