import PulsarBundle
import PulsarCore

/// Haptics derived from a bundle preset's audio, placed on the preset's timeline
/// (docs/derive.md, Presets): what `pulsar derive --preset`, `render`/`play`/`view --derive`
/// and `pack --derive` stand on.
///
/// Thread rules: any thread but the real-time one (it decodes the preset's audio, through its
/// `audio.bytes`, which is for one thread at a time).
public enum PresetDeriver {
    /// The `envelope` pattern of `preset`'s audio. The audio plays `offset` ms after the
    /// pattern's time 0, so the pattern's times are the audio's plus its offset; a negative
    /// offset trims the audio's start, and that part is not analysed (`from` is raised to
    /// `−offset`). The preset's volume does not matter: the curves are normalised to the gain.
    public static func pattern(of preset: PresetHandle, settings: DeriveSettings) throws(DeriveError) -> DerivedPattern {
        guard let audio = preset.audio else {
            throw DeriveError(.missingAudio, message: "preset \(MessageText.quoted(preset.id)) has no audio to derive haptics from")
        }
        var settings = settings
        settings.method = .envelope
        try settings.validate()
        settings.fromMilliseconds = max(settings.fromMilliseconds, -audio.offset)
        if let to = settings.toMilliseconds, to <= settings.fromMilliseconds {
            throw DeriveError(.badPart, file: audio.source, message: "to \(JSONWriter.format(to)) ms lies in the part of the audio its offset \(JSONWriter.format(audio.offset)) ms trims: nothing to analyse")
        }
        guard case .pattern(var derived) = try AudioDeriver.derive(bytes: audio.bytes, name: audio.source, settings: settings) else {
            throw DeriveError(.unreadableAudio, file: audio.source, message: "the envelope method made no pattern")
        }
        derived.pattern = delayed(derived.pattern, by: settings.fromMilliseconds + audio.offset)
        return derived
    }

    /// `pattern` `ms` later, silent before: a curve's ends are held (docs/signal-model.md §4), so a
    /// delayed amplitude curve starts with a point of 0 at time 0 — and, when its first value is
    /// not 0, another 1 ms before that value.
    static func delayed(_ pattern: PatternData, by ms: Double) -> PatternData {
        var moved = pattern.shifted(byMilliseconds: ms)
        guard ms > 0, let first = moved.continuousPattern.amplitude.first else { return moved }
        var silent = first
        silent.value = 0
        if first.value != 0 {
            silent.time = max(first.time - 1, first.time / 2)
            moved.continuousPattern.amplitude.insert(silent, at: 0)
        }
        silent.time = 0
        if moved.continuousPattern.amplitude[0].time > 0 { moved.continuousPattern.amplitude.insert(silent, at: 0) }
        return moved
    }

    /// The settings as the manifest's `derived.settings` records them (`pulsar pack --derive`).
    public static func record(_ settings: DeriveSettings) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            (key: "profile", value: .str(settings.profile.name)),
            (key: "resolution", value: .num(settings.resolution)),
            (key: "gainDB", value: .num(settings.gainDB)),
            (key: "threshold", value: .num(settings.threshold)),
            (key: "exponent", value: .num(settings.exponent)),
            (key: "tolerance", value: .num(settings.tolerance)),
            (key: "band", value: .arr([.num(settings.analysisBand.lowerBound), .num(settings.analysisBand.upperBound)])),
            (key: "from", value: .num(settings.fromMilliseconds)),
        ]
        if let to = settings.toMilliseconds { members.append((key: "to", value: .num(to))) }
        return JSONValue(.object(members))
    }
}

extension PatternData {
    /// Every point `milliseconds` later (a shift ≥ 0 keeps a valid pattern valid).
    public func shifted(byMilliseconds milliseconds: Double) -> PatternData {
        guard milliseconds != 0 else { return self }
        var copy = self
        for i in copy.continuousPattern.amplitude.indices { copy.continuousPattern.amplitude[i].time += milliseconds }
        for i in copy.continuousPattern.frequency.indices { copy.continuousPattern.frequency[i].time += milliseconds }
        for i in copy.discretePattern.indices { copy.discretePattern[i].time += milliseconds }
        return copy
    }
}
