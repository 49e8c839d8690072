/// The frequency band and gain of the actuator a render is meant for (docs/signal-model.md §2).
/// A pattern frequency `f` (0...1) becomes `minimumHertz + f · (maximumHertz − minimumHertz)`.
///
/// A plain value type: safe to use from any thread.
public struct ActuatorProfile: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var minimumHertz: Double
    public var maximumHertz: Double
    /// Linear gain applied before the limiter, `0 < gain <= 16`.
    public var gain: Double

    public init(name: String, minimumHertz: Double, maximumHertz: Double, gain: Double = 1) {
        self.name = name
        self.minimumHertz = minimumHertz
        self.maximumHertz = maximumHertz
        self.gain = gain
    }

    /// Voice-coil actuators, bass shakers and the DualSense: 60–300 Hz.
    public static let wideband = ActuatorProfile(name: "wideband", minimumHertz: 60, maximumHertz: 300)

    /// Default resonance of `lra`.
    public static let defaultResonance: Double = 170

    /// A linear resonant actuator: ±10 % around its resonance.
    public static func lra(resonance: Double = defaultResonance) -> ActuatorProfile {
        ActuatorProfile(name: "lra:\(JSONWriter.format(resonance))", minimumHertz: resonance * 0.9, maximumHertz: resonance * 1.1)
    }

    /// The frequency in Hz of a pattern frequency value.
    @inline(__always)
    public func hertz(for value: Double) -> Double {
        minimumHertz + value * (maximumHertz - minimumHertz)
    }

    /// The length in seconds of a transient of frequency value `value` (docs/signal-model.md §5):
    /// three cycles of its frequency, kept within 12…30 ms.
    public func transientSeconds(for value: Double) -> Double {
        min(max(3 / hertz(for: value), 0.012), 0.030)
    }

    public var description: String {
        "\(name) (\(JSONWriter.format(minimumHertz))–\(JSONWriter.format(maximumHertz)) Hz, gain \(JSONWriter.format(gain)))"
    }

    /// Why a profile cannot be used at a rate, or nil when it can.
    public func problem(at rate: SampleRate) -> String? {
        guard minimumHertz.isFinite, maximumHertz.isFinite, minimumHertz >= 1 else {
            return "the lowest frequency must be at least 1 Hz"
        }
        guard minimumHertz <= maximumHertz else { return "the lowest frequency is above the highest" }
        guard maximumHertz < Double(rate.hertz) / 2 else {
            return "the highest frequency \(JSONWriter.format(maximumHertz)) Hz must be below half the sample rate (\(rate.hertz / 2) Hz)"
        }
        guard gain.isFinite, gain > 0, gain <= 16 else { return "the gain must be in (0, 16]" }
        return nil
    }

    /// Parses `wideband`, `lra`, `lra:HZ` or `FMIN:FMAX` (Hz); nil when the text is none of them.
    public init?(parsing text: String) {
        if text == "wideband" { self = .wideband; return }
        if text == "lra" { self = .lra(); return }
        if text.hasPrefix("lra:") {
            guard let hz = Double(text.dropFirst(4)), hz.isFinite, hz > 0 else { return nil }
            self = .lra(resonance: hz)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let lo = Double(parts[0]), let hi = Double(parts[1]) else { return nil }
        self.init(name: "\(JSONWriter.format(lo)):\(JSONWriter.format(hi))", minimumHertz: lo, maximumHertz: hi)
    }
}
