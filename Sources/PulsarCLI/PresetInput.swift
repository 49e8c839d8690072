import PulsarCommandLine
import PulsarBundle
import PulsarCore
import PulsarDerive
import PulsarSession

/// An INPUT argument resolved to presets by the session layer's `ContentInput` (a bundle, a
/// bundle folder or a pattern file): this type prints its warnings and maps refusals to exit
/// codes.
struct PresetInput {
    var content: ContentInput

    var path: String { content.path }
    var bundle: PresetBundle? { content.bundle }
    var presets: [PresetHandle] { content.presets }
    var patternFormat: PatternFormat? { content.patternFormat }
    var scaledFromSeconds: Bool { content.scaledFromSeconds }
    var isBundle: Bool { content.isBundle }

    static func looksLikeBundle(_ path: String) -> Bool { ContentInput.looksLikeBundle(path) }

    init(_ path: String, setup: RenderSetup, strict: Bool) throws(CommandFailure) {
        var warnings: [ContentWarning] = []
        defer { if !setup.quiet { WarningPrinter.print(warnings) } }
        do {
            content = try ContentInput(path, device: setup.content, timeUnit: setup.timeUnit, strict: strict, warnings: &warnings)
        } catch {
            throw error.failure(command: "pulsar")
        }
    }

    /// Presets made by the command itself (an audio file as a preset of audio alone).
    init(path: String, presets: [PresetHandle]) {
        content = ContentInput(path: path, presets: presets)
    }

    /// The preset named by `--preset`, or the only one.
    func select(_ id: String?, command: String) throws(CommandFailure) -> PresetHandle {
        do {
            return try content.select(id)
        } catch {
            throw error.failure(command: command)
        }
    }

    /// `select`, then for a preset of audio alone: with `derive`, its haptics derived from its
    /// audio (said on stderr unless quiet); without, the `no-haptics` warning.
    func select(_ id: String?, command: String, derive: Bool, profile: ActuatorProfile, quiet: Bool) throws(CommandFailure) -> PresetHandle {
        var warnings: [ContentWarning] = []
        defer { if !quiet { WarningPrinter.print(warnings) } }
        do {
            let (preset, derived) = try content.select(id, derive: derive, profile: profile, warnings: &warnings)
            if let derived, !quiet {
                WarningPrinter.print(warnings)
                warnings = []
                Console.error("derived the haptics of preset \(preset.id) from \(preset.audio?.source ?? "its audio"): \(DeriveCommand.counts(derived.pattern))")
            }
            return preset
        } catch {
            throw error.failure(command: command)
        }
    }
}
