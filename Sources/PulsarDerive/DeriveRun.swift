import PulsarAudio
import PulsarBundle
import PulsarCore

/// A derivation from a bundle's preset by either method (docs/derive.md, Presets): `android`
/// runs Android's HapticGenerator on the preset's audio, `envelope` places the pattern on the
/// preset's timeline (`PresetDeriver`).
///
/// Thread rules: any thread but the real-time one (it decodes the preset's audio).
public enum DeriveRun {
    /// Why a preset gives nothing to derive from.
    public enum Failure: Error, Sendable {
        /// The preset (its id) has no audio.
        case noAudio(preset: String)
        case derive(DeriveError)
    }

    /// Derives from `preset`'s audio.
    public static func derive(preset: PresetHandle, settings: DeriveSettings) throws(Failure) -> DeriveOutput {
        guard let audio = preset.audio else { throw .noAudio(preset: preset.id) }
        do {
            if settings.method == .android {
                return try AudioDeriver.derive(bytes: audio.bytes, name: audio.source, settings: settings)
            }
            return .pattern(try PresetDeriver.pattern(of: preset, settings: settings))
        } catch {
            throw .derive(error)
        }
    }

    /// "N amplitude and M frequency points, K transients".
    public static func counts(_ p: PatternData) -> String {
        "\(p.continuousPattern.amplitude.count) amplitude and \(p.continuousPattern.frequency.count) frequency points, \(p.discretePattern.count) transient\(p.discretePattern.count == 1 ? "" : "s")"
    }
}

/// Where a derivation is written, by the output's extension and the method: `envelope` writes a
/// pattern file (.json, .ahap), `android` a mono WAV of the haptic channel — whole or not at all.
///
/// A plain value type: safe to use from any thread; `write` does file I/O.
public struct DeriveTarget: Sendable {
    public enum Kind: Sendable {
        case pattern(PatternFormat)
        case wav(SampleFormat)
    }

    /// Why the output cannot take the method's result.
    public enum Failure: Error, Sendable, Equatable {
        /// The envelope method needs a writable pattern format, not a .wav.
        case notPattern(path: String)
        /// A WAV sample format was given to the envelope method.
        case formatNotEnvelopes
        /// The android method needs a .wav.
        case notWAV(path: String)
    }

    /// Why writing failed.
    public enum WriteError: Error, Sendable {
        case pattern(PatternWriter.WriteError)
        case wav(AudioFileError)
        /// The result is of the other method's kind.
        case mismatch
    }

    /// What was written, to be reported.
    public enum Written: Sendable {
        case pattern(DerivedPattern, PatternFormat)
        case wav(WAVExporter.Report, sampleRate: Int, format: SampleFormat)
    }

    public let path: String
    /// `.wav` takes float samples until the caller sets `sampleFormat`.
    public private(set) var kind: Kind

    /// Checks that `path` takes `method`'s result; `sampleFormatGiven` says a WAV sample format
    /// was asked for (the android method's only).
    public init(_ path: String, method: DeriveSettings.Method, sampleFormatGiven: Bool) throws(Failure) {
        self.path = path
        let isWAV = path.lowercased().hasSuffix(".wav")
        switch method {
        case .envelope:
            guard let format = PatternFormat.forPath(path), format.isWritable, !isWAV else { throw .notPattern(path: path) }
            guard !sampleFormatGiven else { throw .formatNotEnvelopes }
            kind = .pattern(format)
        case .android:
            guard isWAV else { throw .notWAV(path: path) }
            kind = .wav(.float)
        }
    }

    /// Whether the output is a WAV (its temporary file is `WAVExporter.temporaryPath(for: path)`).
    public var isWAV: Bool {
        if case .wav = kind { return true }
        return false
    }

    /// The WAV's sample format; ignored for a pattern.
    public var sampleFormat: SampleFormat {
        get { if case .wav(let f) = kind { return f } else { return .float } }
        set { if isWAV { kind = .wav(newValue) } }
    }

    /// Writes `output` to `path`.
    public func write(_ output: DeriveOutput) throws(WriteError) -> Written {
        switch (kind, output) {
        case (.pattern(let format), .pattern(let derived)):
            do {
                try PatternWriter.write(derived.pattern, as: format, to: path)
            } catch {
                throw .pattern(error)
            }
            return .pattern(derived, format)
        case (.wav(let format), .haptics(let haptics)):
            do {
                let report = try WAVExporter(format: format).export(haptics.samples, to: path, sampleRate: SampleRate(haptics.sampleRate)!, channels: 1)
                return .wav(report, sampleRate: haptics.sampleRate, format: format)
            } catch {
                throw .wav(error)
            }
        default:
            throw .mismatch
        }
    }
}

extension DeriveTarget.Written {
    /// The line `pulsar derive` prints: what was written, its counts and length.
    public func summary(path: String) -> String {
        switch self {
        case .pattern(let derived, let format):
            return DerivedPattern.summary(derived, path: path, format: format)
        case .wav(let report, let rate, let format):
            let ms = Double(report.frames) * 1000 / Double(rate)
            return "wrote \(path): HapticGenerator channel, \(report.frames) frames (\(String(printf: "%.3f", ms)) ms) at \(rate) Hz, \(format.rawValue), peak \(String(printf: "%.3f", report.peak))"
        }
    }
}

extension DerivedPattern {
    /// "wrote PATH: FORMAT, counts from D ms of sound (curves within A and F)".
    public static func summary(_ derived: DerivedPattern, path: String, format: PatternFormat) -> String {
        "wrote \(path): \(format.displayName), \(DeriveRun.counts(derived.pattern)) from \(String(printf: "%.3f", derived.durationMilliseconds)) ms of sound (curves within \(String(printf: "%.4f", derived.amplitudeError)) and \(String(printf: "%.4f", derived.frequencyError)))"
    }
}
