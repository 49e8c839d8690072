#if canImport(Glibc)
import Glibc
#endif

/// The shipped actuator configs a NAME finds (docs/actuators.md): the `.acf` files of the first
/// folder that exists of `$PULSAR_ACTUATORS` and the places a front end names beside itself (the
/// command beside `PREFIX/bin`, the C library beside `PREFIX/lib`, a checkout's build folder). A
/// NAME is a file's name without `.acf`; a value with a `/` or ending in `.acf` is a path.
///
/// A plain value; reading the folder is the caller's thread's.
public struct ShippedActuators: Sendable {
    /// The folder the configs are read from, or nil when none of the candidates exists.
    public let folder: String?

    /// The first existing folder of `$PULSAR_ACTUATORS` (when set) and `candidates`.
    public init(candidates: [String]) {
        var all: [String] = []
        if let given = getenv("PULSAR_ACTUATORS").map({ String(cString: $0) }), !given.isEmpty { all.append(given) }
        folder = (all + candidates.map(PathText.standardized)).first { InputFile.exists($0) }
    }

    /// The candidates beside a binary at `path` (the command, or the C library): an `actuators`
    /// folder beside it (the Python wheel's package), the install tree's
    /// `../share/pulsar/actuators`, and a checkout's `Resources/actuators` from its build folder
    /// (`.build/CONFIG/` or `.build/TRIPLE/CONFIG/`).
    public static func candidates(besides path: String) -> [String] {
        let folder = PathText.parent(path)
        return [folder + "/actuators", folder + "/../share/pulsar/actuators", folder + "/../../Resources/actuators",
                folder + "/../../../Resources/actuators"]
    }

    /// The configs by name, sorted.
    public var names: [String] {
        guard let folder, let files = try? InputFile.names(inFolder: folder) else { return [] }
        return files.filter { $0.lowercased().hasSuffix(".acf") }.map { PathText.deletingExtension($0) }.sorted()
    }

    /// Whether `value` is a path rather than a name.
    public static func isPath(_ value: String) -> Bool { value.contains("/") || value.lowercased().hasSuffix(".acf") }

    /// The file of the shipped config `name`, or nil when there is none.
    public func path(of name: String) -> String? {
        guard let folder, names.contains(name) else { return nil }
        return folder + "/" + name + ".acf"
    }

    /// Why `name` finds nothing, for a message: the names shipped, or that none is installed.
    /// At most 12 names, each cut to 32 characters, then how many more: a folder of thousands
    /// of configs, or of long names, still makes a one-line message.
    public var list: String {
        let all = names
        guard !all.isEmpty else { return "none are installed" }
        let shown = all.prefix(12).map { MessageText.excerpt($0, limit: 32) }.joined(separator: ", ")
        return "shipped: " + shown + (all.count > 12 ? " and \(all.count - 12) more" : "")
    }
}
