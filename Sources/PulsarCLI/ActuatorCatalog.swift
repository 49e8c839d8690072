import Glibc
import PulsarCommandLine
import PulsarCore

/// The actuator configs `--actuator NAME` finds: the `.acf` files of the first folder that exists
/// of `$PULSAR_ACTUATORS`, `PREFIX/share/pulsar/actuators` beside an installed `pulsar`
/// (`PREFIX/bin/pulsar`), and `Resources/actuators` of the checkout a built `pulsar` sits in
/// (`.build/TRIPLE/CONFIG/pulsar`). A NAME is the file's name without `.acf`; a value with a `/`
/// or ending in `.acf` is a path.
enum ActuatorCatalog {
    /// The folder the shipped configs are read from, or nil when none is found.
    static func folder() -> String? {
        var candidates: [String] = []
        if let given = getenv("PULSAR_ACTUATORS").map({ String(cString: $0) }), !given.isEmpty { candidates.append(given) }
        if let exe = executablePath() {
            let bin = PathText.parent(exe)
            candidates.append(PathText.standardized(bin + "/../share/pulsar/actuators"))
            candidates.append(PathText.standardized(bin + "/../../../Resources/actuators"))
        }
        return candidates.first { InputFile.exists($0) }
    }

    /// The shipped configs by name, sorted.
    static func names() -> [String] {
        guard let folder = folder(), let files = try? InputFile.names(inFolder: folder) else { return [] }
        return files.filter { $0.lowercased().hasSuffix(".acf") }.map { PathText.deletingExtension($0) }.sorted()
    }

