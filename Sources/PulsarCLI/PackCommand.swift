import PulsarCommandLine
import Glibc
import PulsarBundle
import PulsarCore
import PulsarDerive
import PulsarLottie

/// `pulsar pack FOLDER -o OUT.pulsar`: packs an unpacked bundle folder into a `.pulsar` archive.
enum PackCommand {
    static let help = """
    usage: pulsar pack FOLDER -o OUTPUT.pulsar [--derive [--profile P] [--resolution N] [--gain DB]
                       [--threshold X]] [--quiet]

    Packs an unpacked bundle folder (manifest.json, haptics/, audio/, animation/) into a .pulsar
    archive. The folder is checked exactly as a bundle is when loaded (manifest, every preset's
    files, names, symlinks, sizes); the manifest's "hash" is computed and filled in (the folder
    itself is not changed); audio and images are stored, the rest deflated. The output appears
    only when complete and verified by a strict load.

    A preset may have audio and no haptics. With --derive, each such preset gets a pattern derived
    from its audio (docs/derive.md, the envelope method, as `pulsar derive --preset` makes it)
    as haptics/ID.derived.json in the archive, and its manifest entry says so:
    "derived": {"method", "from", "settings"}. The folder itself is not changed.

    options:
      -o, --output PATH   the archive to write (required)
      --derive            derive the haptics of presets of audio alone
      --profile P, --resolution N, --gain DB, --threshold X
                          the derivation's settings, as `pulsar derive` takes them
      --quiet             no summary
      -h, --help          this help

    exit codes: 64 a bad option or setting, 65 the folder is not a valid bundle (or a preset's
    audio cannot be decoded), 66 the folder is missing or unreadable, 74 writing the archive failed.
    """

    static let options: [Arguments.Option] = [
        .value("--output", "-o", completion: .files),
        .flag("--quiet"),
        .flag("--derive"),
        .value("--profile", completion: .profiles),
        .value("--resolution"),
        .value("--gain"),
        .value("--threshold"),
    ]

    static func run(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, options: options, command: "pulsar pack")
        let input = try args.singleInput(command: "pulsar pack")
        guard let output = args.value("--output") else {
            throw CommandFailure(.usage, "pulsar pack: missing -o OUTPUT (see 'pulsar pack --help')")
        }
        switch InputFile.kind(of: input) {
        case .missing, .directory: break
        default:
            throw CommandFailure(.usage, "pulsar pack: '\(input)' is a file: pack takes an unpacked bundle folder")
        }
        for name in ["--profile", "--resolution", "--gain", "--threshold"] where args.value(name) != nil && !args.flag("--derive") {
            throw CommandFailure(.usage, "pulsar pack: \(name) is a setting of --derive")
        }
        try checkImages(input)
        let derived = args.flag("--derive") ? try derive(input, args: args) : []
        let manifest: BundleManifest
        InterruptCleanup.arm(BundlePacker.temporaryPath(for: output))
        defer { InterruptCleanup.disarm() }
        do {
            manifest = try BundlePacker.pack(directory: input, to: output, derived: derived)
        } catch {
            throw CommandFailure(exitCode(for: error.rule), "pulsar: error: \(error)")
        }
        if !args.flag("--quiet") {
            let count = manifest.presets.count
            Console.error("wrote \(output): \(count) preset\(count == 1 ? "" : "s")\(derived.isEmpty ? "" : ", \(derived.count) derived"), \(manifest.hash ?? "")")
            for preset in manifest.presets where preset.haptics == nil {
                Console.error("pulsar: warning: \(output): preset \(MessageText.quoted(preset.id)) has audio and no haptics (--derive derives them) [no-haptics]")
            }
        }
    }

    /// Refuses (65, nothing written) a folder whose animation has an image asset outside the
    /// folder or missing from it: a bundle plays only what it holds. Images inside it are packed
    /// like every other file. A folder that is no valid bundle is left to the packer to refuse,
    /// and an animation that does not read as Lottie to the commands that play it.
    static func checkImages(_ folder: String) throws(CommandFailure) {
        guard let bundle = try? PresetBundle.open(folder) else { return }
        for preset in bundle.presets {
            guard let asset = preset.animation,
                  let animation = try? LottieAnimation(bytes: asset.data, source: "\(folder):\(asset.source)") else { continue }
            do {
                _ = try animation.embeddingImages(from: .bundle(bundle, animation: asset.source))
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(error)")
            }
        }
    }

    /// A pattern for each preset of the folder that has audio and no haptics.
    static func derive(_ folder: String, args: Arguments) throws(CommandFailure) -> [BundlePacker.DerivedHaptics] {
        let settings = try DeriveCommand.settings(args, command: "pulsar pack")
        let quiet = args.flag("--quiet")
        do {
            return try BundleDeriver.derive(folder: folder, settings: settings) { id, audio, result in
                guard !quiet else { return }
                WarningPrinter.print(result.warnings)
                if !result.pattern.isEmpty { Console.error("derived preset \(id) from \(audio): " + DeriveRun.counts(result.pattern)) }
            }
        } catch {
            switch error {
            case .bundle(let error): throw CommandFailure(exitCode(for: error.rule), "pulsar: error: \(error)")
            case .derive(let error): throw CommandFailure(error)
            }
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
