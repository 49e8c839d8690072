import PulsarBundle
import PulsarCore

/// The duration precedence (docs/mixing.md): an explicit duration, else the preset's authored
/// `duration`, else the animation's `(op − ip) / fr`, else the later of the pattern's end and the
/// audio's end (plus its offset).
public enum DurationRule: String, Sendable {
    case explicit
    case preset
    case animation
    case content

    /// The duration in ms and the rule that decided it.
    /// - Parameters:
    ///   - patternEnd: ms until the haptic render's last sample (transient tails included).
    ///   - audioEnd: ms until the audio's last sample, offset included (nil without audio).
    public static func resolve(explicit: Double?, preset: PresetHandle, patternEnd: Double, audioEnd: Double?) -> (milliseconds: Double, rule: DurationRule) {
        if let explicit, explicit > 0 { return (explicit, .explicit) }
        if preset.duration > 0 { return (preset.duration, .preset) }
        if let animation = preset.animation {
            if let timing = LottieTiming(lottieJSON: animation.data) {
                return (timing.durationMilliseconds, .animation)
            }
            if let fr = animation.frameRate, let total = animation.totalFrames, fr > 0, total > 0 {
                return (total / fr * 1000, .animation)
            }
        }
        return (max(patternEnd, audioEnd ?? 0), .content)
    }
}
