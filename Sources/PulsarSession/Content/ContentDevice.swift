import PulsarAudio
import PulsarBundle
import PulsarCore

/// What a design is rendered for, as every front end names it: a rate, and the device — a
/// signal-model profile (`wideband`, `lra`, `lra:HZ`, `FMIN:FMAX`) or an actuator config (a
/// shipped name or a `.acf` path) — with an optional gain. A bundle preset's own actuator
/// (its manifest's) is used when the caller named no device (`applying`).
public struct ContentDevice: Sendable {
    public var rate: SampleRate
    /// The signal model's band and gain: the profile given, or the actuator's (`Actuator.profile`).
    public var profile: ActuatorProfile
    /// The actuator given, nil when the device is a profile.
    public var actuator: Actuator?
    /// Whether the caller named the device (an actuator or a profile).
    public var isNamed: Bool
    /// The gain given, kept for a preset's own actuator.
    public var gain: Double?

    /// The defaults: 48 kHz, wideband, unnamed.
    public init(rate: SampleRate = SampleRate(48_000)!) {
        self.rate = rate
        profile = .wideband
        isNamed = false
    }

    /// The device `profile` or `actuator` names (at most one of them), at `rate`, with `gain`.
    /// Refusals: a bad profile, both named, an actuator that finds nothing or `rate` cannot carry
    /// are `.usage` (the message starts with what was named: `--profile X: …`, `--actuator …`);
    /// an unreadable config `.missing`; a bad one `.data`.
    public init(rate: SampleRate, profile profileText: String?, actuator name: String?, gain: Double?,
                warnings: inout [ContentWarning]) throws(SessionError) {
        self.rate = rate
        let text = profileText ?? "wideband"
        guard var profile = ActuatorProfile(parsing: text) else {
            throw SessionError(.usage, "--profile must be wideband, lra, lra:HZ or FMIN:FMAX, not '\(MessageText.excerpt(text))'")
        }
        if let gain { profile.gain = gain }
        self.gain = gain
        isNamed = profileText != nil || name != nil
        if let problem = profile.problem(at: rate) {
            throw SessionError(.usage, "--profile \(text): \(problem)")
        }
        if let name {
            guard profileText == nil else {
                throw SessionError(.usage, "--actuator and --profile both name the device: give one")
            }
            var actuator: Actuator
            do {
                actuator = try ActuatorLookup.actuator(name, rate: rate, warnings: &warnings)
            } catch {
                throw error.kind == .usage ? SessionError(.usage, "--actuator \(error.description)") : error
            }
            if let gain { actuator.gain = gain }
            profile = actuator.profile
            self.actuator = actuator
        }
        self.profile = profile
    }

    /// The device for `preset`: the actuator its manifest names when the caller named no
    /// device (docs/bundle-format.md), with the gain given; else this one. A name that is not
    /// shipped or cannot play at the rate is the manifest's fault: `.data`.
    public func applying(_ preset: PresetHandle, warnings: inout [ContentWarning]) throws(SessionError) -> ContentDevice {
        guard !isNamed, let name = preset.actuator else { return self }
        var device = self
        var actuator: Actuator
        do {
            actuator = try ActuatorLookup.actuator(name, rate: rate, shippedOnly: true, warnings: &warnings)
        } catch {
            guard error.kind == .usage else { throw error }
            let shipped = ActuatorLookup.shipped
            throw SessionError(.data, "preset \(MessageText.quoted(preset.id)) names actuator \(MessageText.quoted(name)) in its manifest, which "
                               + (shipped.names.contains(name) ? "cannot play at \(rate.hertz) Hz" : "is not shipped (\(shipped.list))"))
        }
        if let gain { actuator.gain = gain }
        (device.actuator, device.profile) = (actuator, actuator.profile)
        return device
    }

    /// The device the design is rendered for: the actuator, else the profile as an actuator.
    public var device: Actuator { actuator ?? Actuator(profile: profile) }

    /// Mix settings for this device in `layout` at its rate.
    public func settings(layout: ChannelLayout) -> MixSettings {
        var settings = MixSettings(sampleRate: rate, layout: layout, profile: profile)
        settings.actuator = actuator
        return settings
    }
}
