import PulsarCore
import PulsarSession

/// The actuators this library finds by name: the session layer's `ActuatorLookup`, which looks
/// beside the library (`PREFIX/lib/libpulsar.so` → `PREFIX/share/pulsar/actuators`; a
/// checkout's build folder → its `Resources/actuators`) after `$PULSAR_ACTUATORS`.
enum LibraryActuators {
    /// The actuator `value` names — a config file's path, or a shipped name — for a mix at `rate`;
    /// nil with the thread's last error set and `failure` its code (not found, bad data, or a
    /// frequency the rate cannot carry).
    static func actuator(_ value: String, rate: SampleRate, what: String, failure: inout Result) -> Actuator? {
        var warnings: [ContentWarning] = []
        do {
            return try ActuatorLookup.actuator(value, rate: rate, warnings: &warnings)
        } catch {
            failure = error.libraryResult
            // A name that finds nothing is "not found" to a library caller.
            if error.kind == .usage, !ShippedActuators.isPath(value) { failure = .notFound }
            _ = failure.failing("\(what): \(error.description)")
            return nil
        }
    }
}

extension SessionError {
    /// The library's code for a refusal of the session layer.
    var libraryResult: Result {
        switch kind {
        case .usage: return .argument
        case .missing: return .notFound
        case .data: return .data
        case .io: return .io
        case .device, .unavailable: return .device
        }
    }
}
