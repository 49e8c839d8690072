import PulsarCommandLine
import Glibc
import PulsarBundle
import PulsarCore
import PulsarDerive

/// An INPUT argument resolved to presets: a `.pulsar` bundle, an unpacked bundle folder, or a
/// single pattern file (which becomes one preset without audio or animation).
struct PresetInput {
    /// The INPUT as the command line named it.
    var path: String
    var bundle: PresetBundle?
    var presets: [PresetHandle]
    /// Format of a pattern file input (nil for bundles).
    var patternFormat: PatternFormat?
    var scaledFromSeconds = false

    var isBundle: Bool { bundle != nil }

    /// Whether `path` names a bundle: a folder with `manifest.json`, or a file ending in `.pulsar`
    /// or starting with a ZIP signature. (A folder without a manifest is left to the pattern
    /// loader, which calls it a missing input.)
    static func looksLikeBundle(_ path: String) -> Bool {
        let kind = InputFile.kind(of: path)
        if case .missing = kind { return path.hasSuffix(".pulsar") }
        if case .directory = kind { return InputFile.exists(path + "/manifest.json") }
        if path.lowercased().hasSuffix(".pulsar") { return true }
        // Only a regular file is opened (InputFile.head refuses others): a FIFO would block the open.
        let magic = (try? InputFile.head(path, count: 4)) ?? []
        return magic.elementsEqual([0x50, 0x4B, 0x03, 0x04])
    }

    init(_ path: String, setup: RenderSetup, strict: Bool) throws(CommandFailure) {
        self.path = path
        if Self.looksLikeBundle(path) {
            do {
                let bundle = try PresetBundle.open(path, strict: strict)
                self.bundle = bundle
                presets = bundle.presets
                if !setup.quiet {
                    WarningPrinter.print(bundle.warnings)
                }
            } catch {
                let code: ExitCode = [.notFound, .unreadable].contains(error.rule) ? .noInput : .dataError
                throw CommandFailure(code, "pulsar: error: \(error)")
            }
        } else {
            let loaded = try setup.load(path)
            let name = PathText.stem(path)
            var preset = PresetHandle(id: name, name: name, duration: 0, pattern: setup.device.pattern(of: loaded))
            preset.lofeltClip = loaded.lofeltClip
            presets = [preset]
            patternFormat = loaded.format
            scaledFromSeconds = loaded.scaledFromSeconds
        }
    }

    /// The preset named by `--preset`, or the only one.
    func select(_ id: String?, command: String) throws(CommandFailure) -> PresetHandle {
        if let id {
            guard let preset = presets.first(where: { $0.id == id }) else {
                throw CommandFailure(.usage, "\(command): no preset '\(id)'; the input has: \(presets.map(\.id).joined(separator: ", "))")
            }
            return preset
        }
        guard presets.count == 1 else {
            throw CommandFailure(.usage, "\(command): the bundle has \(presets.count) presets, choose one with --preset: \(presets.map(\.id).joined(separator: ", "))")
        }
        return presets[0]
    }
}

extension PresetInput {
    /// Presets made by the command itself (an audio file as a preset of audio alone).
    init(path: String, presets: [PresetHandle]) {
        self.path = path
        self.presets = presets
    }

    /// `select`, then for a preset of audio alone (its manifest names no haptics): with
    /// `derive`, a pattern derived from its audio (the `envelope` method's defaults on
    /// `profile`, docs/derive.md); without, a warning that its haptics are silent.
    func select(_ id: String?, command: String, derive: Bool, profile: ActuatorProfile, quiet: Bool) throws(CommandFailure) -> PresetHandle {
        var preset = try select(id, command: command)
        guard !preset.hasPattern, preset.audio != nil else { return preset }
        guard derive else {
            if !quiet {
                Console.error("pulsar: warning: \(MessageText.oneLine(path)): preset \(MessageText.quoted(preset.id)) has audio and no haptics: its haptics are silent (--derive derives them from its audio) [no-haptics]")
            }
            return preset
        }
        var settings = DeriveSettings()
        settings.profile = profile
        let derived: DerivedPattern
        do {
            derived = try PresetDeriver.pattern(of: preset, settings: settings)
        } catch {
            throw CommandFailure(error)
        }
        if !quiet {
            WarningPrinter.print(derived.warnings)
            Console.error("derived the haptics of preset \(preset.id) from \(preset.audio?.source ?? "its audio"): \(DeriveCommand.counts(derived.pattern))")
        }
        preset.pattern = derived.pattern
        preset.hasPattern = true
        preset.derived = BundleManifest.Derived(method: DeriveSettings.Method.envelope.rawValue, from: preset.audio?.source)
        return preset
    }
}
