import PulsarCore

/// What a pattern file holds, as `pulsar info FILE` shows it: its format, duration, rendered
/// length at a rate through a profile, point counts and value ranges, and the warnings raised
/// reading it — as lines of text (the warnings' count; the caller lists them) and as the
/// `--json` document.
///
/// A plain value type: safe to use from any thread.
public struct PatternDescription: Sendable {
    /// The text, a line each, ending with the warnings' count.
    public let lines: [String]
    /// The `--json` document.
    public let json: JSONValue

    /// Describes `loaded` (read from `path`), rendered to `frames` frames at `rate` through `profile`.
    public init(path: String, loaded: LoadedPattern, frames: FrameIndex, rate: SampleRate, profile: ActuatorProfile) {
        let summary = PatternSummary(loaded.pattern)
        let renderedMs = rate.milliseconds(atFrame: frames)
        json = Self.document(path: path, loaded: loaded, summary: summary, frames: frames, renderedMs: renderedMs, rate: rate, profile: profile)
        func short(_ v: Double) -> String { String(printf: "%.6g", v) }
        func show(_ r: ClosedRange<Double>?) -> String {
            guard let r else { return "–" }
            return "\(short(r.lowerBound)) … \(short(r.upperBound))"
        }
        lines = [
            "file:        \(path)",
            "format:      \(loaded.format.displayName)\(loaded.scaledFromSeconds ? " (times read as seconds)" : "")",
            "duration:    \(short(summary.lastPointTime)) ms (continuous part \(short(summary.continuousEnd)) ms)",
            "rendered:    \(frames) frames = \(String(printf: "%.3f", renderedMs)) ms at \(rate.hertz) Hz, profile \(profile)",
            "amplitude:   \(summary.amplitudePoints) points, values \(show(summary.amplitudeRange))",
            "frequency:   \(summary.frequencyPoints) points, values \(show(summary.frequencyRange))",
            "transients:  \(summary.transients), amplitude \(show(summary.transientAmplitudeRange)), frequency \(show(summary.transientFrequencyRange))",
            "warnings:    \(loaded.warnings.count)",
        ]
    }

    private static func document(path: String, loaded: LoadedPattern, summary: PatternSummary, frames: FrameIndex,
                                 renderedMs: Double, rate: SampleRate, profile: ActuatorProfile) -> JSONValue {
        func range(_ r: ClosedRange<Double>?) -> JSONValue {
            guard let r else { return JSONValue(.null) }
            return .arr([.num(r.lowerBound), .num(r.upperBound)])
        }
        return .obj([
            "file": .str(path),
            "format": .str(loaded.format.rawValue),
            "durationMs": .num(summary.lastPointTime),
            "continuousEndMs": .num(summary.continuousEnd),
            "renderedMs": .num(renderedMs),
            "renderedFrames": .num(Double(frames)),
            "sampleRate": .num(Double(rate.hertz)),
            "profile": .str(profile.name),
            "amplitudePoints": .num(Double(summary.amplitudePoints)),
            "frequencyPoints": .num(Double(summary.frequencyPoints)),
            "transients": .num(Double(summary.transients)),
            "amplitudeRange": range(summary.amplitudeRange),
            "frequencyRange": range(summary.frequencyRange),
            "transientAmplitudeRange": range(summary.transientAmplitudeRange),
            "transientFrequencyRange": range(summary.transientFrequencyRange),
            "scaledFromSeconds": JSONValue(.bool(loaded.scaledFromSeconds)),
            "warnings": .arr(loaded.warnings.map { .str($0.description) }),
        ])
    }
}
