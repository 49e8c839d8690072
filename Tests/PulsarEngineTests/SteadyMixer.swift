import PulsarAudio
import PulsarBundle
import PulsarCore

/// A haptic-only mixer of a steady 0.5 amplitude for `milliseconds`, audio preloaded (real-time
/// safe): the player tests' plain content.
func steadyMixer(milliseconds: Double, id: String = "p") throws -> PresetMixer {
    let pattern = PatternData(continuousPattern: ContinuousPattern(
        amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: milliseconds, value: 0.5)]))
    var settings = MixSettings(layout: .haptic)
    settings.preloadAudio = true
    return try PresetMixer(preset: PresetHandle(id: id, name: id, duration: 0, pattern: pattern), settings: settings)
}
