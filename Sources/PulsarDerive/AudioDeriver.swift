import PulsarBundle
import PulsarCore

/// The haptic channel the `android` method derives: audio rate, one channel.
///
/// A plain value type: safe to use from any thread.
public struct DerivedHaptics: Sendable {
    /// The haptic samples, one per audio sample of the part, in −1…1.
    public var samples: [Float]
    /// The audio's rate.
    public var sampleRate: Int
    public var warnings: [DeriveDiagnostic]
}

/// What a derivation produced: a pattern (`envelope`) or a haptic channel (`android`).
public enum DeriveOutput: Sendable {
    case pattern(DerivedPattern)
    case haptics(DerivedHaptics)

    public var warnings: [DeriveDiagnostic] {
        switch self {
        case .pattern(let p): return p.warnings
        case .haptics(let h): return h.warnings
        }
    }
}

/// Haptics from a sound by either method (docs/derive.md): the entry point a `derive` command
/// stands on.
///
/// Thread rules: any thread but the real-time one; calls are independent.
public enum AudioDeriver {
    /// Derives from mono `samples` at `sampleRate` Hz, of the part the settings name.
    public static func derive(samples: [Float], sampleRate: Int, settings: DeriveSettings) throws(DeriveError) -> DeriveOutput {
        try settings.validate()
        try settings.validate(sampleRate: sampleRate)
        switch settings.method {
        case .envelope:
            return .pattern(try EnvelopeDeriver(settings: settings).derive(samples, sampleRate: sampleRate))
        case .android:
            let (range, warnings) = try DerivePart.frames(settings, total: samples.count, sampleRate: sampleRate)
            let haptics = try HapticGenerator.process(Array(samples[range]), sampleRate: sampleRate, parameters: settings.generator)
            return .haptics(DerivedHaptics(samples: haptics, sampleRate: sampleRate, warnings: warnings + nonFinite(samples[range])))
        }
    }

    /// Derives from the audio file at `path` (any format libsndfile reads): its audio channels'
    /// mean for `envelope`, channel 0 for `android` (`DeriveAudio`), at its own rate.
    public static func derive(contentsOf path: String, settings: DeriveSettings) throws(DeriveError) -> DeriveOutput {
        try settings.validate()
        let audio = try DeriveAudio.read(path, channels: DeriveAudio.channels(for: settings.method),
                                         fromMilliseconds: settings.fromMilliseconds, toMilliseconds: settings.toMilliseconds)
        return try derive(audio, name: path, settings: settings)
    }

    /// Derives from the audio `bytes` hold (a bundle's entry, a file already open); `name` names
    /// it in diagnostics.
    public static func derive(bytes: ByteSource, name: String, settings: DeriveSettings) throws(DeriveError) -> DeriveOutput {
        try settings.validate()
        let audio = try DeriveAudio.read(bytes: bytes, name: name, channels: DeriveAudio.channels(for: settings.method),
                                         fromMilliseconds: settings.fromMilliseconds, toMilliseconds: settings.toMilliseconds)
        return try derive(audio, name: name, settings: settings)
    }

    /// Derives from a decoded part (its samples are the part already: `from`/`to` are not
    /// applied again).
    static func derive(_ audio: DecodedAudio, name: String, settings: DeriveSettings) throws(DeriveError) -> DeriveOutput {
        do {
            try settings.validate(sampleRate: audio.sampleRate)
        } catch {
            var e = error
            e.file = name
            throw e
        }
        switch settings.method {
        case .envelope:
            let deriver = try EnvelopeDeriver(settings: settings)
            var result = audio.samples.withUnsafeBufferPointer { deriver.analyse($0, sampleRate: audio.sampleRate, file: name) }
            result.warnings = audio.warnings + result.warnings
            return .pattern(result)
        case .android:
            let haptics = try HapticGenerator.process(audio.samples, sampleRate: audio.sampleRate, parameters: settings.generator)
            return .haptics(DerivedHaptics(samples: haptics, sampleRate: audio.sampleRate, warnings: audio.warnings))
        }
    }

    private static func nonFinite(_ samples: ArraySlice<Float>) -> [DeriveDiagnostic] {
        let count = samples.reduce(0) { $0 + ($1.isFinite ? 0 : 1) }
        return count == 0 ? [] : [.warning(.nonFiniteSamples, "\(count) samples were NaN or infinite and were read as 0")]
    }
}
