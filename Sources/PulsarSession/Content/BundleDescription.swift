import PulsarAudio
import PulsarBundle
import PulsarCore

/// What a bundle holds, as `pulsar info BUNDLE` shows it: the manifest and, per preset, the
/// duration (and which rule set it) at a rate and profile, the pattern's counts, the audio's
/// format (and its Android haptic channels), the animation's timing and the manifest's actuator —
/// as lines of text and as the `--json` document.
///
/// A plain value: made on any thread but the real-time one (it opens the presets' audio).
public struct BundleDescription {
    /// A preset whose mix cannot be set up.
    public struct Failure: Error, CustomStringConvertible {
        public var presetID: String
        /// Why, in words.
        public var reason: String
        public var description: String { "preset \(presetID): \(reason)" }
    }

    /// The text, a line each.
    public private(set) var lines: [String] = []
    /// The `--json` document: file, kind, schema, id, name, hash and a row per preset.
    public private(set) var json: JSONValue = JSONValue(.null)

    /// Describes `content` (a bundle; nothing for a pattern file) at `rate` through `profile`;
    /// `verified` says its hash was checked.
    public init(_ content: ContentInput, rate: SampleRate, profile: ActuatorProfile, verified: Bool) throws(Failure) {
        guard let bundle = content.bundle else { return }
        let path = content.path, m = bundle.manifest
        lines.append("bundle:      \(path) (\(bundle.isFolder ? "folder" : "ZIP")), schema \(m.schema)")
        lines.append("id:          \(m.id), name \"\(m.name)\"\(m.revision.map { ", revision \($0)" } ?? "")\(m.generator.map { ", generator \($0)" } ?? "")")
        lines.append("hash:        \(m.hash ?? "none")\(verified ? " (verified)" : "")")
        var rows: [JSONValue] = []
        for preset in content.presets {
            rows.append(try describe(preset, settings: MixSettings(sampleRate: rate, profile: profile)))
        }
        json = .obj([
            "file": .str(path), "kind": .str(bundle.isFolder ? "folder" : "zip"), "schema": .str(m.schema),
            "id": .str(m.id), "name": .str(m.name), "hash": m.hash.map { JSONValue.str($0) } ?? JSONValue(.null),
            "presets": .arr(rows),
        ])
    }

    /// A preset's lines, appended; its JSON row, returned.
    private mutating func describe(_ preset: PresetHandle, settings: MixSettings) throws(Failure) -> JSONValue {
        let mixer: PresetMixer
        do {
            mixer = try PresetMixer(preset: preset, settings: settings)
        } catch {
            throw Failure(presetID: preset.id, reason: "\(error)")
        }
        let summary = PatternSummary(preset.pattern)
        var row: [(key: String, value: JSONValue)] = [
            ("id", .str(preset.id)), ("name", .str(preset.name)),
            ("durationMs", .num(mixer.durationMilliseconds)), ("durationRule", .str(mixer.durationRule.rawValue)),
            ("authoredDurationMs", .num(preset.duration)),
            ("pattern", .obj(["amplitudePoints": .num(Double(summary.amplitudePoints)),
                              "frequencyPoints": .num(Double(summary.frequencyPoints)),
                              "transients": .num(Double(summary.transients)),
                              "lastPointMs": .num(summary.lastPointTime)])),
        ]
        lines.append("preset \(preset.id) \"\(preset.name)\": \(Self.fmt(mixer.durationMilliseconds)) ms (\(mixer.durationRule.rawValue))")
        lines.append("  haptics:   \(summary.amplitudePoints) amplitude, \(summary.frequencyPoints) frequency points, \(summary.transients) transients, last at \(Self.fmt(summary.lastPointTime)) ms")
        row.append(("audio", describeAudio(preset, mixer: mixer)))
        row.append(("animation", describeAnimation(preset)))
        if let actuator = preset.actuator {
            lines.append("  actuator: \(actuator) (its manifest's; render and play use it unless --actuator or --profile is given)")
        }
        row.append(("actuator", preset.actuator.map { JSONValue.str($0) } ?? JSONValue(.null)))
        return JSONValue(.object(row))
    }

    private mutating func describeAudio(_ preset: PresetHandle, mixer: PresetMixer) -> JSONValue {
        guard let audio = preset.audio, let f = mixer.audioFormat ?? (try? AudioFormatInfo(bytes: audio.bytes, name: audio.source)) else {
            lines.append("  audio:     none")
            return JSONValue(.null)
        }
        let ms = Double(f.frames) * 1000 / Double(f.sampleRate)
        // Android haptic-coupled audio: its last channels vibrate and are not mixed as audio.
        let haptic = AudioStream.androidHapticChannels(of: audio.bytes, channels: f.channels)
        let of = haptic.map { " (the last \($0) haptic: ANDROID_HAPTIC=\($0), not mixed as audio)" } ?? ""
        lines.append("  audio:     \(audio.source): \(f.container), \(f.encoding), \(f.sampleRate) Hz, \(f.channels) ch\(of), \(Self.fmt(ms)) ms; volume \(Self.fmt(audio.volume)), offset \(Self.fmt(audio.offset)) ms")
        return .obj(["src": .str(audio.source), "container": .str(f.container), "encoding": .str(f.encoding),
                     "sampleRate": .num(Double(f.sampleRate)), "channels": .num(Double(f.channels)),
                     "androidHapticChannels": haptic.map { .num(Double($0)) } ?? JSONValue(.null),
                     "frames": .num(Double(f.frames)), "durationMs": .num(ms),
                     "volume": .num(audio.volume), "offsetMs": .num(audio.offset)])
    }

    private mutating func describeAnimation(_ preset: PresetHandle) -> JSONValue {
        guard let animation = preset.animation else {
            lines.append("  animation: none")
            return JSONValue(.null)
        }
        var a: [(key: String, value: JSONValue)] = [("src", .str(animation.source)), ("bytes", .num(Double(animation.data.count)))]
        var text = "  animation: \(animation.source), \(animation.data.count) bytes"
        if let timing = LottieTiming(lottieJSON: animation.data) {
            text += ", \(Self.fmt(timing.frameRate)) fps, frames \(Self.fmt(timing.inPoint.value))..<\(Self.fmt(timing.outPoint.value)) = \(Self.fmt(timing.durationMilliseconds)) ms"
            a += [("frameRate", .num(timing.frameRate)), ("inPoint", .num(timing.inPoint.value)), ("outPoint", .num(timing.outPoint.value)),
                  ("durationMs", .num(timing.durationMilliseconds))]
        }
        if let fr = animation.frameRate { a.append(("manifestFrameRate", .num(fr))) }
        if let total = animation.totalFrames { a.append(("manifestTotalFrames", .num(total))) }
        lines.append(text)
        return JSONValue(.object(a))
    }

    static func fmt(_ v: Double) -> String { String(printf: "%.6g", v) }
}
