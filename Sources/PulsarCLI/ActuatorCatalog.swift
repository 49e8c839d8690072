import PulsarCommandLine
import PulsarCore
import PulsarSession

/// The actuator configs `--actuator NAME` finds: the session layer's `ActuatorLookup` (beside an
/// installed `pulsar`, `PREFIX/share/pulsar/actuators`; in a checkout, `Resources/actuators`),
/// read as every command reads one: warnings printed unless quiet, refusals as exit codes.
enum ActuatorCatalog {
    /// The folder the shipped configs are read from, or nil when none is found.
    static func folder() -> String? { ActuatorLookup.shipped.folder }

    /// The shipped configs by name, sorted.
    static func names() -> [String] { ActuatorLookup.shipped.names }

    /// The actuator `--actuator VALUE` names: unreadable is 66, bad data 65, a name that finds
    /// nothing or a frequency the rate cannot carry 64.
    static func actuator(_ value: String, rate: SampleRate, quiet: Bool, command: String) throws(CommandFailure) -> Actuator {
        var warnings: [ContentWarning] = []
        defer { if !quiet { WarningPrinter.print(warnings) } }
        do {
            return try ActuatorLookup.actuator(value, rate: rate, warnings: &warnings)
        } catch {
            throw error.kind == .usage ? CommandFailure(.usage, "\(command): --actuator \(error.description)") : error.failure
        }
    }
}
