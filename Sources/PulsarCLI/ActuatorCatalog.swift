import Glibc
import PulsarCommandLine
import PulsarCore

/// The actuator configs `--actuator NAME` finds (`ShippedActuators`): `$PULSAR_ACTUATORS`, else
/// `PREFIX/share/pulsar/actuators` beside an installed `pulsar` (`PREFIX/bin/pulsar`), else
/// `Resources/actuators` of the checkout a built `pulsar` sits in. A NAME is the file's name
/// without `.acf`; a value with a `/` or ending in `.acf` is a path.
enum ActuatorCatalog {
    static var shipped: ShippedActuators { ShippedActuators(candidates: executablePath().map(ShippedActuators.candidates(besides:)) ?? []) }

    /// The folder the shipped configs are read from, or nil when none is found.
    static func folder() -> String? { shipped.folder }

    /// The shipped configs by name, sorted.
    static func names() -> [String] { shipped.names }

    /// The path `--actuator VALUE` names: VALUE itself when it is a path, else the shipped config
    /// of that name (only a shipped name when `shippedOnly`: a bundle's manifest names no file).
    /// Throws the usage error naming what exists.
    static func path(for value: String, command: String, shippedOnly: Bool = false) throws(CommandFailure) -> String {
        if !shippedOnly, ShippedActuators.isPath(value) {
            guard value.lowercased().hasSuffix(".acf") else {
                throw CommandFailure(.usage, "\(command): --actuator takes an actuator config file ending in .acf or a shipped name, not '\(MessageText.excerpt(value))'")
            }
            return value
        }
        let catalog = shipped
        guard let path = catalog.path(of: value) else {
            throw CommandFailure(.usage, "\(command): --actuator \(MessageText.quoted(value)) is no shipped actuator config (\(catalog.list)); give a .acf file")
        }
        return path
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension ActuatorCatalog {
    /// The actuator `--actuator VALUE` names, read as every command reads one: its warnings
    /// printed unless quiet; unreadable is 66, bad data 65, a frequency the rate cannot carry 64.
    static func actuator(_ value: String, rate: SampleRate, quiet: Bool, command: String,
                         shippedOnly: Bool = false) throws(CommandFailure) -> Actuator {
        let path = try path(for: value, command: command, shippedOnly: shippedOnly)
        let read: Actuator.Loaded
        do {
            read = try Actuator.load(path: path)
        } catch {
            throw CommandFailure(error.rule == .unreadable || error.rule == .fileTooLarge ? .noInput : .dataError, "pulsar: error: \(error)")
        }
        if !quiet { WarningPrinter.print(read.warnings) }
        if let problem = read.actuator.problem(at: rate) {
            // A config no rate can play is bad data; one the chosen rate cannot carry, a usage error.
            let everyRate = read.actuator.problem(at: SampleRate(SampleRate.supported.upperBound)!) != nil
            throw CommandFailure(everyRate ? .dataError : .usage,
                                 everyRate ? "pulsar: error: \(MessageText.excerpt(path)): \(problem) [bad-value]"
                                           : "\(command): --actuator \(MessageText.excerpt(path)): \(problem)")
        }
        return read.actuator
    }
}
