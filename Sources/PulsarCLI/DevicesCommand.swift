import PulsarCommandLine
import PulsarALSA
import PulsarEngine
import PulsarPipeWire
import PulsarSession

/// `pulsar devices`: the haptic sound cards found under `/proc/asound`, then the ALSA playback
/// PCMs `--device` can name, with their descriptions.
enum DevicesCommand {
    static let help = """
    usage: pulsar devices

    Lists first the haptic sound cards (a DualSense or DualSense Edge over USB, found by its USB
    id in /proc/asound, or in the folder PULSAR_PROC_ASOUND names): the hw:CARD=… name that
    opens it with all its channels, its channels and which carry haptics; `--device dualsense`
    plays on the first. Then the ALSA playback devices (PCM names and descriptions) that
    `pulsar play --device NAME` takes; then, when a PipeWire server answers, its sinks (`--device
    pw:NAME`) and sources (`pulsar latency --capture pw:NAME`, or a sink's `pw:NAME.monitor`);
    and the two built-in choices: `auto` (what it plays on here, and why: PipeWire's default
    sink when a server answers, else ALSA 'default', else the simulated device) and `sim` (the
    simulated device, paced by the system clock).
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
        let graph = Result { () throws(DeviceError) in try PipeWireSnapshot.live() }
        for line in pipeWireLines(graph) { Console.out(line) }
        Console.out("auto\n    here: \(autoLine(graph)); the simulated device when that does not open")
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

    /// The PipeWire section: the haptic cards it holds (their profile, and whether the haptic
    /// channels are reachable), its sinks, then its sources, each `pw:NAME` with its
    /// description; nothing without a server.
    static func pipeWireLines(_ graph: Result<PipeWireSnapshot, DeviceError>) -> [String] {
        guard case .success(let snapshot) = graph else { return [] }
        var lines: [String] = []
        let haptic = PipeWireHapticCard.all(in: snapshot)
        if !haptic.isEmpty {
            lines.append("haptic devices under PipeWire (--device dualsense):")
            for card in haptic { lines += card.lines }
        }
        func add(_ node: PipeWireSnapshot.Node) {
            guard let name = node.name else { return }
            lines.append("pw:\(name)")
            let positions = node.positions.isEmpty ? "" : ", positions \(node.positions.joined(separator: ","))"
            lines.append("    \(node.properties["node.description"] ?? name) (object.serial \(node.properties["object.serial"] ?? "?")\(positions))")
        }
        lines.append("PipeWire sinks (--device pw:NAME; pw: the default sink):")
        let sinks = snapshot.nodes.filter(\.isSink), sources = snapshot.nodes.filter(\.isSource)
        if sinks.isEmpty { lines.append("    none") }
        sinks.forEach(add)
        lines.append("PipeWire sources (pulsar latency --capture pw:NAME, or a sink's pw:NAME.monitor):")
        if sources.isEmpty { lines.append("    none") }
        sources.forEach(add)
        return lines
    }

    /// What `auto` plays on, from the graph already read.
    static func autoLine(_ graph: Result<PipeWireSnapshot, DeviceError>) -> String {
        DeviceSpec.autoChoiceText(obstacle: PipeWireGraph.autoObstacle(graph.map(\.nodes)))
    }

    private static func listed(_ args: Arguments) throws(CommandFailure) -> [ALSADeviceInfo] {
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "pulsar devices: takes no arguments") }
        return alsaPlaybackDevices()
    }
}
