import PulsarCommandLine
import PulsarALSA

/// `pulsar devices`: the haptic sound cards found under `/proc/asound`, then the ALSA playback
/// PCMs `--device` can name, with their descriptions.
enum DevicesCommand {
    static let help = """
    usage: pulsar devices

    Lists first the haptic sound cards (a DualSense or DualSense Edge over USB, found by its USB
    id in /proc/asound, or in the folder PULSAR_PROC_ASOUND names): the hw:CARD=… name that
    opens it with all its channels, its channels and which carry haptics; `--device dualsense`
    plays on the first. Then the ALSA playback devices (PCM names and descriptions) that
    `pulsar play --device NAME` takes, and the two built-in choices: `auto` (ALSA 'default', or
    the simulated device when there is no sound device) and `sim` (the simulated device, paced
    by the system clock).
    """

    /// It takes none.
    static let options: [Arguments.Option] = []

    static func run(_ words: [String]) throws(CommandFailure) {
        let devices = try Self.listed(Arguments(words, options: options, command: "pulsar devices"))
        for line in hapticLines(SoundCards.haptic()) { Console.out(line) }
        for device in devices {
            Console.out(device.name)
            if !device.description.isEmpty { Console.out("    \(device.description)") }
        }
        Console.out("auto\n    ALSA 'default', or the simulated device when there is no sound device")
        Console.out("sim\n    the simulated device, paced by the system clock (sim:ppm=P,jitter=MS,latency=MS,record=OUT.wav)")
    }

    /// The haptic section: a heading, then per haptic card its hw name and a line of what it is
    /// (and, when it cannot be used as it is, a line with the fix); "none found" otherwise.
    static func hapticLines(_ haptic: [SoundCard]) -> [String] {
        guard !haptic.isEmpty else {
            return ["haptic devices: none found (\(HapticHardware.known.map(\.name).joined(separator: ", ")) over USB)"]
        }
        var lines = ["haptic devices:"]
        let chosen = haptic.first(where: \.isUsableHaptic)
        for card in haptic {
            guard let hardware = card.haptics else { continue }
            lines.append(card.hwName + (card == chosen ? "    (--device dualsense)" : ""))
            lines.append("    \(hardware.name) (\(hardware.usbID)), card \(card.index) '\(card.id)': \(hardware.channels) channels, haptics on \(hardware.hapticChannelsText), layout \(hardware.preferredLayout)")
            if let obstacle = card.hapticObstacle { lines.append("    not usable: \(obstacle)") }
        }
        return lines
    }

    private static func listed(_ args: Arguments) throws(CommandFailure) -> [ALSADeviceInfo] {
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "pulsar devices: takes no arguments") }
        return alsaPlaybackDevices()
    }
}