    /// The path `--actuator VALUE` names: VALUE itself when it is a path, else the shipped config
    /// of that name. Throws the usage error naming what exists.
    static func path(for value: String, command: String) throws(CommandFailure) -> String {
        if value.contains("/") || value.lowercased().hasSuffix(".acf") { return value }
        let known = names()
        guard known.contains(value), let folder = folder() else {
            let list = known.isEmpty ? "none are installed" : "shipped: \(known.joined(separator: ", "))"
            throw CommandFailure(.usage, "\(command): --actuator \(MessageText.quoted(value)) is no shipped actuator config (\(list)); give a .acf file")
        }
        return folder + "/" + value + ".acf"
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `pulsar actuators`: the actuators a design can be rendered for, one line each.
enum ActuatorsCommand {
    static let help = """
    usage: pulsar actuators [--json]

    Lists the actuators: today's profiles (--profile: the band the pattern's frequency 0…1 maps
    onto, linearly) and the shipped actuator configs (--actuator NAME: Meta's actuator config
    files, rendered as Meta's Haptics SDK renders them; docs/actuators.md), one line each: the
    name, the band, the transient, the device. The configs are read from $PULSAR_ACTUATORS,
    else PREFIX/share/pulsar/actuators, else the checkout's Resources/actuators.

    options:
      --json              one JSON object: {"profiles": […], "configs": […], "folder": "…"}
      -h, --help          this help
    """

    static let options: [Arguments.Option] = [.flag("--json")]

    static func run(_ words: [String]) throws(CommandFailure) {
        let command = "pulsar actuators"
        let args = try Arguments(words, options: options, command: command)
        guard args.positionals.isEmpty else { throw CommandFailure(.usage, "\(command): takes no operand (see '\(command) --help')") }
        let profiles = [ActuatorProfile.wideband, ActuatorProfile.lra()]
        var configs: [(name: String, config: MetaActuatorConfig)] = []
        let folder = ActuatorCatalog.folder() ?? ""
        for name in ActuatorCatalog.names() {
            let path = folder + "/" + name + ".acf"
            do {
                configs.append((name, try MetaActuatorConfig.load(path: path).config))
            } catch {
                throw CommandFailure(.dataError, "pulsar: error: \(error)")
            }
        }
        if args.flag("--json") {
            print(json(profiles: profiles, configs: configs), terminator: "")
            return
        }
        for p in profiles {
            print(pad(p.name) + "profile  " + String(printf: "%g–%g Hz", p.minimumHertz, p.maximumHertz)
                  + ", linear; transients: the carrier under a 4 ms rise (docs/signal-model.md §5)")
        }
        for (name, c) in configs {
            let low = c.emphasis.frequencyMin, high = c.emphasis.frequencyMax
            var line = pad(name) + "ACF      " + String(printf: "%g–%g Hz", c.continuous.frequencyMin, c.continuous.frequencyMax)
            line += ", linear; bursts " + String(printf: "%g Hz %g ms ", low.outputFrequency, low.durationMs) + low.shape.rawValue
            line += " → " + String(printf: "%g Hz %g ms ", high.outputFrequency, high.durationMs) + high.shape.rawValue
            if let limit = c.emphasis.bandLimitHertz { line += String(printf: " band-limited to %g Hz", limit) }
            if let rise = c.emphasis.riseMs { line += String(printf: " rising over %g ms", rise) }
            line += String(printf: ", ducking %g", c.continuous.emphasisDucking)
            if let ramp = c.continuous.duckingRampMs { line += String(printf: " over %g ms", ramp) }
            if let device = c.metadata.device { line += "; " + MessageText.excerpt(device, limit: 60) }
            print(line)
        }
    }

    /// `name` padded to the list's first column.
    private static func pad(_ name: String) -> String {
        name.count >= 15 ? name + " " : name + String(repeating: " ", count: 15 - name.count)
    }

    private static func json(profiles: [ActuatorProfile], configs: [(name: String, config: MetaActuatorConfig)]) -> String {
        let p = profiles.map { JSONValue.obj(["name": .str($0.name), "kind": .str("profile"), "minimumHertz": .num($0.minimumHertz),
                                              "maximumHertz": .num($0.maximumHertz)]) }
        let c = configs.map { entry in
            JSONValue.obj(["name": .str(entry.name), "kind": .str("acf"), "device": .str(entry.config.metadata.device ?? ""),
                           "minimumHertz": .num(entry.config.continuous.frequencyMin), "maximumHertz": .num(entry.config.continuous.frequencyMax),
                           "ducking": .num(entry.config.continuous.emphasisDucking),
                           "burstBandLimitHz": entry.config.emphasis.bandLimitHertz.map { .num($0) } ?? JSONValue(.null)])
        }
        return JSONWriter().write(.obj(["profiles": .arr(p), "configs": .arr(c), "folder": .str(ActuatorCatalog.folder() ?? "")]))
    }
}

extension ActuatorCatalog {
    /// The config at `path` for a render at `setup`'s rate, as every command reads one: its
    /// warnings printed unless quiet; unreadable is 66, bad data 65, a frequency the rate cannot
    /// carry 64.
    static func open(_ path: String, setup: RenderSetup, command: String) throws(CommandFailure) -> MetaActuatorConfig {
        let read: MetaActuatorConfig.Loaded
        do {
            read = try MetaActuatorConfig.load(path: path)
        } catch {
            throw CommandFailure(error.rule == .unreadable || error.rule == .fileTooLarge ? .noInput : .dataError, "pulsar: error: \(error)")
        }
        if !setup.quiet { WarningPrinter.print(read.warnings) }
        if let problem = read.config.problem(at: setup.rate) {
            throw CommandFailure(.usage, "\(command): --actuator \(MessageText.excerpt(path)): \(problem)")
        }
        return read.config
    }

    /// What a config's renderer reads of a pattern: a `.haptic` clip's raw values, any other
    /// pattern as the clip it maps to (docs/actuators.md).
    static func clip(of loaded: LoadedPattern, through config: MetaActuatorConfig) -> LofeltClip {
        loaded.lofeltClip ?? LofeltClip(pattern: loaded.pattern, emphasis: config.emphasis)
    }
}
