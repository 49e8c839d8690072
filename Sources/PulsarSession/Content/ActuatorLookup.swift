#if canImport(Glibc)
import Glibc
#endif
import PulsarCore

/// Where every front end finds an actuator a name or a path gives (docs/actuators.md): a path is
/// read as it is; a name is a shipped config (`ShippedActuators`) — in `$PULSAR_ACTUATORS`, else
/// beside the binary this code runs in (the `pulsar` command beside `PREFIX/bin`, libpulsar
/// beside `PREFIX/lib`, a checkout's build folder).
///
/// Thread rules: any thread but the real-time one (it reads files).
public enum ActuatorLookup {
    /// The shipped configs beside the binary this code was linked into.
    public static var shipped: ShippedActuators {
        ShippedActuators(candidates: binaryPath().map(ShippedActuators.candidates(besides:)) ?? [])
    }

    /// The file of the binary (the executable or the shared library) holding this code: the
    /// `/proc/self/maps` line whose range holds its own address.
    public static func binaryPath() -> String? {
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

    /// The config file `value` names: `value` itself when it is a path (it must end in `.acf`),
    /// else the shipped config of that name. With `shippedOnly` (a bundle's manifest names no
    /// file), only a shipped name. A value that finds nothing is `.usage`; its message starts
    /// with the value.
    public static func path(for value: String, shippedOnly: Bool = false) throws(SessionError) -> String {
        if !shippedOnly, ShippedActuators.isPath(value) {
            guard value.lowercased().hasSuffix(".acf") else {
                throw SessionError(.usage, "takes an actuator config file ending in .acf or a shipped name, not '\(MessageText.excerpt(value))'")
            }
            return value
        }
        let catalog = shipped
        guard let path = catalog.path(of: value) else {
            // The name short enough that the whole line (the list of names included) fits 300 characters.
            throw SessionError(.usage, "\"\(MessageText.excerpt(value, limit: 48))\" is no shipped actuator config (\(catalog.list); $PULSAR_ACTUATORS names their folder); give a .acf file")
        }
        return path
    }

    /// The actuator `value` names, for content at `rate`, with the config's warnings: an
    /// unreadable file is `.missing`, bad data `.data`, a config no rate can play `.data`
    /// (`[bad-value]`), one `rate` cannot carry `.usage` naming the file.
    public static func actuator(_ value: String, rate: SampleRate, shippedOnly: Bool = false,
                                warnings: inout [ContentWarning]) throws(SessionError) -> Actuator {
        let path = try path(for: value, shippedOnly: shippedOnly)
        let read: Actuator.Loaded
        do {
            read = try Actuator.load(path: path)
        } catch {
            throw SessionError(error.rule == .unreadable || error.rule == .fileTooLarge ? .missing : .data, "\(error)")
        }
        warnings.append(contentsOf: read.warnings)
        if let problem = read.actuator.problem(at: rate) {
            let everyRate = read.actuator.problem(at: SampleRate(SampleRate.supported.upperBound)!) != nil
            throw everyRate ? SessionError(.data, "\(MessageText.excerpt(path)): \(problem) [bad-value]")
                            : SessionError(.usage, "\(MessageText.excerpt(path)): \(problem)")
        }
        return read.actuator
    }
}
