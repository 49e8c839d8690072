#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// The actuators this library finds by name (`ShippedActuators`): `$PULSAR_ACTUATORS`, else the
/// folder beside the library (`PREFIX/lib/libpulsar.so` → `PREFIX/share/pulsar/actuators`; a
/// checkout's build folder → its `Resources/actuators`).
enum LibraryActuators {
    static var shipped: ShippedActuators {
        ShippedActuators(candidates: libraryPath().map(ShippedActuators.candidates(besides:)) ?? [])
    }

    /// This library's file: the `/proc/self/maps` line whose range holds its own address.
    static func libraryPath() -> String? {
        let address = UInt(bitPattern: #dsohandle)
        guard let file = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            let range = fields.first?.split(separator: "-") ?? []
            guard fields.count >= 6, range.count == 2, let low = UInt(range[0], radix: 16), let high = UInt(range[1], radix: 16),
                  (low..<high).contains(address) else { continue }
            return fields[5...].joined(separator: " ")
        }
        return nil
    }

    /// The actuator `value` names — a config file's path, or a shipped name — for a mix at `rate`;
    /// nil with the thread's last error set and `failure` its code (not found, bad data, or a
    /// frequency the rate cannot carry).
    static func actuator(_ value: String, rate: SampleRate, what: String, failure: inout Result) -> Actuator? {
        var path = value
        if !ShippedActuators.isPath(value) {
            let catalog = shipped
            guard let found = catalog.path(of: value) else {
                failure = .notFound
                _ = failure.failing("\(what): \(echoed(value)) is no shipped actuator (\(catalog.list); $PULSAR_ACTUATORS names their folder); give a .acf path")
                return nil
            }
            path = found
        }
        let actuator: Actuator
        do {
            actuator = try Actuator.load(path: path).actuator
        } catch {
            failure = error.rule == .unreadable ? .notFound : .data
            _ = failure.failing("\(what): \(error)")
            return nil
        }
        if let problem = actuator.problem(at: rate) {
            failure = .argument
            _ = failure.failing("\(what) \(echoed(path)): \(problem)")
            return nil
        }
        return actuator
    }
}
