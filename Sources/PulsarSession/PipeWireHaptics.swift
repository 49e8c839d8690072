import PulsarALSA
import PulsarPipeWire

/// A haptic card (a DualSense or DualSense Edge over USB) as PipeWire holds it: which profile it
/// is in, and the sink that carries all its channels — the speakers' pair and the actuators —
/// when that profile shows one. Under a sound server the card's default profiles split it into
/// stereo pairs and hide channels 3–4 (alsa-ucm-conf #828); the `pro-audio` profile shows one
/// 4-channel sink, positions AUX0–AUX3. Channels are routed by those positions, never by order.
/// Plain data, read from a `PipeWireSnapshot`.
public struct PipeWireHapticCard: Sendable {
    public let card: PipeWireSnapshot.Card
    public let hardware: HapticHardware
    /// The sink with every channel of the hardware (nil when the profile hides some).
    public let sink: PipeWireSnapshot.Node?
    /// The profile that shows all channels (`pro-audio`), when the card has one.
    public let proAudio: PipeWireSnapshot.Profile?

    /// The haptic cards of `snapshot` known by their USB ids, in the graph's order.
    public static func all(in snapshot: PipeWireSnapshot) -> [PipeWireHapticCard] {
        snapshot.cards.compactMap { card in
            guard card.properties["device.api"] == "alsa", let id = card.usbID, let hardware = HapticHardware.matching(usbID: id) else { return nil }
            let sink = snapshot.sinks(of: card).first { $0.positions.count >= hardware.channels }
            return PipeWireHapticCard(card: card, hardware: hardware, sink: sink, proAudio: card.profiles.first { $0.name == "pro-audio" })
        }
    }

    public var isReachable: Bool { sink != nil }

    /// The sink's positions of the haptic channels (AUX2, AUX3 in Pro Audio).
    public var hapticPositions: [String] {
        guard let positions = sink?.positions else { return [] }
        return hardware.hapticChannels.compactMap { $0 - 1 < positions.count ? positions[$0 - 1] : nil }
    }

    /// The active profile's name, as `pulsar devices` says it.
    public var profileText: String {
        card.activeProfile.map { "'\($0.name)' (\($0.description))" } ?? "unknown"
    }

    /// The command that shows the haptic channels: WirePlumber's, by the card's id and the
    /// profile's index; nil when the card has no Pro Audio profile.
    public var switchCommand: String? {
        proAudio.map { "wpctl set-profile \(card.id) \($0.index)" }
    }

    /// The switch to Pro Audio for a run and back after (`--device dualsense:pro-audio`); nil
    /// when the card has no Pro Audio profile.
    public var proAudioSwitch: PipeWireProfileSwitch? {
        proAudio.map { PipeWireProfileSwitch(cardID: card.id, to: $0, back: card.activeProfile, channels: hardware.channels) }
    }

    /// Why `--device dualsense` cannot play here, in one line (nil when it can).
    public var obstacle: String? {
        guard !isReachable else { return nil }
        // Short enough for one message line (300 characters): the fix for the run, then for good.
        let fix = switchCommand.map { "; play with --device dualsense:pro-audio (for this run only) or switch for good: \($0)" }
            ?? "; it offers no Pro Audio profile"
        return "PipeWire holds the \(hardware.name) in profile \(profileText), which hides its haptic channels \(hardware.hapticChannelsText)" + fix
    }

    /// `pulsar devices`' lines for it.
    public var lines: [String] {
        var lines = ["\(card.name)    (PipeWire card \(card.id))",
                     "    \(hardware.name) (\(hardware.usbID)): profile \(profileText)"]
        if let sink, let name = sink.name {
            lines.append("    haptic channels \(hardware.hapticChannelsText) reachable: pw:\(name), positions \(sink.positions.joined(separator: ",")) (haptics on \(hapticPositions.joined(separator: ", "))); --device dualsense plays there")
        } else if let obstacle {
            lines.append("    not reachable: \(obstacle)")
        }
        return lines
    }
}
