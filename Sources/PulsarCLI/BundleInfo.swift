import PulsarCommandLine
import Glibc
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarLottie

/// `pulsar info BUNDLE [--json]`: the presets of a bundle with their durations, audio format and
/// animation timing.
enum BundleInfo {
    static func run(_ path: String, args: Arguments, setup: RenderSetup) throws(CommandFailure) {
        let input = try PresetInput(path, setup: setup, strict: args.flag("--strict"))
        guard let bundle = input.bundle else { return }
        var rows: [JSONValue] = []
        var lines: [String] = []
        let m = bundle.manifest
        lines.append("bundle:      \(path) (\(bundle.isFolder ? "folder" : "ZIP")), schema \(m.schema)")
        lines.append("id:          \(m.id), name \"\(m.name)\"\(m.revision.map { ", revision \($0)" } ?? "")\(m.generator.map { ", generator \($0)" } ?? "")")
        lines.append("hash:        \(m.hash ?? "none")\(args.flag("--strict") ? " (verified)" : "")")
        for preset in input.presets {
            let mixer: PresetMixer
            do {
                mixer = try PresetMixer(preset: preset, settings: MixSettings(sampleRate: setup.rate, profile: setup.profile))
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(path): preset \(preset.id): \(error)")
            }
            let summary = PatternSummary(preset.pattern)
            let timing = preset.animation.flatMap { LottieTiming(lottieJSON: $0.data) }
            var row: [(key: String, value: JSONValue)] = [
                ("id", .str(preset.id)), ("name", .str(preset.name)),
                ("durationMs", .num(mixer.durationMilliseconds)), ("durationRule", .str(mixer.durationRule.rawValue)),
                ("authoredDurationMs", .num(preset.duration)),
                ("pattern", .obj(["amplitudePoints": .num(Double(summary.amplitudePoints)),
                                  "frequencyPoints": .num(Double(summary.frequencyPoints)),
                                  "transients": .num(Double(summary.transients)),
                                  "lastPointMs": .num(summary.lastPointTime)])),
            ]
            lines.append("preset \(preset.id) \"\(preset.name)\": \(fmt(mixer.durationMilliseconds)) ms (\(mixer.durationRule.rawValue))")
            lines.append("  haptics:   \(summary.amplitudePoints) amplitude, \(summary.frequencyPoints) frequency points, \(summary.transients) transients, last at \(fmt(summary.lastPointTime)) ms")
            if let audio = preset.audio, let f = mixer.audioFormat ?? (try? AudioFormatInfo(bytes: audio.bytes, name: audio.source)) {
                let ms = Double(f.frames) * 1000 / Double(f.sampleRate)
                // Android haptic-coupled audio: its last channels vibrate and are not mixed as audio.
                let haptic = AudioStream.androidHapticChannels(of: audio.bytes, channels: f.channels)
                let of = haptic.map { " (the last \($0) haptic: ANDROID_HAPTIC=\($0), not mixed as audio)" } ?? ""
                lines.append("  audio:     \(audio.source): \(f.container), \(f.encoding), \(f.sampleRate) Hz, \(f.channels) ch\(of), \(fmt(ms)) ms; volume \(fmt(audio.volume)), offset \(fmt(audio.offset)) ms")
                row.append(("audio", .obj(["src": .str(audio.source), "container": .str(f.container), "encoding": .str(f.encoding),
                                           "sampleRate": .num(Double(f.sampleRate)), "channels": .num(Double(f.channels)),
                                           "androidHapticChannels": haptic.map { .num(Double($0)) } ?? JSONValue(.null),
                                           "frames": .num(Double(f.frames)), "durationMs": .num(ms),
                                           "volume": .num(audio.volume), "offsetMs": .num(audio.offset)])))
            } else {
                lines.append("  audio:     none")
                row.append(("audio", JSONValue(.null)))
            }
            if let animation = preset.animation {
                var a: [(key: String, value: JSONValue)] = [("src", .str(animation.source)), ("bytes", .num(Double(animation.data.count)))]
                var text = "  animation: \(animation.source), \(animation.data.count) bytes"
                if let timing {
                    text += ", \(fmt(timing.frameRate)) fps, frames \(fmt(timing.inPoint.value))..<\(fmt(timing.outPoint.value)) = \(fmt(timing.durationMilliseconds)) ms"
                    a += [("frameRate", .num(timing.frameRate)), ("inPoint", .num(timing.inPoint.value)), ("outPoint", .num(timing.outPoint.value)),
                          ("durationMs", .num(timing.durationMilliseconds))]
                }
                if let fr = animation.frameRate { a.append(("manifestFrameRate", .num(fr))) }
                if let total = animation.totalFrames { a.append(("manifestTotalFrames", .num(total))) }
                lines.append(text)
                row.append(("animation", JSONValue(.object(a))))
            } else {
                lines.append("  animation: none")
                row.append(("animation", JSONValue(.null)))
            }
            if let actuator = preset.actuator {
                lines.append("  actuator: \(actuator) (its manifest's; render and play use it unless --actuator or --profile is given)")
            }
            row.append(("actuator", preset.actuator.map { JSONValue.str($0) } ?? JSONValue(.null)))
            rows.append(JSONValue(.object(row)))
        }
        if args.flag("--json") {
            let doc: JSONValue = .obj([
                "file": .str(path), "kind": .str(bundle.isFolder ? "folder" : "zip"), "schema": .str(m.schema),
                "id": .str(m.id), "name": .str(m.name), "hash": m.hash.map { JSONValue.str($0) } ?? JSONValue(.null),
                "presets": .arr(rows),
            ])
            Console.out(JSONWriter().write(doc), terminator: "")
        } else {
            for line in lines { Console.out(line) }
        }
    }

    static func fmt(_ v: Double) -> String { String(printf: "%.6g", v) }
}
