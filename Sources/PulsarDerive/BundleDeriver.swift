import PulsarBundle
import PulsarCore

/// The haptics `pulsar pack --derive` adds to a bundle folder's archive: for each preset of
/// audio alone, the `envelope` pattern of its audio on the preset's timeline (`PresetDeriver`),
/// as `haptics/ID.derived.json` (or `ID.derived-N.json`, a name the folder does not hold), for
/// `BundlePacker.pack(directory:to:derived:)`. The folder is not changed.
///
/// Thread rules: any thread but the real-time one (it decodes the presets' audio).
public enum BundleDeriver {
    /// Why the folder's presets could not be derived.
    public enum Failure: Error, Sendable {
        /// The folder is not a bundle that opens.
        case bundle(BundleError)
        /// A preset's audio could not be derived from; its `file` names the folder and the audio.
        case derive(DeriveError)
    }

    /// The derived haptics of `folder`'s presets that have audio and no haptics. `derived` hears
    /// each preset's result (its id, its audio's name, the pattern and its warnings) before it is
    /// kept; an empty pattern (silent audio) is not kept: no bundle holds a pattern that plays
    /// nothing.
    public static func derive(folder: String, settings: DeriveSettings,
                              derived report: (_ presetID: String, _ audio: String, DerivedPattern) -> Void = { _, _, _ in })
        throws(Failure) -> [BundlePacker.DerivedHaptics] {
        let bundle: PresetBundle
        do {
            bundle = try PresetBundle.open(folder)
        } catch {
            throw .bundle(error)
        }
        var derived: [BundlePacker.DerivedHaptics] = []
        for preset in bundle.presets where !preset.hasPattern {
            guard let audio = preset.audio else { continue }
            let result: DerivedPattern
            do {
                result = try PresetDeriver.pattern(of: preset, settings: settings)
            } catch {
                var e = error
                e.file = "\(folder): \(audio.source)"
                throw .derive(e)
            }
            report(preset.id, audio.source, result)
            guard !result.pattern.isEmpty else { continue }
            let text = (try? PatternWriter.text(for: result.pattern, as: .pulsarJSON)) ?? ""
            derived.append(BundlePacker.DerivedHaptics(presetID: preset.id, name: entryName(for: preset.id, in: bundle),
                                                       content: Array(text.utf8), method: "envelope",
                                                       from: audio.source, settings: PresetDeriver.record(settings)))
        }
        return derived
    }

    /// `haptics/ID.derived.json`, or `ID.derived-N.json` from N = 2 while the bundle holds the name.
    static func entryName(for id: String, in bundle: PresetBundle) -> String {
        var name = "haptics/\(id).derived.json"
        var n = 2
        while bundle.hasFile(name) {
            name = "haptics/\(id).derived-\(n).json"
            n += 1
        }
        return name
    }
}
