import PulsarCommandLine
import PulsarCore

/// `pulsar actuators`: the actuators a design can be rendered for, one line each.
enum ActuatorsCommand {
    static let help = """
    usage: pulsar actuators [--json]

    Lists the shipped actuators (--actuator NAME on render, play, view, video, plot, lint,
    derive and follow), one line each: the name, the model — envelope (the signal model over a
    band: wideband is --profile wideband, lra is --profile lra) or burst (Meta's renderer
    through an actuator config) —, the band, the transient, laws that differ from the model's,
    the device (docs/actuators.md). They are read from $PULSAR_ACTUATORS, else
    PREFIX/share/pulsar/actuators, else the checkout's Resources/actuators. --profile
    FMIN:FMAX gives any other band on the envelope model.

    options:
      --json              one JSON object: {"actuators": […], "folder": "…"}
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [.flag("--json")]

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar actuators"
        let args = try Arguments(words, options: options, command: command)
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "\(command): takes no operand (see '\(command) --help')") }
        var actuators: [Actuator] = []
        let folder = ActuatorCatalog.folder() ?? ""
        for name in ActuatorCatalog.names() {
            do {
                actuators.append(try Actuator.load(path: folder + "/" + name + ".acf").actuator)
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(error)")
            }
        }
        if args.flag("--json") {
            print(json(actuators), terminator: "")
            return
        }
        for a in actuators { print(pad(a.name) + a.summary) }
    }

    /// `name` padded to the list's first column.
    private static func pad(_ name: String) -> String {
        name.count >= 15 ? name + " " : name + String(repeating: " ", count: 15 - name.count)
    }

    private static func json(_ actuators: [Actuator]) -> String {
        let list = actuators.map { a in
            var object: [(key: String, value: JSONValue)] = [
                ("name", .str(a.name)), ("model", .str(a.burstConfig == nil ? "envelope" : "burst")),
                ("device", .str(a.metadata.device ?? "")),
                ("minimumHertz", .num(a.profile.minimumHertz)), ("maximumHertz", .num(a.profile.maximumHertz)),
                ("amplitudeLaw", .str(a.amplitudeLaw.rawValue)), ("frequencyLaw", .str(a.frequencyLaw.rawValue)),
            ]
            if let r = a.resonanceHertz { object.append(("resonanceHertz", .num(r))) }
            if let c = a.burstConfig {
                object.append(("ducking", .num(c.continuous.emphasisDucking)))
                object.append(("burstBandLimitHz", c.emphasis.bandLimitHertz.map { .num($0) } ?? JSONValue(.null)))
            }
            let l = a.limits
            object.append(("limits", .obj(["riseMs": l.riseMs.map { .num($0) } ?? JSONValue(.null),
                                            "separationMs": l.separationMs.map { .num($0) } ?? JSONValue(.null),
                                            "sustainedRMS": l.sustainedRMS.map { .num($0) } ?? JSONValue(.null),
                                            "sustainedWindowMs": .num(l.sustainedWindowMs)])))
            return JSONValue(.object(object))
        }
        return JSONWriter().write(.obj(["actuators": .arr(list), "folder": .str(ActuatorCatalog.folder() ?? "")]))
    }
}
