import PulsarCommandLine
import PulsarALSA

/// `pulsar devices`: the ALSA playback PCMs `--device` can name, with their descriptions.
enum DevicesCommand {
    static let help = """
    usage: pulsar devices

    Lists the ALSA playback devices (PCM names and descriptions) that `pulsar play --device NAME`
    takes, then the two built-in choices: `auto` (ALSA 'default', or the simulated device when
    there is no sound device) and `sim` (the simulated device, paced by the system clock).
    """

    static func run(_ words: [String]) throws(CommandFailure) {
        let devices = try Self.listed(Arguments(words, options: [], command: "pulsar devices"))
        for device in devices {
            Console.out(device.name)
            if !device.description.isEmpty { Console.out("    \(device.description)") }
        }
        Console.out("auto\n    ALSA 'default', or the simulated device when there is no sound device")
        Console.out("sim\n    the simulated device, paced by the system clock (sim:ppm=P,jitter=MS,latency=MS,record=OUT.wav)")
    }

    private static func listed(_ args: Arguments) throws(CommandFailure) -> [ALSADeviceInfo] {
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "pulsar devices: takes no arguments") }
        return alsaPlaybackDevices()
    }
}
