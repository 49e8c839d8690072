import PulsarCommandLine
import PulsarBundle
import PulsarCore
import PulsarSession

/// `pulsar convert`'s AHAP with its sound, both ways (`AHAPAudioBundle` does the work): this
/// type checks the outputs, prints what was written and maps refusals to exit codes.
enum AHAPWithAudio {
    /// `convert BUNDLE --preset ID -o OUT.ahap --with-audio`: OUT.ahap and OUT's stem + `.wav`.
    static func export(_ preset: PresetHandle, to output: String, input: String, quiet: Bool) throws(CommandFailure) {
        if preset.audio != nil {
            try Arguments.refuseOverwriting([AHAPAudioBundle.wavPath(for: output)], inputs: [input], command: "pulsar convert")
        }
        let done: AHAPAudioBundle.Exported
        do {
            done = try AHAPAudioBundle.export(preset, to: output, input: input)
        } catch {
            throw error.failure
        }
        if !quiet {
            Console.error("wrote \(output): AHAP, \(preset.pattern.pointCount) points and an AudioCustom event at \(done.event.time) s; \(done.wavPath): \(done.frames) frames")
        }
    }

    /// `convert X.ahap -o FOLDER/`: a bundle folder of one preset with the AHAP's sound.
    static func bundleFolder(from ahap: String, to folder: String, setup: RenderSetup) throws(CommandFailure) {
        var warnings: [ContentWarning] = []
        let built: AHAPAudioBundle.Built
        do {
            built = try AHAPAudioBundle.bundleFolder(from: ahap, to: folder, timeUnit: setup.timeUnit, warnings: &warnings)
        } catch {
            if !setup.quiet { WarningPrinter.print(warnings) }
            throw error.failure
        }
        guard !setup.quiet else { return }
        WarningPrinter.print(warnings)
        let sound = built.audio.map { " with its sound audio/\($0.name) at \(JSONWriter.format($0.milliseconds)) ms" }
            ?? (built.audioLeftOut ? " (no usable AudioCustom event: no audio)" : " (the AHAP has no AudioCustom event: no audio)")
        Console.error("wrote \(folder): a bundle folder, preset \(built.id)\(sound)")
    }
}
